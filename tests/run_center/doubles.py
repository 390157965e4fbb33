"""A small honest TaskRunLike for task center tests.

It stands for `mika.run.task_run.TaskRun`, a part we own that another engineer is
building right now; end-to-end tests with the real one live in test_with_task_run.py.
It keeps the contract's rules: steers go into an inbox that closes when the run ends
(steer() then says False), the test decides when the loop "takes" steers, cancel is a
control signal that ends the run as stopped, and every event reaches subscribers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from mika.record.events import RunEvent, RunOutcome, RunStarted, UserInput
from mika.runtypes.result import OutcomeStatus, RunResult
from mika.runtypes.spec import RunSpec


class HonestRun:
    def __init__(self, spec: RunSpec) -> None:
        self.spec = spec
        self.pending: list[str] = []
        self.consumed: list[str] = []
        self.closed = False
        self.cancelled = False
        self.started = asyncio.Event()
        self._end: asyncio.Future[tuple[OutcomeStatus, str]] = asyncio.get_running_loop().create_future()
        self._sinks: list[Callable[[RunEvent], None]] = []

    # -- the contract ---------------------------------------------------------------

    async def run(self) -> RunResult:
        self._emit(
            RunStarted(
                run_id=self.spec.id,
                conversation_id=self.spec.conversation_id,
                goal=self.spec.goal,
                origin=self.spec.provenance.origin.value,
                attendance=self.spec.provenance.attendance.value,
            )
        )
        self.started.set()
        status, answer = await self._end
        self.closed = True  # the inbox closes with the run
        unconsumed = tuple(self.pending)
        self.pending = []
        self._emit(
            RunOutcome(
                run_id=self.spec.id, conversation_id=self.spec.conversation_id, status=status.value, answer=answer
            )
        )
        return RunResult(
            self.spec.id,
            status,
            answer=answer,
            unconsumed=unconsumed,
            groups_used=("phone",) if status is OutcomeStatus.ANSWERED else (),
        )

    def steer(self, text: str) -> bool:
        if self.closed:
            return False
        self.pending.append(text)
        self._emit(UserInput(run_id=self.spec.id, conversation_id=self.spec.conversation_id, kind="steer", text=text))
        return True

    def answer(self, question_id: str, text: str) -> bool:
        return False

    def confirm(self, question_id: str, allowed: bool) -> bool:
        return False

    def hand_back(self, question_id: str, done: bool) -> bool:
        return False

    def cancel(self) -> None:
        self.cancelled = True
        if not self._end.done():
            self._end.set_result((OutcomeStatus.STOPPED, ""))

    def subscribe(self, sink: Callable[[RunEvent], None]) -> Callable[[], None]:
        self._sinks.append(sink)
        return lambda: self._sinks.remove(sink)

    # -- what the test drives ----------------------------------------------------------

    def take_steers(self) -> list[str]:
        """The loop reads its inbox before a model call."""
        taken, self.pending = self.pending, []
        self.consumed.extend(taken)
        return taken

    def finish(self, answer: str, status: OutcomeStatus = OutcomeStatus.ANSWERED) -> None:
        if not self._end.done():
            self._end.set_result((status, answer))

    def _emit(self, event: RunEvent) -> None:
        for sink in list(self._sinks):
            sink(event)


class RunFactory:
    """Builds HonestRuns and remembers them by run id and in start order."""

    def __init__(self) -> None:
        self.runs: dict[str, HonestRun] = {}
        self.order: list[HonestRun] = []
        self.fail_next: Exception | None = None

    def __call__(self, spec: RunSpec) -> HonestRun:
        if self.fail_next is not None:
            exc, self.fail_next = self.fail_next, None
            raise exc
        run = HonestRun(spec)
        self.runs[spec.id] = run
        self.order.append(run)
        return run


async def settled(times: int = 5) -> None:
    """Let the loop run the tasks that are ready (no sleeping on wall time)."""
    for _ in range(times):
        await asyncio.sleep(0)
