"""When a finished run may be drafted into a personal skill (seed §11, `RunLearning`).

All must hold: learning is switched on; the run was answered; the outcome judge said
"done" (a skill from a run that only claimed success would teach the wrong route); it
acted enough to be worth a procedure; no takeover was skipped (the user would have done
a part the skill can't); and it was not replayed (a replay repeats a route, it teaches
nothing new). Nor is a run that followed a skill it read (`skill_read`): that skill
gets the outcome instead of a near-copy being drafted. A pure function over the run's events and result, so each edge is a test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mika.knowledge.learning.outcomes import skills_read, verdict_of
from mika.record.events import RunEvent, RunStarted, TakeoverEvent, ToolCalled, ToolFinished
from mika.runtypes.result import OutcomeStatus, RunResult

# Fewer acting calls than this is a task the model does from scratch as fast as it would
# read a skill (open an app, tap twice): a skill for it would only crowd the index.
MIN_ACTIONS = 5
REPLAY_ORIGIN = "replay"  # RunSpec origin and action Origin of a recorded route's replay
_SUB_STEP_ORIGINS = ("batch", "script", REPLAY_ORIGIN)  # calls a composite sends back through the executor
_SKIPPED_TAKEOVER = ("skipped", "cancelled")


@dataclass(frozen=True)
class DraftDecision:
    draft: bool
    reason: str  # why not (or "ok"), for the log line

    def __bool__(self) -> bool:
        return self.draft


def acting_calls(events: Sequence[RunEvent]) -> list[ToolCalled]:
    """The calls that changed something (risk not "read", not a control tool), each
    once: a composite (do_steps, phone_run) that sent its steps back through the
    executor counts as its steps, not as one more action."""
    calls: list[ToolCalled] = []
    open_calls: list[ToolCalled] = []
    containers: set[str] = set()
    for event in events:
        if isinstance(event, ToolCalled):
            if event.origin in _SUB_STEP_ORIGINS:
                parent = next((c for c in reversed(open_calls) if c.origin not in _SUB_STEP_ORIGINS), None)
                if parent is not None:
                    containers.add(parent.call_id)
            open_calls.append(event)
            calls.append(event)
        elif isinstance(event, ToolFinished):
            open_calls = [c for c in open_calls if c.call_id != event.call_id]
    return [c for c in calls if c.risk != "read" and not c.control and c.call_id not in containers]


def takeover_skipped(events: Sequence[RunEvent]) -> bool:
    for event in events:
        if isinstance(event, TakeoverEvent) and event.state in _SKIPPED_TAKEOVER:
            return True
        if isinstance(event, ToolFinished) and event.code == "takeover_skipped":
            return True
    return False


def replayed(events: Sequence[RunEvent]) -> bool:
    for event in events:
        if isinstance(event, RunStarted) and event.origin == REPLAY_ORIGIN:
            return True
        if isinstance(event, ToolCalled) and event.origin == REPLAY_ORIGIN:
            return True
    return False


def should_draft(enabled: bool, result: RunResult, events: Sequence[RunEvent]) -> DraftDecision:
    if not enabled:
        return DraftDecision(False, "learning skills is off ([learning] skills = false)")
    if result.status is not OutcomeStatus.ANSWERED:
        return DraftDecision(False, f"the run was not answered ({result.status.value})")
    verdict = verdict_of(events)
    if verdict != "done":
        return DraftDecision(False, f"the run was not verified done (verdict: {verdict or 'none'})")
    count = len(acting_calls(events))
    if count < MIN_ACTIONS:
        return DraftDecision(False, f"only {count} acting tool calls (at least {MIN_ACTIONS} make a skill)")
    if takeover_skipped(events):
        return DraftDecision(False, "a takeover was skipped")
    if replayed(events):
        return DraftDecision(False, "the run was a replay")
    if skills_read(events):
        # It followed a skill it read: that skill is what a draft would say again (its
        # outcome is recorded instead), and repeated tasks would pile up near-copies.
        return DraftDecision(False, "the run followed a skill it read")
    return DraftDecision(True, "ok")
