"""After a restart (seed §2 进程重启后): the one place that settles interrupted runs.

`recover_at_start` is synchronous and quick: the lease files of gone processes are swept,
every unfinished run whose process is gone is marked interrupted (in run-state.json and in
its record's run.json, so `runs list` and the TUI show it interrupted, with the steps and
time its events show), and deliveries that were mid-send become Uncertain. The CLI and
the TUI call it first thing. `settle` is the slower part, run in the background:

- a saved answer that was never delivered is delivered once, marked as recovered;
- an answer whose delivery is Uncertain is not re-sent; the user gets one line saying
  it may already have arrived (`uncertain:<id>`);
- an answer whose delivery Failed is sent again once (`failed:<id>`);
- a run with no answer gets a failed turn ("the task was interrupted; you can start it
  again") and one notice (`interrupted:<run>`);
- what runs borrowed (IME, clipboard, muted apps) is given back.

"Already told" is read from the delivery ledger, never from a flag of its own, so two
starts at once, or ten restarts, tell the user exactly once. A run is never resumed
from the middle: the screen it left can't be restored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from mika.atomic_write import tidy_state_dir
from mika.run.borrowed import BorrowedLedger, RestoreReport
from mika.run.conversations import ConversationStore
from mika.run.outbox import Channel, Delivery, DeliveryState, Outbox, as_channel
from mika.run.phase import RunPhase
from mika.run.run_records import mark_interrupted_records
from mika.run.run_store import RunRecord, RunStore
from mika.run.state_lock import process_lease, sweep_leases
from mika.run.ui_text import t

Deliver = Channel | Callable[[Delivery], None]


@dataclass(frozen=True)
class RecoveryReport:
    state_dir: str
    interrupted: tuple[str, ...] = ()  # run ids this start marked interrupted
    uncertain: tuple[str, ...] = ()  # delivery ids found mid-send


class Settled(StrEnum):
    """What settling did with one interrupted run; `bucket` is the SettleReport tuple it counts in."""

    ANSWER_DELIVERED = "answer_delivered"  # its saved answer, never sent, sent now
    ANSWER_RESENT = "answer_resent"  # its saved answer, known not delivered (Failed), sent again now
    TOLD_INTERRUPTED = "told_interrupted"  # no answer saved: the user told it was interrupted
    TOLD_UNCERTAIN = "told_uncertain"  # its answer was mid-send: the user told it may have arrived
    STOPPED = "stopped"  # the user stopped it: nothing to tell, closed
    ANSWER_WAS_DELIVERED = "answer_was_delivered"  # its answer had reached the user: closed
    ALREADY_TOLD = "already_told"  # an earlier start told the user; nothing sent again
    TOLD_EARLIER_UNSURE = "told_earlier_unsure"  # an earlier start's notice failed or may not have arrived
    NOT_SENT = "not_sent"  # telling failed now; the next start tries again
    BEING_SENT = "being_sent"  # a live process is delivering its answer right now

    @property
    def bucket(self) -> str:
        return _BUCKETS[self]


_BUCKETS = {
    Settled.ANSWER_DELIVERED: "delivered",
    Settled.ANSWER_RESENT: "delivered",
    Settled.TOLD_INTERRUPTED: "told",
    Settled.TOLD_UNCERTAIN: "told",
    Settled.STOPPED: "ended",
    Settled.ANSWER_WAS_DELIVERED: "ended",
    Settled.ALREADY_TOLD: "skipped",
    Settled.TOLD_EARLIER_UNSURE: "skipped",
    Settled.NOT_SENT: "skipped",
    Settled.BEING_SENT: "skipped",
}


@dataclass(frozen=True)
class SettledRun:
    run_id: str
    goal: str
    what: Settled

    @property
    def acted(self) -> bool:
        """Something was sent or closed now (a skipped run was left as it was)."""
        return self.what.bucket != "skipped"


@dataclass(frozen=True)
class SettleReport:
    delivered: tuple[str, ...] = ()  # recovered answers sent now
    told: tuple[str, ...] = ()  # notices sent now (interrupted / uncertain)
    ended: tuple[str, ...] = ()  # runs whose answer is known delivered, now ended
    skipped: tuple[str, ...] = ()  # already told, or another process is on it
    borrowed: RestoreReport = field(default_factory=RestoreReport)
    runs: tuple[SettledRun, ...] = ()  # every interrupted run looked at, in order, with what was done


def recover_at_start(state_dir: Path | str, deliver: Deliver | None = None) -> RecoveryReport:
    """Mark what a dead process left unfinished; returns at once. `deliver` is accepted
    so callers can pass the same channel to `settle`; nothing is sent here."""
    del deliver
    root = Path(state_dir)
    tidy_state_dir(root)
    sweep_leases(root)  # the lease files killed processes left (ours is taken after: never swept)
    lease = process_lease(root)  # our own runs (none yet, or live ones) are protected
    store = RunStore(root, lease=lease)
    interrupted = store.interrupt_unfinished()
    # All interrupted runs, not only this start's: a record left "running" by an older
    # version, or by a recovery killed before it got here, is put right too.
    mark_interrupted_records(root, store.in_phase(RunPhase.INTERRUPTED, RunPhase.ENDED))
    uncertain = Outbox(root, lease=lease).mark_orphans_uncertain()
    return RecoveryReport(str(root), tuple(r.run_id for r in interrupted), tuple(uncertain))


async def settle(
    state_dir: Path | str,
    deliver: Deliver | Sequence[Deliver],
    *,
    borrowed: BorrowedLedger | None = None,
    lang: str | None = None,
) -> SettleReport:
    """Tell the user about interrupted runs, once each, and give back what they borrowed."""
    root = Path(state_dir)
    lease = process_lease(root)
    channels = [as_channel(d) for d in deliver] if isinstance(deliver, Sequence) else [as_channel(deliver)]
    outbox = Outbox(root, channels, lease=lease)
    runs = RunStore(root, lease=lease)
    conversations = ConversationStore(root)

    outbox.mark_orphans_uncertain()  # settle may run without recover_at_start (tests, TUI)
    outbox.resend_pending()
    looked = [
        SettledRun(run.run_id, run.goal, _settle_run(run, outbox, runs, conversations, lang))
        for run in runs.in_phase(RunPhase.INTERRUPTED)
    ]

    def ids(bucket: str) -> tuple[str, ...]:
        return tuple(r.run_id for r in looked if r.what.bucket == bucket)

    restore = await (borrowed or BorrowedLedger(root, lease=lease)).restore_orphans()
    return SettleReport(ids("delivered"), ids("told"), ids("ended"), ids("skipped"), restore, tuple(looked))


def _settle_run(
    run: RunRecord, outbox: Outbox, runs: RunStore, conversations: ConversationStore, lang: str | None
) -> Settled:
    answer_id = f"answer:{run.run_id}"
    notice_ids = (f"interrupted:{run.run_id}", f"uncertain:{answer_id}", f"failed:{answer_id}")
    if outbox.has_any(*notice_ids):
        return _told_earlier(outbox, notice_ids)
    cid = run.conversation_id
    goal = short_goal(run.goal)

    if run.status == "stopped":
        # The user pressed stop and saw it stop; there is nothing to tell.
        if cid:
            _close_turn(conversations, run, outcome="stopped", answer=run.answer or t("stopped", lang))
        runs.ended(run.run_id)
        return Settled.STOPPED

    if not run.answer_saved:
        # Nothing to deliver: the turn becomes a failed one the user can start again.
        if cid:
            _close_turn(conversations, run, outcome="failed", subtype="interrupted", answer=t("interrupted_turn", lang))
        state = outbox.deliver(
            Delivery(
                id=notice_ids[0],
                text=t("interrupted_notice", lang, goal=goal),
                conversation_id=cid,
                run_id=run.run_id,
                kind="notice",
                level="warning",
            )
        )
        return Settled.TOLD_INTERRUPTED if state is DeliveryState.DELIVERED else Settled.NOT_SENT

    # The answer was saved before the process died: make sure the turn has it.
    if cid:
        _close_turn(
            conversations, run, outcome=run.status or "answered", answer=run.answer, subtype=run.subtype, recovered=True
        )
    entry = outbox.entry(answer_id)
    if entry is None:
        state = outbox.deliver(
            Delivery(
                id=answer_id,
                text=run.answer,
                conversation_id=cid,
                run_id=run.run_id,
                kind="answer",
                recovered=True,
            )
        )
        if state is DeliveryState.DELIVERED:
            runs.ended(run.run_id)
            return Settled.ANSWER_DELIVERED
        return Settled.NOT_SENT  # failed now: the next start sends it as failed:<id>
    if entry.state is DeliveryState.DELIVERED:
        runs.ended(run.run_id)
        return Settled.ANSWER_WAS_DELIVERED
    if entry.state is DeliveryState.UNCERTAIN:
        state = outbox.deliver(
            Delivery(
                id=notice_ids[1],
                text=t("uncertain_notice", lang, goal=goal),
                conversation_id=cid,
                run_id=run.run_id,
                kind="notice",
                level="warning",
            )
        )
        return Settled.TOLD_UNCERTAIN if state is DeliveryState.DELIVERED else Settled.NOT_SENT
    if entry.state is DeliveryState.FAILED:
        state = outbox.deliver(
            Delivery(
                id=notice_ids[2],
                text=run.answer,
                conversation_id=cid,
                run_id=run.run_id,
                kind="answer",
                recovered=True,
            )
        )
        if state is not DeliveryState.DELIVERED:
            return Settled.NOT_SENT
        runs.ended(run.run_id)  # known delivered now, as a first delivery above
        return Settled.ANSWER_RESENT
    return Settled.BEING_SENT  # Pending / Attempting by a live process: it is being sent right now


def _told_earlier(outbox: Outbox, notice_ids: tuple[str, ...]) -> Settled:
    """A notice for the run is in the ledger: an earlier start (or a live process) is on
    it. Said as its state is: told, still being sent, or not known to have arrived."""
    states = {e.state for e in map(outbox.entry, notice_ids) if e is not None}
    if DeliveryState.DELIVERED in states:
        return Settled.ALREADY_TOLD
    if states & {DeliveryState.PENDING, DeliveryState.ATTEMPTING}:
        return Settled.BEING_SENT
    return Settled.TOLD_EARLIER_UNSURE


def _close_turn(conversations: ConversationStore, run: RunRecord, **end: object) -> None:
    """End the run's turn unless it already has an outcome. A process killed between
    saving the run and writing its turn left no turn: it is written now, so the
    conversation shows what the user is told — but never into a conversation the user
    has deleted meanwhile."""
    cid = run.conversation_id
    if conversations.finish_turn(cid, run.run_id, only_if_open=True, **end):  # type: ignore[arg-type]
        return
    if conversations.exists(cid) and not any(x.run_id == run.run_id for x in conversations.get(cid).turns):
        conversations.begin_turn(cid, run.run_id, run.goal)
        conversations.finish_turn(cid, run.run_id, only_if_open=True, **end)  # type: ignore[arg-type]


def short_goal(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
