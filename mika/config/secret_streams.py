"""Text that leaves in pieces — model deltas, stdout and stderr — with every configured
secret masked, even one split across two pieces."""

from __future__ import annotations

import atexit
import contextlib
import io
import sys
import threading
from typing import Any, TextIO

from mika.config.secrets import REGISTRY, SecretRegistry, scrub_bytes


class StreamGuard:
    """Scrubs text that arrives in pieces (model deltas, stream writes): a secret split
    across two pieces is masked, because the tail that could begin one is held back
    until the next piece (or `flush`) says what it was."""

    def __init__(self, registry: SecretRegistry = REGISTRY) -> None:
        self._registry = registry
        self._pending = ""

    def feed(self, piece: str) -> str:
        text = self._registry.text(self._pending + piece)
        keep = self._registry.holdback(text)
        self._pending = text[len(text) - keep :] if keep else ""
        return text[: len(text) - keep] if keep else text

    def flush(self) -> str:
        text, self._pending = self._registry.text(self._pending), ""
        return text


class GuardedTextStream(io.TextIOBase):
    """stdout/stderr with every configured secret masked. `buffer` is guarded too, so a
    writer that goes around the text layer (click does, for bytes or odd encodings)
    still passes the scrub."""

    def __init__(self, raw: Any) -> None:
        # Any stream with the TextIO surface: sys.stdout/stderr, or a test's StringIO.
        self._raw: TextIO = raw
        self._guard = StreamGuard()
        self._lock = threading.RLock()
        raw_buffer = getattr(raw, "buffer", None)
        self._buffer = _GuardedBinary(raw_buffer, self) if raw_buffer is not None else None

    def write(self, s: str) -> int:
        with self._lock:
            out = self._guard.feed(s)
            if out:
                self._raw.write(out)
        return len(s)

    def flush(self) -> None:
        with self._lock:
            self._raw.flush()

    def release(self) -> None:
        """Let out what was held back (at exit: nothing more can complete it)."""
        with self._lock:
            rest = self._guard.flush()
            if rest:
                self._raw.write(rest)
            with contextlib.suppress(OSError, ValueError):
                self._raw.flush()

    @property
    def buffer(self) -> Any:
        return self._buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._raw, "encoding", "utf-8")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self._raw, "errors", None)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._raw.isatty()

    def fileno(self) -> int:
        return self._raw.fileno()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class _GuardedBinary:
    def __init__(self, raw: Any, text: GuardedTextStream) -> None:
        self._raw, self._text = raw, text

    def write(self, data: bytes) -> int:
        self._text.release()  # keep the order of text already written
        self._raw.write(scrub_bytes(bytes(data)))
        return len(data)

    def flush(self) -> None:
        self._raw.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


def guard_std_streams() -> None:
    """Wrap sys.stdout and sys.stderr once per process (the CLI entry point calls this)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or isinstance(stream, GuardedTextStream):
            continue
        guarded = GuardedTextStream(stream)
        setattr(sys, name, guarded)
        atexit.register(guarded.release)
