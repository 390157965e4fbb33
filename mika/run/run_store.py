"""Run state in one file, `<state>/run-state.json`, written atomically under a lock.

It answers one question after a crash: which runs never finished, and did the ones
that finished save an answer before they died? Each record carries the lease token
of the process that owns it, so a second Mika on the same state dir never marks a
run interrupted while its owner is still alive.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from mika.run.leased_table import LeasedTable
from mika.run.phase import RunPhase
from mika.run.state_lock import lease_alive
from mika.runtypes.result import RunResult

FINISHED = (RunPhase.ENDED, RunPhase.INTERRUPTED)
KEEP_FINISHED_S = 7 * 24 * 3600  # shorter than the outbox keeps its ledger (see outbox.py)
KEEP_FINISHED_MAX = 500


@dataclass(frozen=True)
class RunRecord:
    run_id: str
    conversation_id: str = ""
    goal: str = ""
    phase: str = RunPhase.QUEUED.value
    owner: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0
    status: str = ""  # OutcomeStatus value once a result is saved
    answer: str = ""
    subtype: str = ""
    answer_saved: bool = False
    interrupted_at: float = 0.0

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunRecord:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def run_phase(self) -> RunPhase:
        try:
            return RunPhase(self.phase)
        except ValueError:
            return RunPhase.INTERRUPTED

    @property
    def finished(self) -> bool:
        return self.run_phase in FINISHED


class RunStore(LeasedTable):
    filename = "run-state.json"
    key = "runs"

    def _prune(self, rows: dict[str, dict[str, Any]], now: float) -> dict[str, dict[str, Any]]:
        return _pruned(rows, now)

    # -- reading ------------------------------------------------------------------------

    def all(self) -> list[RunRecord]:
        runs = self._rows()
        return sorted((RunRecord.from_dict(r) for r in runs.values()), key=lambda r: r.created_at)

    def get(self, run_id: str) -> RunRecord | None:
        raw = self._rows().get(run_id)
        return RunRecord.from_dict(raw) if raw else None

    def in_phase(self, *phases: RunPhase) -> list[RunRecord]:
        wanted = {p.value for p in phases}
        return [r for r in self.all() if r.phase in wanted]

    # -- writing ------------------------------------------------------------------------

    def _set(self, run_id: str, **values: Any) -> None:
        now = self._clock()

        def change(runs: dict[str, dict[str, Any]]) -> None:
            record = dict(runs.get(run_id) or {"run_id": run_id, "created_at": now})
            record.update(values)
            record["updated_at"] = now
            runs[run_id] = record

        self._change(change)

    def queued(self, run_id: str, conversation_id: str, goal: str) -> None:
        self._set(run_id, conversation_id=conversation_id, goal=goal, phase=RunPhase.QUEUED.value, owner=self.owner)

    def started(self, run_id: str, conversation_id: str, goal: str) -> None:
        self._set(run_id, conversation_id=conversation_id, goal=goal, phase=RunPhase.RUNNING.value, owner=self.owner)

    def set_phase(self, run_id: str, phase: RunPhase) -> None:
        self._set(run_id, phase=phase.value, owner=self.owner)

    def save_result(self, run_id: str, result: RunResult) -> None:
        """The answer is on disk before anyone is told of it (record first, then deliver)."""
        self._set(
            run_id,
            phase=RunPhase.FINISHING.value,
            status=result.status.value,
            answer=result.answer,
            subtype=result.subtype,
            answer_saved=True,
            owner=self.owner,
        )

    def stopping(self, run_id: str) -> None:
        """The user pressed stop: whatever happens next, there is nothing to tell them."""
        self._set(run_id, phase=RunPhase.FINISHING.value, status="stopped", owner=self.owner)

    def ended(self, run_id: str) -> None:
        self._set(run_id, phase=RunPhase.ENDED.value)

    def remove(self, run_id: str) -> None:
        self._change(lambda runs: runs.pop(run_id, None))

    def interrupt_unfinished(self) -> list[RunRecord]:
        """Mark every unfinished run whose owning process is gone as interrupted, in one
        locked step; returns the runs this call marked. Runs of live processes (this one
        included) are left alone."""
        now = self._clock()
        marked: list[RunRecord] = []
        alive: dict[str, bool] = {}

        def owner_alive(token: str) -> bool:
            if token not in alive:
                alive[token] = lease_alive(self.state_dir, token)
            return alive[token]

        def change(runs: dict[str, dict[str, Any]]) -> None:
            for run_id, raw in runs.items():
                record = RunRecord.from_dict(raw)
                if record.finished or owner_alive(record.owner):
                    continue
                raw = dict(raw, phase=RunPhase.INTERRUPTED.value, interrupted_at=now, updated_at=now)
                runs[run_id] = raw
                marked.append(RunRecord.from_dict(raw))

        self._change(change)
        return marked


def _pruned(runs: dict[str, dict[str, Any]], now: float) -> dict[str, dict[str, Any]]:
    """Finished runs are kept a week (at most 500); unfinished ones always."""
    finished = [
        (raw.get("updated_at", 0.0), run_id)
        for run_id, raw in runs.items()
        if raw.get("phase") in (RunPhase.ENDED.value, RunPhase.INTERRUPTED.value)
    ]
    finished.sort(reverse=True)
    drop = {run_id for i, (at, run_id) in enumerate(finished) if i >= KEEP_FINISHED_MAX or now - at > KEEP_FINISHED_S}
    return {k: v for k, v in runs.items() if k not in drop}
