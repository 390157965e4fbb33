"""After a restart (seed §2 进程重启后): the one place that settles interrupted runs.

`recover_at_start` is synchronous and quick: every unfinished run whose process is gone
is marked interrupted (in run-state.json and in its record's run.json, so `runs list`
and the TUI show it interrupted), and deliveries that were mid-send become Uncertain. The CLI and
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
from pathlib import Path

from mika.atomic_write import tidy_state_dir
from mika.run.borrowed import BorrowedLedger, RestoreReport
from mika.run.conversations import ConversationStore
from mika.run.outbox import Channel, Delivery, DeliveryState, Outbox, as_channel
from mika.run.phase import RunPhase
from mika.run.run_records import mark_interrupted_records
from mika.run.run_store import RunRecord, RunStore
from mika.run.state_lock import process_lease
from mika.run.ui_text import t

Deliver = Channel | Callable[[Delivery], None]


@dataclass(frozen=True)
class RecoveryReport:
    state_dir: str
    interrupted: tuple[str, ...] = ()  # run ids this start marked interrupted
    uncertain: tuple[str, ...] = ()  # delivery ids found mid-send


@dataclass(frozen=True)
class SettleReport:
    delivered: tuple[str, ...] = ()  # recovered answers sent now
    told: tuple[str, ...] = ()  # notices sent now (interrupted / uncertain)
    ended: tuple[str, ...] = ()  # runs whose answer is known delivered, now ended
    skipped: tuple[str, ...] = ()  # already told, or another process is on it
    borrowed: RestoreReport = field(default_factory=RestoreReport)


def recover_at_start(state_dir: Path | str, deliver: Deliver | None = None) -> RecoveryReport:
    """Mark what a dead process left unfinished; returns at once. `deliver` is accepted
    so callers can pass the same channel to `settle`; nothing is sent here."""
    del deliver
    root = Path(state_dir)
    tidy_state_dir(root)
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
    delivered: list[str] = []
    told: list[str] = []
    ended: list[str] = []
    skipped: list[str] = []
    for run in runs.in_phase(RunPhase.INTERRUPTED):
        what = _settle_run(run, outbox, runs, conversations, lang)
        {"delivered": delivered, "told": told, "ended": ended, "skipped": skipped}[what].append(run.run_id)
    restore = await (borrowed or BorrowedLedger(root, lease=lease)).restore_orphans()
    return SettleReport(tuple(delivered), tuple(told), tuple(ended), tuple(skipped), restore)


def _settle_run(
    run: RunRecord, outbox: Outbox, runs: RunStore, conversations: ConversationStore, lang: str | None
) -> str:
    answer_id = f"answer:{run.run_id}"
    notice_ids = (f"interrupted:{run.run_id}", f"uncertain:{answer_id}", f"failed:{answer_id}")
    if outbox.has_any(*notice_ids):
        return "skipped"
    cid = run.conversation_id
    goal = _short(run.goal)

    if run.status == "stopped":
        # The user pressed stop and saw it stop; there is nothing to tell.
        if cid:
            _close_turn(conversations, run, outcome="stopped", answer=run.answer or t("stopped", lang))
        runs.ended(run.run_id)
        return "ended"

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
        return "told" if state is DeliveryState.DELIVERED else "skipped"

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
            return "delivered"
        return "skipped"  # failed now: the next start sends it as failed:<id>
    if entry.state is DeliveryState.DELIVERED:
        runs.ended(run.run_id)
        return "ended"
    if entry.state is DeliveryState.UNCERTAIN:
        outbox.deliver(
            Delivery(
                id=notice_ids[1],
                text=t("uncertain_notice", lang, goal=goal),
                conversation_id=cid,
                run_id=run.run_id,
                kind="notice",
                level="warning",
            )
        )
        return "told"
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
        return "delivered" if state is DeliveryState.DELIVERED else "skipped"
    return "skipped"  # Pending / Attempting by a live process: it is being sent right now


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


def _short(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
