"""`Redactor`: what never reaches a run record — passwords typed and key-like strings."""

from __future__ import annotations

import re
from typing import Any

MASK = "[redacted]"

# Tokens that look like API keys or bearer secrets: long runs of key characters, or
# well-known prefixes. Conservative on purpose: better one redacted id than a leaked key.
_KEYLIKE = re.compile(
    r"(?:sk|pk|rk|ak|key|api|token|ghp|gho|xox[abp]|AIza)[-_A-Za-z0-9]{16,}"
    r"|Bearer\s+[-._~+/A-Za-z0-9]{12,}=*"
    r"|\b[A-Za-z0-9_\-]{40,}\b"
)
_SECRET_KEYS = re.compile(r"pass(word)?|secret|api[_-]?key|token|authorization|cookie", re.I)


class Redactor:
    def __init__(self, extra_secrets: tuple[str, ...] = ()) -> None:
        # Exact secrets known to this process (configured keys, a password the user typed).
        self._secrets = {s for s in extra_secrets if s and len(s) >= 4}
        self._listeners: list = []

    def add_secret(self, secret: str) -> None:
        """A secret learnt mid-run (text typed into a password field). Listeners (the
        recorder) scrub what they already wrote, because the model's call that carried
        it was recorded before anyone knew the field was a password field."""
        if secret and len(secret) >= 4 and secret not in self._secrets:
            self._secrets.add(secret)
            for listener in list(self._listeners):
                listener()

    def on_new_secret(self, listener) -> None:
        self._listeners.append(listener)

    def text(self, value: str) -> str:
        for s in sorted(self._secrets, key=len, reverse=True):
            value = value.replace(s, MASK)
        return _KEYLIKE.sub(MASK, value)

    def value(self, value: Any, *, key: str = "") -> Any:
        if key and _SECRET_KEYS.search(key) and isinstance(value, str) and value:
            return MASK
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return self.event_dict(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value

    def event_dict(self, data: dict[str, Any]) -> dict[str, Any]:
        out = {k: self.value(v, key=k) for k, v in data.items()}
        # Text typed into a password field: the tool marks the call, the text goes.
        args = out.get("arguments")
        if isinstance(args, dict) and (args.get("password") is True or args.get("is_password") is True):
            out["arguments"] = {k: (MASK if k in ("text", "value") else v) for k, v in args.items()}
        return out
