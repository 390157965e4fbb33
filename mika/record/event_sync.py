"""Making a run's event log durable without making every step wait for the disk.

Each event is written to `events.jsonl` at once (a killed process loses nothing it
wrote: the bytes are in the kernel), and fsynced by one helper thread in bursts: many
events written while a sync runs share the next one. The log is synced in the caller's
thread when the run closes. Before, each event paid its own fsync inside the step: on a
busy disk (the test suite running beside it) that was 8 ms an event, five events a step
(benchmarks/step_overhead.py). What a power cut can lose is the last few milliseconds of
events, as it could while an fsync was under way before.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

log = logging.getLogger(__name__)


def _fsync(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return  # removed meanwhile (an old run pruned): nothing left to make durable
    try:
        os.fsync(fd)  # flushes the file's pages whichever descriptor wrote them
    except OSError:
        log.warning("could not sync %s", path, exc_info=True)
    finally:
        os.close(fd)


class EventSync:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._dirty: set[str] = set()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def later(self, path: Path | str) -> None:
        """`path` was appended to: sync it soon, off this thread."""
        with self._lock:
            self._dirty.add(str(path))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="mika-event-sync", daemon=True)
                self._thread.start()
        self._wake.set()

    def now(self, path: Path | str) -> None:
        """Sync `path` before returning (a run's end)."""
        with self._lock:
            self._dirty.discard(str(path))
        _fsync(str(path))

    def _loop(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            with self._lock:
                paths, self._dirty = self._dirty, set()
            for path in paths:
                _fsync(path)


SYNC = EventSync()
