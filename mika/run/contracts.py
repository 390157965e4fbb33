"""What the task center needs from a run (the result it hands back is `mika.runtypes.result`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from mika.record.events import RunEvent
from mika.runtypes.result import RunResult
from mika.runtypes.spec import RunSpec

EventSink = Callable[[RunEvent], None]


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
