"""The numbers a run's record shows, the same in `mika runs list`, `runs show` and the
TUI's runs screens.

run.json holds a run's metrics once it ended (the recorder) or once recovery marked it
interrupted (mika.run.run_records); those are shown exactly. A record without them is a
run still going, or one a killed process left that no recovery has seen yet: its numbers
are folded from events.jsonl, and while it says "running" its time is the time since it
started — its last event may be a model call that is still out, and counting only to that
event would show a run that is plainly busy as if it had not moved for a while.
"""

from __future__ import annotations

import time
from typing import Any

from mika.record.metrics import RunMetrics


def shown_metrics(summary: dict[str, Any], events: list[dict[str, Any]], *, now: float | None = None) -> dict[str, Any]:
    """`summary` is the run's run.json, `events` its events.jsonl (read only when the
    summary lacks metrics; see `needs_events`). An empty dict: nothing to show."""
    held = summary.get("metrics")
    if held:
        return dict(held)
    running = summary.get("state") == "running"
    if not events and not running:
        return {}
    m = RunMetrics.of(events).as_dict()
    started = float(summary.get("started_at") or 0.0)
    if running and started:
        m["total_ms"] = int(max(0.0, (time.time() if now is None else now) - started) * 1000)
        # The time since the last event (a model call still out, a tool still running) is
        # not yet split into thinking / reading / acting: it is "other" until it is.
        m["other_ms"] = max(0, m["total_ms"] - m["thinking_ms"] - m["reading_ms"] - m["acting_ms"])
    return m


def needs_events(summary: dict[str, Any]) -> bool:
    """Whether `shown_metrics` needs the run's events (run.json holds no metrics)."""
    return not summary.get("metrics")
