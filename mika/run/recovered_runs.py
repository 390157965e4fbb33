"""What `mika runs recover` says it did, run by run.

Recovery has two halves (mika.run.recovery): `recover_at_start` marks the runs of dead
processes interrupted, `settle` tells the user about every interrupted run once. A run
one start marked may be settled by a later one, so "marked by this recovery" and
"settled now" are two facts, said apart: each run is named (id and short goal) with what
this recovery did to it — marked interrupted after N steps, its saved answer delivered,
told you it was interrupted — or why it did nothing (already told earlier).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mika.atomic_write import read_json
from mika.record.recorder import find_run, read_events
from mika.record.shown_metrics import needs_events, shown_metrics
from mika.run.recovery import RecoveryReport, Settled, SettleReport, short_goal
from mika.run.run_store import RunStore
from mika.run.ui_text import t

GOAL_CHARS = 40


@dataclass(frozen=True)
class RecoveredRun:
    run_id: str
    goal: str  # already shortened
    marked: bool  # this recovery marked it interrupted
    steps: int | None  # as its record shows them; None: it left no record
    done: Settled | None  # what settling did; None when settling did not see it

    @property
    def settled_now(self) -> bool:
        """This recovery changed something: marked it, or sent or closed something."""
        return self.marked or (self.done is not None and self.done.bucket != "skipped")

    def line(self, lang: str | None = None) -> str:
        parts = []
        if self.marked:
            if self.steps is None:
                parts.append(t("recover_marked_unrecorded", lang))
            elif self.steps == 1:
                parts.append(t("recover_marked_1", lang))
            else:
                parts.append(t("recover_marked", lang, steps=self.steps))
        if self.done is not None:
            parts.append(t(f"recover_{self.done.value}", lang))
        return t("recover_run", lang, id=self.run_id, goal=self.goal, what=t("recover_then", lang).join(parts))

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.run_id,
            "goal": self.goal,
            "marked_interrupted": self.marked,
            "steps": self.steps,
            "done": self.done.value if self.done is not None else "",
        }


def recovered_runs(state_dir: Path | str, report: RecoveryReport, settled: SettleReport) -> list[RecoveredRun]:
    """The runs this recovery marked, then the others settling looked at, each once."""
    root = Path(state_dir)
    done = {r.run_id: r for r in settled.runs}
    order = list(report.interrupted) + [r.run_id for r in settled.runs if r.run_id not in report.interrupted]
    store = RunStore(root)
    out = []
    for run_id in order:
        seen = done.get(run_id)
        if seen is not None:
            goal = seen.goal
        else:
            record = store.get(run_id)
            goal = record.goal if record else ""
        out.append(
            RecoveredRun(
                run_id,
                short_goal(goal, GOAL_CHARS),
                run_id in report.interrupted,
                _steps(root, run_id),
                seen.what if seen is not None else None,
            )
        )
    return out


def _steps(root: Path, run_id: str) -> int | None:
    """The steps `mika runs list` shows for the run (recovery wrote them into run.json)."""
    run_dir = find_run(root, run_id)
    if run_dir is None:
        return None
    summary = read_json(run_dir / "run.json", {}) or {}
    if not isinstance(summary, dict):
        return None
    return int(shown_metrics(summary, read_events(run_dir) if needs_events(summary) else []).get("steps", 0))
