"""`ChildRuns`: a bounded child run started by a tool (`spawn_agent`, seed §6 子任务).

The tool lives in the general capability and knows no other capability; the assembly,
which knows them all, builds the child (web and sandbox only, read-only, unattended, at
most `CHILD_STEPS` steps) and puts its implementation into the parent run's services.
The core only knows this protocol, like `LinkReader`.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mika.tool.context import ToolContext

# Seed §6: a child run has at most 15 steps.
CHILD_STEPS = 15


@dataclass(frozen=True)
class ChildResult:
    run_id: str
    status: str  # the child's OutcomeStatus value: answered, not_done, stopped, failed, …
    answer: str
    steps: int = 0
    record_dir: str = ""


class ChildRuns(abc.ABC):
    # Found by this base class whatever the implementation's class is (services_by_type).
    service_protocol = True

    @abc.abstractmethod
    async def run_child(self, goal: str, context: str, parent: ToolContext) -> ChildResult:
        """Run one child for `goal` (with the parent's `context`, may be empty) to its end
        and return what it answered, unfenced and uncut: the tool fences and caps it.
        Cancelling the caller stops the child, whose run ends stopped and recorded."""
        ...
