"""`TaskCenter`: starts, queues and finishes runs (seed §2 任务中心, §8).

- One run per conversation. A message to a conversation whose run is going is a
  steer into that run; if the run's inbox already closed it becomes the next task.
- Runs of different conversations go in parallel up to `limit`; beyond it a FIFO
  queue that skips conversations that already have a run (so a scheduled task for a
  busy conversation waits inside that conversation).
- When a run has its result, before its aftercare (outcome judge, closing tools, the
  record) starts: the result is saved (RunStore), written into the turn and delivered
  (Outbox) — the run calls `on_result` for this. When the run is over it is ended and
  titled. A crash in aftercare leaves a saved, delivered answer, never "interrupted".
  Steers the run never consumed become the conversation's next task, unless the user
  pressed stop.
- Stop marks the turn stopped at once; a stop summary, if a summarizer is given, is
  written into that turn later, off the path of whatever runs next.

Every call is made on the event loop that runs the center (the TUI's, or headless
`asyncio.run`). A queued task is on disk (run-state.json and a "queued" turn), so a
crash loses no message: recovery tells the user it was interrupted.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from mika.record.events import RunEvent
from mika.run.contracts import TaskRunLike
from mika.run.conversations import ConversationStore, check_id
from mika.run.outbox import Delivery, Outbox
from mika.run.resources import MAX_PARALLEL, ResourceScheduler, RunApps, parallel_limit
from mika.run.run_store import RunStore
from mika.run.ui_text import t
from mika.runtypes.result import OutcomeStatus, RunResult
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec, new_run_id

log = logging.getLogger("mika.run")

RunFactory = Callable[[RunSpec], TaskRunLike]
StopSummarizer = Callable[[RunSpec, RunResult], Awaitable[str]]
TitleMaker = Callable[[RunSpec, RunResult], Awaitable[str]]
ScheduleRemover = Callable[[str], "Awaitable[int] | int"]

DELETE_WAIT_S = 15.0
STOP_SUMMARY_TIMEOUT_S = 20.0
UI = RunProvenance(RunOrigin.UI, Attendance.PRESENT)


class Submitted(enum.Enum):
    STARTED = "started"
    STEERED = "steered"
    QUEUED = "queued"


@dataclass(frozen=True)
class Submission:
    outcome: Submitted
    run_id: str
    conversation_id: str
    position: int = 0  # place in the queue (1 = next), when queued


@dataclass(frozen=True)
class QueuedTask:
    run_id: str
    conversation_id: str
    goal: str
    provenance: RunProvenance
    kind: str = "message"  # message | scheduled | leftover
    capabilities: tuple[str, ...] = ()
    read_only: bool = False
    step_budget: int = 0


@dataclass(frozen=True)
class ActiveRun:
    run_id: str
    conversation_id: str
    goal: str
    stopping: bool


@dataclass(frozen=True)
class CenterState:
    running: tuple[ActiveRun, ...]
    queued: tuple[QueuedTask, ...]
    summarizing: frozenset[str]
    limit: int


@dataclass
class _Active:
    task: QueuedTask
    spec: RunSpec
    run: TaskRunLike | None = None
    driver: asyncio.Task[RunResult] | None = None
    stopped: bool = False
    steers: list[str] = field(default_factory=list)
    unsubscribe: Callable[[], None] | None = None
    done: asyncio.Future[RunResult] | None = None
    told: RunResult | None = None  # the result saved, in the turn and delivered (before aftercare)


class TaskCenter:
    def __init__(
        self,
        factory: RunFactory,
        *,
        state_dir: Path | str | None = None,
        conversations: ConversationStore | None = None,
        run_store: RunStore | None = None,
        outbox: Outbox | None = None,
        resources: ResourceScheduler | None = None,
        limit: int = 1,
        displays: int = MAX_PARALLEL,
        stop_summary: StopSummarizer | None = None,
        title_maker: TitleMaker | None = None,
    ) -> None:
        self._factory = factory
        self.conversations = conversations or ConversationStore(state_dir)
        root = self.conversations.state_dir
        self.run_store = run_store or RunStore(root)
        self.outbox = outbox or Outbox(root)
        self.resources = resources or ResourceScheduler()
        self._limit = parallel_limit(limit, displays)
        self._stop_summary = stop_summary
        self._title_maker = title_maker
        self._titling: dict[str, asyncio.Task[None]] = {}  # by conversation id
        self._queue: list[QueuedTask] = []
        self._active: dict[str, _Active] = {}  # by conversation id
        self._by_run: dict[str, _Active] = {}
        self._summarizing: dict[str, asyncio.Task[None]] = {}
        self._results: dict[str, asyncio.Future[RunResult]] = {}
        self._sinks: list[Callable[[RunEvent], None]] = []
        self._watchers: list[Callable[[CenterState], None]] = []
        self._idle = asyncio.Event()
        self._idle.set()

    # -- what it looks like ---------------------------------------------------------------

    @property
    def limit(self) -> int:
        return self._limit

    def set_limit(self, requested: int, displays: int = MAX_PARALLEL) -> int:
        """`displays`: how many runs the devices can give a display of their own."""
        self._limit = parallel_limit(requested, displays)
        self._fill()
        return self._limit

    def state(self) -> CenterState:
        return CenterState(
            running=tuple(ActiveRun(a.spec.id, cid, a.task.goal, a.stopped) for cid, a in self._active.items()),
            queued=tuple(self._queue),
            summarizing=frozenset(self._summarizing),
            limit=self._limit,
        )

    def running_in(self, conversation_id: str) -> str | None:
        active = self._active.get(conversation_id)
        return active.spec.id if active else None

    def subscribe(self, sink: Callable[[RunEvent], None]) -> Callable[[], None]:
        """Every RunEvent of every run this center starts."""
        self._sinks.append(sink)
        return lambda: self._sinks.remove(sink) if sink in self._sinks else None

    def watch(self, watcher: Callable[[CenterState], None]) -> Callable[[], None]:
        """Called with the new state after every change (running, queue, summaries)."""
        self._watchers.append(watcher)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def _changed(self) -> None:
        if self._active or self._queue or self._summarizing or self._titling:
            self._idle.clear()
        else:
            self._idle.set()
        state = self.state()
        for watcher in list(self._watchers):
            try:
                watcher(state)
            except Exception:
                log.exception("task center watcher failed")

    def _forward(self, event: RunEvent) -> None:
        for sink in list(self._sinks):
            try:
                sink(event)
            except Exception:
                log.exception("event subscriber failed")

    # -- incoming ---------------------------------------------------------------------------

    def submit(
        self,
        conversation_id: str,
        text: str,
        *,
        provenance: RunProvenance = UI,
        scheduled: bool = False,
        capabilities: tuple[str, ...] = (),
        read_only: bool = False,
        step_budget: int = 0,
    ) -> Submission:
        """A user message or a scheduled task for `conversation_id`. A malformed id
        raises `BadConversationId` before anything is written."""
        check_id(conversation_id)
        active = self._active.get(conversation_id)
        if active is not None and not scheduled and not active.stopped and active.run is not None:
            if active.run.steer(text):
                active.steers.append(text)
                self.conversations.add_steer(conversation_id, active.spec.id, text)
                return Submission(Submitted.STEERED, active.spec.id, conversation_id)
            # The run's inbox closed (it is wrapping up): this is the next thing to do.
            return self._enqueue(QueuedTask(new_run_id(), conversation_id, text, provenance, "leftover"), front=True)
        task = QueuedTask(
            new_run_id(),
            conversation_id,
            text,
            provenance,
            "scheduled" if scheduled else "message",
            tuple(capabilities),
            read_only,
            step_budget,
        )
        return self._enqueue(task)

    def run_for(self, conversation_id: str) -> TaskRunLike | None:
        active = self._active.get(conversation_id)
        return active.run if active else None

    def answer(self, conversation_id: str, question_id: str, text: str) -> bool:
        """The user's answer to a question the conversation's run asked; False if none waits."""
        run = self.run_for(conversation_id)
        return run.answer(question_id, text) if run is not None else False

    def confirm(self, conversation_id: str, question_id: str, allowed: bool) -> bool:
        run = self.run_for(conversation_id)
        return run.confirm(question_id, allowed) if run is not None else False

    def hand_back(self, conversation_id: str, question_id: str, done: bool) -> bool:
        run = self.run_for(conversation_id)
        return run.hand_back(question_id, done) if run is not None else False

    def _enqueue(self, task: QueuedTask, *, front: bool = False) -> Submission:
        # While a slot is free nothing eligible waits, so a task whose conversation is
        # idle starts now and its "queued" writes would only be overwritten.
        starts_now = len(self._active) < self._limit and task.conversation_id not in self._active
        if not starts_now:
            self.run_store.queued(task.run_id, task.conversation_id, task.goal)
            self.conversations.begin_turn(task.conversation_id, task.run_id, task.goal, outcome="queued")
        if front:
            self._queue.insert(0, task)
        else:
            self._queue.append(task)
        self._changed()
        started = self._fill()
        if task.run_id in started:
            return Submission(Submitted.STARTED, task.run_id, task.conversation_id)
        position = next((i + 1 for i, q in enumerate(self._queue) if q.run_id == task.run_id), 0)
        return Submission(Submitted.QUEUED, task.run_id, task.conversation_id, position)

    # -- starting -------------------------------------------------------------------------------

    def _fill(self) -> list[str]:
        started: list[str] = []
        while len(self._active) < self._limit:
            task = next((q for q in self._queue if q.conversation_id not in self._active), None)
            if task is None:
                break
            self._queue.remove(task)
            self._launch(task)
            started.append(task.run_id)
        if started:
            self._changed()
        return started

    def _launch(self, task: QueuedTask) -> None:
        loop = asyncio.get_running_loop()
        cid = task.conversation_id
        spec = RunSpec(
            goal=task.goal,
            provenance=task.provenance,
            id=task.run_id,
            conversation_id=cid,
            prior_turns=self.conversations.prior_turns(cid, before_run=task.run_id),
            capabilities=task.capabilities,
            read_only=task.read_only,
            step_budget=task.step_budget,
            preload_groups=self.conversations.last_groups(cid, before_run=task.run_id),
        )
        active = _Active(task=task, spec=spec, done=self._result_future(task.run_id))
        self._active[cid] = active
        self._by_run[spec.id] = active
        self.run_store.started(spec.id, cid, task.goal)
        self.conversations.begin_turn(cid, spec.id, task.goal, outcome="running")
        # Made here, not in the driver, so a message arriving right after the start
        # already finds the run to steer into.
        try:
            active.run = self._factory(spec)
            active.unsubscribe = active.run.subscribe(self._forward)
            if hasattr(active.run, "on_result"):  # it saves its result before its aftercare
                active.run.on_result = lambda result: self._save_and_tell(active, result)
            if hasattr(active.run, "app_claims"):  # its tools take apps from the shared scheduler
                active.run.app_claims = RunApps(self.resources, spec.id)
        except Exception as exc:
            log.exception("could not build run %s", spec.id)
            failed = RunResult(
                spec.id,
                OutcomeStatus.FAILED,
                answer=t("internal_fault", error=_one_line(exc)),
                subtype=type(exc).__name__,
            )
            active.driver = loop.create_task(self._fail(active, failed), name=f"run {spec.id}")
            return
        active.driver = loop.create_task(self._drive(active), name=f"run {spec.id}")

    def _result_future(self, run_id: str) -> asyncio.Future[RunResult]:
        future = self._results.get(run_id)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._results[run_id] = future
        return future

    async def _fail(self, active: _Active, result: RunResult) -> RunResult:
        self._finish(active, result)
        return result

    async def _drive(self, active: _Active) -> RunResult:
        spec = active.spec
        assert active.run is not None
        try:
            result = await active.run.run()
        except asyncio.CancelledError:
            result = RunResult(spec.id, OutcomeStatus.STOPPED, answer=t("stopped"))
            self._finish(active, result)
            raise
        except Exception as exc:
            log.exception("run %s crashed", spec.id)
            result = RunResult(
                spec.id,
                OutcomeStatus.FAILED,
                answer=t("internal_fault", error=_one_line(exc)),
                subtype=type(exc).__name__,
            )
        self._finish(active, result)
        return result

    # -- finishing --------------------------------------------------------------------------------

    def _final(self, active: _Active, result: RunResult) -> tuple[RunResult, bool]:
        stopped = active.stopped or result.status is OutcomeStatus.STOPPED
        status = OutcomeStatus.STOPPED if stopped else result.status
        answer = result.answer or (t("stopped") if stopped else "")
        final = RunResult(
            run_id=active.spec.id,
            status=status,
            answer=answer,
            subtype=result.subtype,
            steps=result.steps,
            usage=result.usage,
            sources=result.sources,
            groups_used=result.groups_used,
            unconsumed=result.unconsumed,
            record_dir=result.record_dir,
        )
        return final, stopped

    def _save_and_tell(self, active: _Active, result: RunResult) -> None:
        """Record first, then tell: run store, turn, outbox — each step on disk before
        the next, so recovery can finish from wherever a crash stops it."""
        if active.told is not None:
            return
        spec = active.spec
        final, stopped = self._final(active, result)
        active.told = final
        try:
            self.run_store.save_result(spec.id, final)  # 1. on disk before anyone hears of it
            consumed = _minus(active.steers, result.unconsumed)
            self.conversations.finish_turn(  # 2. into the conversation
                spec.conversation_id,
                spec.id,
                outcome=final.status.value,
                answer=final.answer,
                subtype=result.subtype,
                groups=result.groups_used,
                steers=tuple(consumed) if active.steers else None,
            )
            if not stopped:  # 3. told (the user who pressed stop already sees "stopped")
                self.outbox.deliver(
                    Delivery(
                        id=f"answer:{spec.id}",
                        text=final.answer,
                        conversation_id=spec.conversation_id,
                        run_id=spec.id,
                        kind="answer",
                        level="info" if final.status is OutcomeStatus.ANSWERED else "warning",
                    )
                )
        except Exception:
            # What is not on disk now, recovery finishes next start.
            log.exception("saving the result of run %s", spec.id)

    def _finish(self, active: _Active, result: RunResult) -> None:
        spec = active.spec
        cid = spec.conversation_id
        if self._by_run.pop(spec.id, None) is None:
            return  # finished already (cancelled while finishing)
        if self._active.get(cid) is active:
            del self._active[cid]
        if active.unsubscribe is not None:
            try:
                active.unsubscribe()
            except Exception:
                log.exception("unsubscribe failed")
        self.resources.release_run(spec.id)
        self._save_and_tell(active, result)  # a run without on_result, or one that failed to call it
        told = active.told or result
        # What was told stands (a stop pressed during aftercare doesn't unsay an answer).
        final = replace(told, unconsumed=result.unconsumed, record_dir=result.record_dir)
        stopped = final.status is OutcomeStatus.STOPPED
        try:
            self.run_store.ended(spec.id)  # 4. done
        except Exception:
            log.exception("finishing run %s", spec.id)
        self._title_later(spec, final)
        if stopped:
            self._summarize_later(spec, final)
        elif result.unconsumed and not active.stopped:  # a stop during aftercare drops them too
            leftover = "\n\n".join(result.unconsumed)
            self._enqueue_safely(QueuedTask(new_run_id(), cid, leftover, spec.provenance, "leftover"))
        if active.done is not None and not active.done.done():
            active.done.set_result(final)
        self._fill()
        self._changed()

    def _enqueue_safely(self, task: QueuedTask) -> None:
        try:
            self.run_store.queued(task.run_id, task.conversation_id, task.goal)
            self.conversations.begin_turn(task.conversation_id, task.run_id, task.goal, outcome="queued")
        except Exception:
            log.exception("queueing the leftover steers of %s", task.conversation_id)
        self._queue.insert(0, task)

    # -- stop ---------------------------------------------------------------------------------

    def stop(self, conversation_id: str) -> bool:
        """Stop the conversation's run now, or, if none runs, drop what it has queued.
        Steers not yet consumed are dropped with it."""
        active = self._active.get(conversation_id)
        if active is not None:
            if active.stopped:
                return True
            active.stopped = True
            run_id = active.spec.id
            if active.told is not None:
                # Its result is already told; stop only cuts its aftercare short.
                if active.run is not None:
                    active.run.cancel()
                self._changed()
                return True
            # The turn shows "stopped" at once; the summary comes later.
            self.conversations.finish_turn(
                conversation_id, run_id, outcome=OutcomeStatus.STOPPED.value, answer=t("stopped")
            )
            self.run_store.stopping(run_id)
            if active.run is not None:
                active.run.cancel()
            self._changed()
            return True
        dropped = [q for q in self._queue if q.conversation_id == conversation_id]
        for task in dropped:
            self._drop_queued(task, write_turn=True)
        if dropped:
            self._changed()
        return bool(dropped)

    def cancel_queued(self, run_id: str) -> bool:
        task = next((q for q in self._queue if q.run_id == run_id), None)
        if task is None:
            return False
        self._drop_queued(task, write_turn=True)
        self._changed()
        return True

    def _drop_queued(self, task: QueuedTask, *, write_turn: bool) -> None:
        self._queue.remove(task)
        if write_turn:
            self.conversations.finish_turn(
                task.conversation_id, task.run_id, outcome=OutcomeStatus.STOPPED.value, answer=t("stopped")
            )
        self.run_store.ended(task.run_id)

    def _summarize_later(self, spec: RunSpec, result: RunResult) -> None:
        if self._stop_summary is None:
            return
        summarize = self._stop_summary

        async def write() -> None:
            try:
                text = await asyncio.wait_for(summarize(spec, result), STOP_SUMMARY_TIMEOUT_S)
                if text and text.strip():
                    self.conversations.update_turn(spec.conversation_id, spec.id, answer=text.strip())
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("stop summary for %s could not be written", spec.id, exc_info=True)
            finally:
                self._summarizing.pop(spec.id, None)
                self._changed()

        self._summarizing[spec.id] = asyncio.get_running_loop().create_task(write(), name=f"stop summary {spec.id}")

    def _title_later(self, spec: RunSpec, result: RunResult) -> None:
        """After a conversation's first turn, name it in the background. `set_title`
        writes only while it has no title, so a rename in the meantime wins."""
        cid = spec.conversation_id
        if self._title_maker is None or cid in self._titling:
            return
        try:
            if self.conversations.get(cid).title_by:
                return
        except Exception:
            return  # deleted meanwhile
        make = self._title_maker

        async def write() -> None:
            try:
                title = await asyncio.wait_for(make(spec, result), STOP_SUMMARY_TIMEOUT_S)
                if title:
                    self.conversations.set_title(cid, title.strip().strip('"“”「」'))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("no title for conversation %s", cid, exc_info=True)
            finally:
                self._titling.pop(cid, None)
                self._changed()

        self._titling[cid] = asyncio.get_running_loop().create_task(write(), name=f"title {cid}")

    # -- delete -------------------------------------------------------------------------------

    async def delete_conversation(
        self,
        conversation_id: str,
        *,
        remove_schedules: ScheduleRemover | None = None,
        wait_s: float = DELETE_WAIT_S,
    ) -> bool:
        """Schedules first (nothing new may start), then its queue and run (waited for,
        bounded), then its workspace and files. Late writes find no file and are dropped."""
        if remove_schedules is not None:
            removed = remove_schedules(conversation_id)
            if asyncio.iscoroutine(removed) or isinstance(removed, asyncio.Future):
                await removed
        for task in [q for q in self._queue if q.conversation_id == conversation_id]:
            self._drop_queued(task, write_turn=False)
        active = self._active.get(conversation_id)
        if active is not None:
            self.stop(conversation_id)
            if active.done is not None:
                await asyncio.wait({active.done}, timeout=wait_s)
        for run_id, summary in list(self._summarizing.items()):
            run = self.run_store.get(run_id)
            if run is not None and run.conversation_id == conversation_id:
                summary.cancel()
        titling = self._titling.get(conversation_id)
        if titling is not None:
            titling.cancel()
        existed = self.conversations.delete(conversation_id)
        self._changed()
        return existed

    # -- waiting ----------------------------------------------------------------------------------

    async def wait_run(self, run_id: str) -> RunResult:
        return await asyncio.shield(self._result_future(run_id))

    async def wait_idle(self) -> None:
        """Until nothing runs, nothing is queued and no stop summary is being written."""
        while not self._idle.is_set():
            await self._idle.wait()

    async def aclose(self, wait_s: float = 10.0) -> None:
        """Stop everything (quitting): queued tasks stay on disk for recovery to report."""
        self._queue.clear()
        for cid in list(self._active):
            self.stop(cid)
        drivers = [a.driver for a in self._active.values() if a.driver is not None]
        summaries = [*self._summarizing.values(), *self._titling.values()]
        if drivers or summaries:
            await asyncio.wait([*drivers, *summaries], timeout=wait_s)


def _minus(items: list[str], remove: tuple[str, ...]) -> list[str]:
    left = Counter(remove)
    out = []
    for item in items:
        if left[item]:
            left[item] -= 1
            continue
        out.append(item)
    return out


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]
