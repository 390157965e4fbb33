"""Server-sent events read from a byte stream, as the HTML standard's event-stream
interpretation says (https://html.spec.whatwg.org/multipage/server-sent-events.html).

Our own reader, so a request needs no SDK: lines end at CR, LF or CRLF (a CRLF split
between two network chunks is one line end), each line is UTF-8 on its own (a line that
is not raises `UnicodeDecodeError`, which mika.model.adapters.bad_reply turns into a
sentence), `data:` lines join with newlines, and a blank line ends the event. Only the
fields a model API uses are kept: the event's name and its data.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

_LINE_END = re.compile(rb"\r\n|\r|\n")


@dataclass(frozen=True)
class ServerEvent:
    data: str
    event: str = ""


class _Lines:
    """Complete lines out of arbitrary chunks."""

    def __init__(self) -> None:
        self._partial = bytearray()
        # The last chunk ended in CR: an LF at the start of the next one belongs to it.
        self._after_cr = False

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        if not chunk:
            return
        if self._after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._after_cr = chunk.endswith(b"\r")
        start = 0
        for end in _LINE_END.finditer(chunk):
            self._partial += chunk[start : end.start()]
            yield bytes(self._partial)
            self._partial.clear()
            start = end.end()
        self._partial += chunk[start:]

    def rest(self) -> bytes:
        """What followed the last line end (a stream that ends without one)."""
        line = bytes(self._partial)
        self._partial.clear()
        return line


class EventReader:
    def __init__(self) -> None:
        self._lines = _Lines()
        self._data: list[str] = []
        self._event = ""

    def feed(self, chunk: bytes) -> Iterator[ServerEvent]:
        for raw in self._lines.feed(chunk):
            event = self._line(raw.decode("utf-8"))
            if event is not None:
                yield event

    def end(self) -> None:
        """The stream closed. An unfinished last line is still decoded (bytes that are not
        UTF-8 are a bad reply wherever they are), but an event that no blank line ended
        is not dispatched: it may be cut."""
        rest = self._lines.rest()
        if rest:
            self._line(rest.decode("utf-8"))

    def _line(self, line: str) -> ServerEvent | None:
        if not line:
            if not self._data:
                # The standard: an event without data is dropped (a bare `event: ping`).
                self._event = ""
                return None
            event = ServerEvent("\n".join(self._data), self._event)
            self._data, self._event = [], ""
            return event
        if line.startswith(":"):
            return None  # a comment (keep-alive)
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        return None  # id and retry: a model API's reply is never resumed


async def server_events(chunks: AsyncIterator[bytes]) -> AsyncIterator[ServerEvent]:
    reader = EventReader()
    async for chunk in chunks:
        for event in reader.feed(chunk):
            yield event
    reader.end()
