"""Token usage, counted once at the source: UTC hour × provider × model × purpose.

Recording only adds in memory (thread-safe); a background thread writes the whole ledger
atomically about every 2 s after a change, so a killed process loses at most the last
few seconds. Buckets older than 400 days are dropped.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from mika.atomic_write import ensure_dir, read_json, write_json
from mika.model.messages import Usage

KEEP_DAYS = 400
FLUSH_INTERVAL = 2.0
COLUMNS = ["hour", "provider", "model", "purpose", "input", "output", "cached", "calls", "unreported"]


@dataclass(frozen=True)
class UsageRow:
    hour: int  # UTC epoch seconds of the hour's start
    provider: str
    model: str
    purpose: str
    input: int = 0
    output: int = 0
    cached: int = 0
    calls: int = 0
    # Calls that reported no usage (or failed, or were cancelled): counted, never estimated.
    unreported: int = 0


Key = tuple[int, str, str, str]


def _epoch(at: float | datetime | None, clock: Callable[[], float]) -> float:
    if at is None:
        return clock()
    if isinstance(at, datetime):
        if at.tzinfo is None:
            raise ValueError("usage times must be timezone-aware")
        return at.timestamp()
    return float(at)


class UsageLedger:
    def __init__(
        self,
        path: Path | str | None,
        *,
        flush_interval: float = FLUSH_INTERVAL,
        clock: Callable[[], float] = time.time,
        keep_days: int = KEEP_DAYS,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self._clock = clock
        self._keep = keep_days * 86400
        self._interval = flush_interval
        self._lock = threading.Lock()
        self._cells: dict[Key, list[int]] = {}
        # Counts recorded since the last write; only these are added to the file.
        self._pending: dict[Key, list[int]] = {}
        self._dirty = False
        self._wake = threading.Event()
        self._closing = threading.Event()
        self._stop = False
        self._thread: threading.Thread | None = None
        self._load()

    # -- reading and writing the file
    def _read_file(self) -> dict[Key, list[int]]:
        cells: dict[Key, list[int]] = {}
        if self.path is None:
            return cells
        try:
            data = read_json(self.path, default=None)
        except ValueError:
            # Keep the damaged file for the user to look at; start a new one.
            self.path.replace(self.path.with_name(self.path.name + ".unreadable"))
            return cells
        if not isinstance(data, dict) or data.get("version") != 1:
            return cells
        columns = data.get("columns") or COLUMNS
        for row in data.get("rows") or []:
            try:
                rec = dict(zip(columns, row, strict=False))
                key = (int(rec["hour"]), str(rec["provider"]), str(rec["model"]), str(rec["purpose"]))
                cell = cells.setdefault(key, [0, 0, 0, 0, 0])
                for i, name in enumerate(COLUMNS[4:]):
                    cell[i] += int(rec.get(name) or 0)
            except (KeyError, TypeError, ValueError):
                continue  # one damaged row must not cost the rest
        return cells

    def _load(self) -> None:
        self._cells = self._read_file()

    def flush(self) -> None:
        """Write what was recorded since the last flush.

        Several `mika` processes may share the file (a TUI and a headless run), so the
        file is re-read under a lock and only our new counts are added to it."""
        with self._lock:
            pending, self._pending = self._pending, {}
            self._dirty = False
        if self.path is None:
            return
        ensure_dir(self.path.parent)
        try:
            with os.fdopen(
                os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
            ) as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                cells = self._read_file()
                for key, delta in pending.items():
                    cell = cells.setdefault(key, [0, 0, 0, 0, 0])
                    for i, v in enumerate(delta):
                        cell[i] += v
                cutoff = self._clock() - self._keep
                cells = {k: v for k, v in cells.items() if k[0] >= cutoff}
                rows = [[*key, *cell] for key, cell in sorted(cells.items())]
                write_json(self.path, {"version": 1, "columns": COLUMNS, "rows": rows})
        except BaseException:
            with self._lock:  # not written: keep the counts for the next attempt
                for key, delta in pending.items():
                    cell = self._pending.setdefault(key, [0, 0, 0, 0, 0])
                    for i, v in enumerate(delta):
                        cell[i] += v
                self._dirty = True
            raise
        with self._lock:
            # Our view becomes the file's (other processes' counts included) plus anything
            # recorded while we were writing.
            merged = {k: list(v) for k, v in cells.items()}
            for key, delta in self._pending.items():
                cell = merged.setdefault(key, [0, 0, 0, 0, 0])
                for i, v in enumerate(delta):
                    cell[i] += v
            self._cells = merged

    def close(self) -> None:
        self._stop = True
        self._closing.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)
        if self._dirty:
            self.flush()

    def _writer(self) -> None:
        while not self._stop:
            self._wake.wait()
            self._wake.clear()
            if self._stop:
                break
            # Gather the burst of a run's calls into one write; close() cuts the wait short.
            self._closing.wait(self._interval)
            if self._stop:
                break
            if self._dirty:
                try:
                    self.flush()
                except OSError:
                    pass  # kept dirty in memory; the next change or close() tries again

    # -- recording
    def record(self, provider: str, model: str, purpose: str, usage: Usage, at: float | datetime | None = None) -> None:
        hour = int(_epoch(at, self._clock) // 3600 * 3600)
        key = (hour, provider, model, purpose)
        if usage.reported:
            delta = (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens, 1, 0)
        else:
            delta = (0, 0, 0, 0, 1)
        with self._lock:
            for cells in (self._cells, self._pending):
                cell = cells.setdefault(key, [0, 0, 0, 0, 0])
                for i, v in enumerate(delta):
                    cell[i] += v
            self._dirty = True
            if self.path is not None and self._thread is None:
                self._thread = threading.Thread(target=self._writer, name="usage-ledger", daemon=True)
                self._thread.start()
                # A short headless run may end before the writer's next pass: write at exit too.
                atexit.register(_flush_at_exit, weakref.ref(self))
        self._wake.set()

    def rows(self) -> list[UsageRow]:
        cutoff = self._clock() - self._keep
        with self._lock:
            return [UsageRow(*key, *cell) for key, cell in sorted(self._cells.items()) if key[0] >= cutoff]


def _flush_at_exit(ref: weakref.ReferenceType[UsageLedger]) -> None:
    ledger = ref()
    if ledger is not None and ledger._dirty:
        try:
            ledger.flush()
        except OSError:
            pass  # exiting anyway; nothing better to do with a full disk
