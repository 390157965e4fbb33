"""`Redactor`: what never reaches a run record — configured secrets, passwords typed and
key-shaped strings.

Configured secrets are masked for every file by `mika.atomic_write` (the safety net);
the record masks them too, plus what only the record can know: text typed into a
password field, and strings shaped like keys of services nobody configured here.
Key shapes are the known prefixes and random-looking tokens, never "any long run of
letters": a 120,000-character goal stays the goal.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from mika.config.secrets import MASK, scrub

# Well-known key formats; each needs a boundary in front so `task-…` or `risk-…` stay words.
_PREFIXED = re.compile(
    r"(?<![A-Za-z0-9_])(?:"
    r"sk-ant-[A-Za-z0-9_\-]{20,}"  # Anthropic
    r"|(?:sk|pk|rk)-(?:proj-|svcacct-|or-v1-|live_|test_)?[A-Za-z0-9_\-]{16,}"  # OpenAI, OpenRouter, Stripe-like
    r"|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"  # Stripe
    r"|AIza[0-9A-Za-z_\-]{30,}"  # Google
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"  # GitHub
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}"  # Slack
    r"|glpat-[A-Za-z0-9_\-]{20,}|hf_[A-Za-z0-9]{30,}|gsk_[A-Za-z0-9]{30,}"
    r"|AKIA[0-9A-Z]{16}"  # AWS access key id
    r"|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"  # JWT
    r")"
)
_AUTH = re.compile(r"\b(Bearer|Basic|Token)(\s+)([-._~+/A-Za-z0-9]{12,}=*)", re.I)
_ASSIGNED = re.compile(
    r"(?i)\b((?:api[_-]?key|access[_-]?token|auth[_-]?token|secret|password|passwd|token)[\"']?\s*[:=]\s*[\"']?)"
    r"((?=[^\s\"'&,;]*[0-9])(?=[^\s\"'&,;]*[A-Za-z])[^\s\"'&,;]{8,})"
)
# A random-looking token: 32–256 key characters (letters, digits, - and _; not / or +,
# so paths and URLs stay whole) mixing upper, lower and digits with high
# entropy. Hex digests, ids, words, repeated letters and pasted prose don't qualify.
_RUN = re.compile(r"(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{32,}(?![A-Za-z0-9_\-])")
_RUN_MAX = 256
_SECRET_KEYS = re.compile(r"pass(word)?|secret|api[_-]?key|token|authorization|cookie", re.I)


def _looks_random(token: str) -> bool:
    if len(token) > _RUN_MAX:
        return False
    body = token
    if not (re.search(r"[a-z]", body) and re.search(r"[A-Z]", body) and sum(c.isdigit() for c in body) >= 3):
        return False
    counts = Counter(body)
    entropy = -sum(n / len(body) * math.log2(n / len(body)) for n in counts.values())
    return entropy >= 4.2


def _prefixed(m: re.Match[str]) -> str:
    token = m.group(0)
    # `sk-learn-model-selection-guide` is words, not a key: real keys carry digits.
    if token[:3] in ("sk-", "pk-", "rk-") and not token.startswith("sk-ant-") and sum(c.isdigit() for c in token) < 2:
        return token
    return MASK


def mask_key_shapes(text: str) -> str:
    """Strings shaped like keys, masked; everything else exactly as it was."""
    if len(text) < 12:
        return text
    text = _PREFIXED.sub(_prefixed, text)
    text = _AUTH.sub(lambda m: m.group(1) + m.group(2) + MASK, text)
    text = _ASSIGNED.sub(lambda m: m.group(1) + MASK, text)
    return _RUN.sub(lambda m: MASK if _looks_random(m.group(0)) else m.group(0), text)


class Redactor:
    def __init__(self, extra_secrets: tuple[str, ...] = ()) -> None:
        # Exact secrets known to this run (a password the user typed); configured keys
        # are in the process-wide registry (mika.config.secrets).
        self._secrets = {s for s in extra_secrets if s and len(s) >= 4}
        self._listeners: list[Callable[[], None]] = []

    def add_secret(self, secret: str) -> None:
        """A secret learnt mid-run (text typed into a password field). Listeners (the
        recorder) scrub what they already wrote, because the model's call that carried
        it was recorded before anyone knew the field was a password field."""
        if secret and len(secret) >= 4 and secret not in self._secrets:
            self._secrets.add(secret)
            for listener in list(self._listeners):
                listener()

    def on_new_secret(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def text(self, value: str) -> str:
        value = scrub(value)
        for s in sorted(self._secrets, key=len, reverse=True):
            value = value.replace(s, MASK)
        return mask_key_shapes(value)

    def value(self, value: Any, *, key: str = "") -> Any:
        if key and _SECRET_KEYS.search(key) and isinstance(value, str) and value:
            return MASK
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return self.event_dict(value)
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value

    def event_dict(self, data: dict[str, Any]) -> dict[str, Any]:
        out = {k: self.value(v, key=k) for k, v in data.items()}
        # Text typed into a password field: the tool marks the call, the text goes.
        args = out.get("arguments")
        if isinstance(args, dict) and (args.get("password") is True or args.get("is_password") is True):
            out["arguments"] = {k: (MASK if k in ("text", "value") else v) for k, v in args.items()}
        return out
