"""Recovery's side of the run records: a killed run's `run.json` says it was interrupted.

The recorder rewrites `runs/<time>-<id>/run.json` at a run's start ("running") and end
("ended"). A process killed in between leaves "running" forever, and `mika runs list`,
`runs show` and the TUI's runs screen read that file. Recovery marks such a record
from the run store (run-state.json), which knows the run is interrupted and whether it
saved an answer first:

- `state` becomes "interrupted", with `interrupted_at`;
- `outcome` is the saved outcome (the answer was delivered, only its aftercare was cut
  short) or "interrupted" when nothing was saved;
- `steps` and `metrics` are folded from the record's events.jsonl (the recorder writes
  them only at a run's end, so a killed run's list line said "0 steps 0.0s"), with
  `last_event_at`, the last moment the record saw the run alive: its time runs to there,
  not to the kill, which nothing recorded;

Only records still "running" whose run the store holds as interrupted — or as ended
by a process that is gone (a run cancelled before its recorder closed) — are touched:
a live process's run is never marked, and a record the recorder closed keeps its outcome.
A record an older Mika marked interrupted without metrics gets them on the next recovery.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from mika.atomic_write import read_json, write_json
from mika.record.metrics import RunMetrics
from mika.record.recorder import read_events, runs_root
from mika.run.phase import RunPhase
from mika.run.run_store import RunRecord
from mika.run.state_lock import lease_alive

STAMP_LEN = len("20260101-000000-")  # the folder is <YYYYmmdd-HHMMSS>-<run id>


def mark_interrupted_records(state_dir: Path | str, runs: list[RunRecord]) -> list[str]:
    """Mark the run.json of every interrupted (or orphaned ended) run in `runs` that still says "running",
    and give metrics to one marked before without them; returns the run ids whose record changed.
    Unreadable records are left alone."""
    interrupted = {r.run_id: r for r in runs if r.run_phase in (RunPhase.INTERRUPTED, RunPhase.ENDED)}
    root = runs_root(Path(state_dir))
    if not interrupted or not root.is_dir():
        return []
    marked = []
    for folder in root.iterdir():
        record = interrupted.get(folder.name[STAMP_LEN:])
        if record is None or not folder.is_dir():
            continue
        path = folder / "run.json"
        try:
            summary = read_json(path)
        except (OSError, ValueError):
            continue
        if not isinstance(summary, dict):
            continue
        if summary.get("state") == "interrupted" and not summary.get("metrics"):
            write_json(path, _with_metrics(summary, folder))
            marked.append(record.run_id)
            continue
        if summary.get("state") != "running":
            continue
        if record.run_phase is RunPhase.ENDED and lease_alive(state_dir, record.owner):
            continue  # ended by a live process that is closing its record right now
        saved = record.answer_saved and record.status
        summary.update(
            state="interrupted",
            outcome=record.status if saved else "interrupted",
            interrupted_at=record.interrupted_at or time.time(),
        )
        if saved:
            summary.update(answer=record.answer, subtype=record.subtype)
        write_json(path, _with_metrics(summary, folder))
        marked.append(record.run_id)
    return marked


def _with_metrics(summary: dict[str, Any], folder: Path) -> dict[str, Any]:
    """`summary` with the steps and metrics its events show, as the recorder's close would
    have written them; the metrics' outcome is the record's (the events of a killed run
    end without one)."""
    events = read_events(folder)
    metrics = RunMetrics.of(events).as_dict()
    metrics["outcome"] = summary.get("outcome", metrics["outcome"])
    summary.update(steps=metrics["steps"], metrics=metrics)
    if events:
        summary["last_event_at"] = events[-1].get("at", 0.0)
    return summary
