"""`LeasedTable`: one state file holding records by id, shared by processes.

The file is `{"version": 1, KEY: {id: record}}`. Every change is a locked
read-modify-write (mika.run.state_lock) and prunes old records on the way; the process
that writes holds a lease, so recovery can tell records of a live process from those a
dead one left. The run store and the delivery ledger are both such tables.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from mika.config.paths import state_dir as default_state_dir
from mika.run.state_lock import ProcessLease, process_lease, read_state, state_lock, update_json

Rows = dict[str, dict[str, Any]]
T = TypeVar("T")


class LeasedTable:
    filename: ClassVar[str]
    key: ClassVar[str]

    def __init__(
        self,
        state_dir: Path | str | None = None,
        *,
        lease: ProcessLease | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.state_dir = Path(state_dir) if state_dir is not None else default_state_dir()
        self.path = self.state_dir / self.filename
        self._lease = lease
        self._clock = clock

    @property
    def owner(self) -> str:
        if self._lease is None:
            self._lease = process_lease(self.state_dir)
        return self._lease.token

    def _rows_of(self, data: Any) -> Rows:
        rows = data.get(self.key) if isinstance(data, dict) else None
        return rows if isinstance(rows, dict) else {}

    def _rows(self) -> Rows:
        with state_lock(self.path):
            return self._rows_of(read_state(self.path, {}))

    def _change(self, change: Callable[[Rows], T]) -> T:
        """Apply `change` to the rows under the lock; returns what `change` returned."""
        result: list[T] = []

        def apply(data: Any) -> dict[str, Any]:
            rows = dict(self._rows_of(data))
            result.append(change(rows))
            return {"version": 1, self.key: self._prune(rows, self._clock())}

        update_json(self.path, apply, {})
        return result[0]

    def _prune(self, rows: Rows, now: float) -> Rows:
        """Which rows to keep; the default keeps them all."""
        return rows
