"""`TriggerRuntime`: the loop `mika serve` runs (seed §10 TriggerRuntime).

Every `poll_s` it reads the store and, for each trigger whose window has come (or that
was asked to run now), claims the window — the store writes the next due time and the
window before anything happens — then dispatches it:

- reminder: delivered as written, through the Outbox (`reminder:<window>`), no model;
- task: an unattended run (RunOrigin.TRIGGER) submitted to the TaskCenter in the
  trigger's conversation, queued behind a run already going there; `when_idle` waits to
  claim until the conversation has no run going (in this process or another);
- condition: a read-only check run first (mika.trigger.condition), the task only on a
  false→true edge.

The result is the trigger's last result; the answer reaches the conversation and the
desktop through the TaskCenter's Outbox. Missed windows (Mika was not running) merge
into the latest, which says how many were missed.

`recover()` at start settles windows a dead process claimed: a reminder is delivered
again (the outbox id makes that at most once), a task that may have acted is told
"result unknown — Mika won't repeat it", once, in its conversation.

The clock and the pause between polls are injected, so tests drive it without waiting.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from mika.run.conversations import ConversationStore
from mika.run.outbox import Delivery, Outbox
from mika.run.phase import RunPhase
from mika.run.run_store import RunStore
from mika.run.task_center import TaskCenter
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance
from mika.trigger.condition import CHECK_CAPABILITIES, ConditionOutcome, check_conversation_id, check_goal, edge, judge
from mika.trigger.definition import Trigger, TriggerKind, TriggerStatus, window_id
from mika.trigger.store import DONE, TriggerStore
from mika.trigger.texts import t
from mika.trigger.timing import latest_window

log = logging.getLogger("mika.trigger")

SCHEDULED = RunProvenance(RunOrigin.TRIGGER, Attendance.UNATTENDED)
# A run in one of these phases, in any process, keeps a `when_idle` trigger waiting.
BUSY_PHASES = frozenset(
    p.value for p in (RunPhase.QUEUED, RunPhase.PREPARING, RunPhase.RUNNING, RunPhase.WAITING_USER, RunPhase.PAUSED)
)
RESULT_LINE = 200


@dataclass(frozen=True)
class WindowLog:
    trigger_id: str
    window: str
    kind: str
    outcome: str  # delivered | answered | not_done | … | check:true | check:unknown | unknown
    text: str = ""

    def line(self) -> str:
        short = " ".join(self.text.split())
        short = short if len(short) <= RESULT_LINE else short[: RESULT_LINE - 1] + "…"
        return f"{self.window} {self.kind} {self.outcome}" + (f": {short}" if short else "")


class TriggerRuntime:
    def __init__(
        self,
        store: TriggerStore,
        *,
        outbox: Outbox,
        center: TaskCenter | None,
        conversations: ConversationStore | None = None,
        clock: Callable[[], float] = time.time,
        pause: Callable[[float], Awaitable[None]] | None = None,
        poll_s: float = 1.0,
        on_window: Callable[[WindowLog], None] | None = None,
    ) -> None:
        self.store = store
        self.outbox = outbox
        self.center = center  # None: no model here; reminders only
        self.conversations = conversations or ConversationStore(store.state_dir)
        self.runs = RunStore(store.state_dir)
        self._clock = clock
        self._pause = pause
        self.poll_s = poll_s
        self._on_window = on_window or (lambda w: log.info("%s", w.line()))
        self._busy: dict[str, asyncio.Task[None]] = {}  # by trigger id: one window at a time
        self._stopping = False
        self._told_no_model = False

    # -- the loop -----------------------------------------------------------------------

    async def loop(self, stop: asyncio.Event) -> None:
        """Until `stop` is set: poll, claim, dispatch. Then no new window is taken, and the
        runs under way are stopped cleanly through the TaskCenter (their step finishes).
        Call `recover()` first."""
        while not stop.is_set():
            self.tick()
            await self._wait(stop)
        await self.shutdown()

    async def _wait(self, stop: asyncio.Event) -> None:
        if self._pause is not None:
            await self._pause(self.poll_s)
            return
        try:
            await asyncio.wait_for(stop.wait(), self.poll_s)
        except TimeoutError:
            pass

    async def shutdown(self) -> None:
        self._stopping = True
        if self.center is not None:
            for cid in {s.conversation_id for s in self.center.state().running}:
                self.center.stop(cid)
        if self._busy:
            await asyncio.gather(*self._busy.values(), return_exceptions=True)

    async def idle(self) -> None:
        """Until every dispatched window has finished (tests)."""
        while self._busy:
            await asyncio.gather(*list(self._busy.values()), return_exceptions=True)

    def now(self) -> datetime:
        return datetime.fromtimestamp(self._clock(), UTC)

    def tick(self) -> list[str]:
        """One pass: claim and dispatch what has come. Returns the windows claimed."""
        if self._stopping:
            return []
        now = self.now()
        requested = set(self.store.run_requests())
        claimed: list[str] = []
        for status in self.store.list():
            trigger = status.trigger
            if trigger.id in self._busy:
                continue
            if trigger.kind is not TriggerKind.REMINDER and self.center is None:
                if not self._told_no_model:
                    self._told_no_model = True
                    log.warning("no model: scheduled tasks wait until `mika serve` has one")
                continue
            if trigger.when_idle and trigger.kind is not TriggerKind.REMINDER and self.busy(trigger.conversation_id):
                continue
            if trigger.id in requested:
                wid = window_id(trigger.id, now)
                if self.store.claim(trigger.id, wid, due=now, following=None, manual=True):
                    claimed.append(wid)
                    self._start(trigger, wid, 0)
                continue
            if trigger.paused or status.next_due is None:
                continue
            window = latest_window(trigger.timing, status.next_due, now)
            if window is None:
                continue
            wid = window_id(trigger.id, window.due)
            if self.store.claim(trigger.id, wid, due=window.due, following=window.following, missed=window.missed):
                claimed.append(wid)
                self._start(trigger, wid, window.missed)
        return claimed

    def busy(self, conversation_id: str) -> bool:
        if self.center is not None and self.center.running_in(conversation_id):
            return True
        return any(r.conversation_id == conversation_id and r.phase in BUSY_PHASES for r in self.runs.all())

    def _start(self, trigger: Trigger, wid: str, missed: int) -> None:
        task = asyncio.get_running_loop().create_task(self._dispatch(trigger, wid, missed), name=f"window {wid}")
        self._busy[trigger.id] = task
        tid = trigger.id

        def done(_: asyncio.Task[None]) -> None:
            self._busy.pop(tid, None)

        task.add_done_callback(done)

    # -- one window -----------------------------------------------------------------------

    async def _dispatch(self, trigger: Trigger, wid: str, missed: int) -> None:
        try:
            if trigger.kind is TriggerKind.REMINDER:
                entry = self._remind(trigger, wid, missed)
            elif trigger.kind is TriggerKind.CONDITION:
                entry = await self._check_then_act(trigger, wid, missed)
            else:
                entry = await self._act(trigger, wid, missed)
        except Exception as exc:  # one broken window never stops the loop
            log.exception("window %s failed", wid)
            self.store.finish(trigger.id, wid, f"failed: {exc}")
            entry = WindowLog(trigger.id, wid, trigger.kind.value, "failed", str(exc))
        self._on_window(entry)

    def _remind(self, trigger: Trigger, wid: str, missed: int, *, recovered: bool = False) -> WindowLog:
        text = t("reminder", text=trigger.goal) + (" " + t("missed", n=missed) if missed else "")
        state = self.outbox.deliver(
            Delivery(
                id=f"reminder:{wid}",
                text=text,
                conversation_id=trigger.conversation_id,
                kind="reminder",
                recovered=recovered,
            )
        )
        self.store.finish(trigger.id, wid, text)
        return WindowLog(trigger.id, wid, "reminder", state.value, text)

    async def _act(self, trigger: Trigger, wid: str, missed: int) -> WindowLog:
        assert self.center is not None
        goal = trigger.goal + ("\n\n" + t("missed", n=missed) if missed else "")
        sub = self.center.submit(trigger.conversation_id, goal, provenance=SCHEDULED, scheduled=True)
        self.store.note(trigger.id, wid, phase="act", run_id=sub.run_id)
        result = await self.center.wait_run(sub.run_id)
        text = result.answer or result.status.value
        self.store.finish(trigger.id, wid, text)
        return WindowLog(trigger.id, wid, trigger.kind.value, result.status.value, text)

    async def _check_then_act(self, trigger: Trigger, wid: str, missed: int) -> WindowLog:
        assert self.center is not None
        checks = check_conversation_id(trigger.id)
        sub = self.center.submit(
            checks,
            check_goal(trigger.condition),
            provenance=SCHEDULED,
            scheduled=True,
            read_only=True,
            capabilities=CHECK_CAPABILITIES,
        )
        self.store.note(trigger.id, wid, phase="check", check_run=sub.run_id)
        result = await self.center.wait_run(sub.run_id)
        outcome = judge(result) if not self._stopping else ConditionOutcome.UNKNOWN
        last = self.store.get(trigger.id).last_value
        act, value = edge(last, outcome)
        if not act:
            text = f"condition {outcome.value}" + (
                f" ({_short(result.answer)})" if outcome is ConditionOutcome.UNKNOWN else ""
            )
            self.store.finish(trigger.id, wid, text, value=value)
            return WindowLog(trigger.id, wid, "condition", f"check:{outcome.value}", text)
        self.store.set_value(trigger.id, value)  # the new edge is on disk before acting
        logged = await self._act(trigger, wid, missed)
        return WindowLog(trigger.id, wid, "condition", f"fired:{logged.outcome}", logged.text)

    # -- after a crash --------------------------------------------------------------------

    def recover(self) -> list[str]:
        """Settle windows a dead process claimed and never finished. Call after
        `recover_at_start` (runs marked interrupted) and before `settle` (which would
        otherwise tell the interrupted run in its own, different words)."""
        settled = []
        for status, wid, entry in self.store.orphans():
            trigger = status.trigger
            if trigger.kind is TriggerKind.REMINDER:
                self._remind(trigger, wid, int(entry.get("missed", 0)), recovered=True)
                settled.append(wid)
                continue
            if trigger.kind is TriggerKind.CONDITION and entry.get("phase") != "act":
                # Only a look was under way (read-only): nothing to tell, nothing to repeat.
                self.store.settle_orphan(trigger.id, wid, "condition unknown (check interrupted)")
                settled.append(wid)
                continue
            self._settle_task(status, wid, str(entry.get("run_id", "")))
            settled.append(wid)
        return settled

    def _settle_task(self, status: TriggerStatus, wid: str, run_id: str) -> None:
        trigger = status.trigger
        record = self.runs.get(run_id) if run_id else None
        if record is not None and record.answer_saved:
            # The run finished before the process died: its answer is known and recovery
            # delivers it once; the window is done with it.
            self.store.finish(trigger.id, wid, record.answer, state=DONE)
            return
        text = t("result_unknown", goal=_short(trigger.goal, 60))
        if not self.store.settle_orphan(trigger.id, wid, text):
            return  # another process settled it
        cid = trigger.conversation_id
        if record is not None:
            # Said in the run's own notice slot, so recovery doesn't also tell it "interrupted,
            # start it again" — Mika won't repeat it, and says so once.
            self.conversations.finish_turn(
                cid, run_id, outcome=OutcomeStatus.FAILED.value, subtype="interrupted", answer=text, only_if_open=True
            )
            delivery_id = f"interrupted:{run_id}"
        else:
            delivery_id = f"unknown:{wid}"
        self.outbox.deliver(
            Delivery(id=delivery_id, text=text, conversation_id=cid, run_id=run_id, kind="notice", level="warning")
        )
        if record is not None:
            self.runs.ended(run_id)


def _short(text: str, limit: int = RESULT_LINE) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
