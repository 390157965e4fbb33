"""What a run hands back when it ends, and how it ended."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


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


# Called by a run with its result before aftercare (outcome judge, closing tools, the
# record) starts; the task center sets it as the run's `on_result` attribute.
ResultSaver = Callable[[RunResult], None]
