"""The secrets this process knows, and the one scrub every write and every output takes.

Configured secrets (API keys from environment variables or key files, provider header
values) are registered once at start (`mika.config.secret_discovery`). From then on the
writing primitives (`mika.atomic_write`) and the guarded stdout/stderr replace each of
them — and the forms a server or a serializer turns them into (JSON-escaped,
URL-encoded, HTML-escaped, a Python repr) — with MASK. This is the lowest layer (it
imports nothing of Mika), so the file writers can use it.

Only exact, long values are registered: a short value ("1", "true", a header like
`X-Title: Mika`) would eat ordinary text everywhere.
"""

from __future__ import annotations

import html
import json
import re
import threading
from typing import Any
from urllib.parse import quote, quote_plus

MASK = "[redacted]"
MIN_SECRET_LEN = 8


def _forms(secret: str) -> set[str]:
    """The secret and what it becomes inside the texts Mika writes: a JSON string, a URL,
    an HTML error page, a Python repr (tracebacks), and those nested once more."""
    one = {
        secret,
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json.dumps(secret)[1:-1],
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
        html.escape(secret),
        html.escape(secret, quote=False),
        repr(secret)[1:-1],
    }
    two = set(one)
    for form in one:
        two.add(json.dumps(form, ensure_ascii=False)[1:-1])
        two.add(repr(form)[1:-1])
        two.add(quote(form, safe=""))
    # Percent-escapes in lower case are the same URL.
    two |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), f) for f in two if "%" in f}
    return {f for f in two if len(f) >= MIN_SECRET_LEN}


class SecretRegistry:
    """The process-wide set of exact secrets, as one compiled pattern (longest first)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: set[str] = set()
        self._forms: tuple[str, ...] = ()
        self._pattern: re.Pattern[str] | None = None
        self._bytes_pattern: re.Pattern[bytes] | None = None
        # Every proper prefix of every form, for `holdback` (a set lookup per length).
        self._prefixes: frozenset[str] = frozenset()
        self._longest = 0

    def add(self, secret: str | None) -> bool:
        """Register one secret; False if it is too short to mask safely or known already."""
        if not isinstance(secret, str):
            return False
        secret = secret.strip()
        if len(secret) < MIN_SECRET_LEN or secret in self._secrets:
            return False
        with self._lock:
            self._secrets.add(secret)
            forms = set(self._forms) | _forms(secret)
            ordered = tuple(sorted(forms, key=len, reverse=True))
            self._pattern = re.compile("|".join(re.escape(f) for f in ordered))
            self._bytes_pattern = re.compile(b"|".join(re.escape(f.encode("utf-8")) for f in ordered))
            self._forms = ordered
            self._prefixes = frozenset(f[:n] for f in ordered for n in range(1, len(f)))
            self._longest = len(ordered[0])
        return True

    def clear(self) -> None:
        """Forget every secret (tests that register their own)."""
        with self._lock:
            self._secrets.clear()
            self._forms = ()
            self._pattern = self._bytes_pattern = None
            self._prefixes, self._longest = frozenset(), 0

    @property
    def forms(self) -> tuple[str, ...]:
        return self._forms

    def __len__(self) -> int:
        return len(self._secrets)

    def text(self, value: str) -> str:
        pattern = self._pattern
        if pattern is None or not value:
            return value
        return pattern.sub(MASK, value)

    def data(self, value: bytes) -> bytes:
        pattern = self._bytes_pattern
        if pattern is None or not value:
            return value
        return pattern.sub(MASK.encode(), value)

    def value(self, value: Any) -> Any:
        """Strings anywhere inside dicts, lists and tuples (keys too), before serializing."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {(self.text(k) if isinstance(k, str) else k): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value

    def holdback(self, text: str) -> int:
        """How many characters at the end of `text` could be the start of a secret, so a
        stream must wait for what follows before letting them out."""
        prefixes = self._prefixes
        for n in range(min(self._longest - 1, len(text)), 0, -1):
            if text[-n:] in prefixes:
                return n
        return 0


REGISTRY = SecretRegistry()


def register_secret(secret: str | None) -> bool:
    return REGISTRY.add(secret)


def scrub(text: str) -> str:
    return REGISTRY.text(text)


def scrub_bytes(data: bytes) -> bytes:
    return REGISTRY.data(data)


def scrub_value(value: Any) -> Any:
    return REGISTRY.value(value)
