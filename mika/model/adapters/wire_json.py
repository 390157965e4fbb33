"""Request bodies as JSON bytes, assembled from pieces each encoded once.

A run's history only grows: step 40 sends the 79 messages of step 39 again, plus one.
Converting and encoding every message again on every request (and letting the SDK walk
the whole body once more) made building a request grow with the history, 17 ms at 119
messages. Here each message's wire form is made and encoded once and remembered by the
identity of the neutral message it came from; a request's body is the join of those
texts, which costs about a `bytes.join`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

S = TypeVar("S")
T = TypeVar("T")

# How many requests an entry may go unused before it is dropped. Side calls (judge,
# summary) share the model with the main loop and interleave with its requests; a few
# requests of slack keep the main history's entries alive across them.
KEEP_UNUSED = 4


# A UTF-16 half on its own: `json.loads` makes one from a "\\ud800" escape in a model's
# reply, and UTF-8 has no bytes for it.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(value: Any) -> str:
    """JSON text as the SDKs and httpx send it: compact, UTF-8 left as is, no NaN."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        # `json.loads` reads NaN and Infinity in a model's tool arguments, but JSON has no
        # such numbers and servers refuse them; as null the history can still be sent.
        return json.dumps(_finite(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def utf8(text: str) -> bytes:
    """The text's UTF-8 bytes; a lone surrogate becomes U+FFFD rather than failing the
    request (and every later one, as the history keeps it)."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text).encode()


@dataclass(frozen=True)
class JsonArray:
    """A JSON array whose items are already JSON text."""

    items: Sequence[str]


def encode_object(fields: Iterable[tuple[str, Any]]) -> bytes:
    """A JSON object from (key, value) pairs in order; a `JsonArray` value goes in as is.
    Byte for byte what `dumps` gives for the same dict with the items decoded."""
    out = []
    for key, value in fields:
        text = "[" + ",".join(value.items) + "]" if isinstance(value, JsonArray) else dumps(value)
        out.append(dumps(key) + ":" + text)
    return utf8("{" + ",".join(out) + "}")


class _Entry(Generic[T]):
    __slots__ = ("source", "used", "value")

    def __init__(self, source: object, value: T, used: int) -> None:
        # Holding the source keeps its id from being reused by another object while cached.
        self.source = source
        self.value = value
        self.used = used


class IdentityMemo(Generic[S, T]):
    """What `make` gave for an object, for as long as requests keep using it.

    Keyed by identity: the neutral messages and tool specs are frozen, and a changed
    history is made of new objects (a compressed screen is a new message), so the same
    object always converts to the same wire form. Some messages are rebuilt as equal
    copies for every request (an older screenshot becomes a line of text each time);
    given its `slot` (its index in the request), a copy equal to what that slot held last
    time is a hit too."""

    def __init__(self, make: Callable[[S], T]) -> None:
        self._make = make
        self._entries: dict[tuple[int, Hashable], _Entry[T]] = {}
        self._slots: dict[tuple[int, Hashable], _Entry[T]] = {}
        self._request = 0

    def get(self, source: S, variant: Hashable = None, slot: int | None = None) -> T:
        """`variant`: anything else the conversion depends on (part of the key)."""
        key = (id(source), variant)
        entry = self._entries.get(key)
        if entry is None or entry.source is not source:
            near = self._slots.get((slot, variant)) if slot is not None else None
            value = near.value if near is not None and near.source == source else self._make(source)
            entry = _Entry(source, value, self._request)
            self._entries[key] = entry
        if slot is not None:
            self._slots[(slot, variant)] = entry
        entry.used = self._request
        return entry.value

    def next_request(self) -> None:
        """Called once per request, after it is built: forget what recent requests left out."""
        self._request += 1
        oldest = self._request - KEEP_UNUSED
        for table in (self._entries, self._slots):
            stale = [key for key, entry in table.items() if entry.used < oldest]
            for key in stale:
                del table[key]

    def __len__(self) -> int:
        return len(self._entries)
