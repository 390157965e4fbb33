"""Token usage, counted once at the source: UTC hour × provider × model × purpose.

Recording only adds in memory (thread-safe); a background thread writes the whole ledger
atomically about every 2 s after a change, so a killed process loses at most the last
few seconds. Buckets older than 400 days are dropped.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from mika.atomic_write import read_json, write_json
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


def _epoch(at: float | datetime | None, clock) -> float:
    if at is None:
        return clock()
    if isinstance(at, datetime):
        if at.tzinfo is None:
            raise ValueError("usage times must be timezone-aware")
        return at.timestamp()
    return float(at)


class UsageLedgerError(Exception):
    """The usage file exists but cannot be read; it is kept aside, not overwritten."""


class UsageLedger:
    def __init__(self, path: Path | str | None, *, flush_interval: float = FLUSH_INTERVAL,
                 clock=time.time, keep_days: int = KEEP_DAYS) -> None:
        self.path = Path(path) if path is not None else None
        self._clock = clock
        self._keep = keep_days * 86400
        self._interval = flush_interval
        self._lock = threading.Lock()
        self._cells: dict[Key, list[int]] = {}
        self._dirty = False
        self._wake = threading.Event()
        self._stop = False
        self._thread: threading.Thread | None = None
        self._load()

    # -- reading and writing the file
    def _load(self) -> None:
        if self.path is None:
            return
        try:
            data = read_json(self.path, default=None)
        except ValueError:
            aside = self.path.with_name(self.path.name + ".unreadable")
            self.path.replace(aside)
            return
        if not isinstance(data, dict) or data.get("version") != 1:
            return
        columns = data.get("columns") or COLUMNS
        for row in data.get("rows") or []:
            try:
                rec = dict(zip(columns, row))
                key = (int(rec["hour"]), str(rec["provider"]), str(rec["model"]), str(rec["purpose"]))
                cell = self._cells.setdefault(key, [0, 0, 0, 0, 0])
                for i, name in enumerate(COLUMNS[4:]):
                    cell[i] += int(rec.get(name) or 0)
            except (KeyError, TypeError, ValueError):
                continue  # one damaged row must not cost the rest

    def _snapshot(self) -> dict:
        cutoff = self._clock() - self._keep
        with self._lock:
            for key in [k for k in self._cells if k[0] < cutoff]:
                del self._cells[key]
            rows = [[*key, *cell] for key, cell in sorted(self._cells.items())]
            self._dirty = False
        return {"version": 1, "columns": COLUMNS, "rows": rows}

    def flush(self) -> None:
        if self.path is None:
            with self._lock:
                self._dirty = False
            return
        write_json(self.path, self._snapshot())

    def close(self) -> None:
        self._stop = True
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
            time.sleep(self._interval)  # gather the burst of a run's calls into one write
            if self._dirty:
                try:
                    self.flush()
                except OSError:
                    pass  # kept dirty in memory; the next change or close() tries again

    # -- recording
    def record(self, provider: str, model: str, purpose: str, usage: Usage,
               at: float | datetime | None = None) -> None:
        hour = int(_epoch(at, self._clock) // 3600 * 3600)
        key = (hour, provider, model, purpose)
        with self._lock:
            cell = self._cells.setdefault(key, [0, 0, 0, 0, 0])
            if usage.reported:
                cell[0] += usage.input_tokens
                cell[1] += usage.output_tokens
                cell[2] += usage.cached_input_tokens
                cell[3] += 1
            else:
                cell[4] += 1
            self._dirty = True
            if self.path is not None and self._thread is None:
                self._thread = threading.Thread(target=self._writer, name="usage-ledger", daemon=True)
                self._thread.start()
        self._wake.set()

    def rows(self) -> list[UsageRow]:
        with self._lock:
            return [UsageRow(*key, *cell) for key, cell in sorted(self._cells.items())]
