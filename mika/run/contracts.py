"""What the task center needs from a run, and what a run hands back."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from mika.record.events import RunEvent
from mika.run.spec import RunSpec


class OutcomeStatus(enum.Enum):
    ANSWERED = "answered"  # a reply without tool calls: the answer
    NOT_DONE = "not_done"  # end_not_done: could not finish, says where it stuck
    STOPPED = "stopped"  # the user pressed stop
    FAILED = "failed"  # model failure, guard, internal fault
    BUDGET_EXHAUSTED = "budget_exhausted"
    APPROVAL_REFUSED = "approval_refused"
    DEVICE_UNAVAILABLE = "device_unavailable"


@dataclass(frozen=True)
class RunResult:
    run_id: str
    status: OutcomeStatus
    answer: str = ""  # the answer, or the user-facing reason when not answered
    subtype: str = ""  # end_not_done subtype, guard name, error kind
    steps: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    sources: tuple[dict[str, Any], ...] = ()
    groups_used: tuple[str, ...] = ()
    # Steers that arrived but never reached the model (handed to the next task unless stopped).
    unconsumed: tuple[str, ...] = ()
    record_dir: str = ""


EventSink = Callable[[RunEvent], None]
# Called by a run with its result before aftercare (outcome judge, closing tools, the
# record) starts; the task center sets it as the run's `on_result` attribute.
ResultSaver = Callable[[RunResult], None]


class TaskRunLike(Protocol):
    spec: RunSpec

    async def run(self) -> RunResult: ...

    def steer(self, text: str) -> bool:
        """Deliver a user message into the running loop; False once the inbox is closed."""
        ...

    def answer(self, question_id: str, text: str) -> bool: ...

    def confirm(self, question_id: str, allowed: bool) -> bool: ...

    def hand_back(self, question_id: str, done: bool) -> bool: ...

    def cancel(self) -> None:
        """Stop now: a control signal, not queued behind steers."""
        ...

    def subscribe(self, sink: EventSink) -> Callable[[], None]:
        """Receive every RunEvent of this run; returns an unsubscribe function."""
        ...

    # Optional: a run with an `on_result` attribute calls it with its result before its
    # aftercare, so the answer is saved and delivered before anything slow may crash.
    # A run without one is saved when `run()` returns.
