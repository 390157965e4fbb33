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
from typing import Any, AnyStr, Generic
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


# How much of each form the one regex looks for; the rest is compared where it matched.
# Compiling a regex costs time per character of the pattern (the parser is Python), and a
# ChatGPT sign-in brings 2–3 KB tokens, new ones every hour: whole forms in the pattern made
# each registration take seconds, more with every refresh.
_HEAD = 16


class _Masker(Generic[AnyStr]):
    """Replaces every form (longest first, leftmost first, as one alternation would) in str
    or bytes."""

    def __init__(self, forms: tuple[AnyStr, ...], bar: AnyStr, mask: AnyStr) -> None:
        heads = sorted({f[:_HEAD] for f in forms}, key=len, reverse=True)
        self.pattern: re.Pattern[AnyStr] = re.compile(bar.join(re.escape(h) for h in heads))
        self.mask: AnyStr = mask
        by_start: dict[AnyStr, list[AnyStr]] = {}
        for f in sorted(forms, key=len, reverse=True):
            by_start.setdefault(f[:1], []).append(f)
        self.by_start: dict[AnyStr, tuple[AnyStr, ...]] = {k: tuple(v) for k, v in by_start.items()}

    def sub(self, text: AnyStr) -> AnyStr:
        pieces: list[AnyStr] = []
        pos = last = 0
        while (m := self.pattern.search(text, pos)) is not None:
            at = m.start()
            for form in self.by_start[text[at : at + 1]]:
                if text.startswith(form, at):
                    pieces += [text[last:at], self.mask]
                    last = pos = at + len(form)
                    break
            else:
                pos = at + 1  # a head without the rest of its secret
        if not pieces:
            return text
        pieces.append(text[last:])
        empty: AnyStr = self.mask[:0]
        return empty.join(pieces)


class SecretRegistry:
    """The process-wide set of exact secrets, as one compiled pattern (longest first)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: set[str] = set()
        self._forms: tuple[str, ...] = ()
        self._pattern: _Masker[str] | None = None
        self._bytes_pattern: _Masker[bytes] | None = None
        # The forms by their first character, for `holdback`. Not a set of every prefix: a
        # ChatGPT access token is a 2–3 KB JWT, and the prefixes of one are megabytes (a new
        # set of them at every refresh).
        self._by_start: dict[str, tuple[str, ...]] = {}
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
            ordered = tuple(sorted(set(self._forms) | _forms(secret), key=len, reverse=True))
            self._pattern = _Masker(ordered, "|", MASK)
            self._bytes_pattern = _Masker(tuple(f.encode("utf-8") for f in ordered), b"|", MASK.encode())
            self._forms = ordered
            self._by_start = self._pattern.by_start
            self._longest = len(ordered[0])
        return True

    def clear(self) -> None:
        """Forget every secret (tests that register their own)."""
        with self._lock:
            self._secrets.clear()
            self._forms = ()
            self._pattern = self._bytes_pattern = None
            self._by_start, self._longest = {}, 0

    @property
    def forms(self) -> tuple[str, ...]:
        return self._forms

    def __len__(self) -> int:
        return len(self._secrets)

    def text(self, value: str) -> str:
        pattern = self._pattern
        if pattern is None or not value:
            return value
        return pattern.sub(value)

    def data(self, value: bytes) -> bytes:
        pattern = self._bytes_pattern
        if pattern is None or not value:
            return value
        return pattern.sub(value)

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
        by_start = self._by_start
        end = len(text)
        # Earliest position first: the longest tail that could still become a secret wins.
        for i in range(max(0, end - (self._longest - 1)), end):
            forms = by_start.get(text[i])
            if not forms:
                continue
            head = text[i : i + 8]  # a short slice rules most candidates out
            for f in forms:
                if len(f) > end - i and f.startswith(head) and f.startswith(text[i:]):
                    return end - i
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
