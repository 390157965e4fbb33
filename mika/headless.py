"""`mika --no-ui GOAL`: one task on the same core and task center as the TUI, for scripts.

stdout carries data only (the answer, one JSON object, or JSON lines); diagnostics go to
stderr. SIGINT stops the run cleanly: the record is closed and the exit code is 130.
The answer reaches stdout through the delivery ledger (Outbox), so a crash between
"saved" and "printed" is told once at the next start, never twice.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from mika.action.approval import BLOCKED
from mika.action.approval_summary import ScreenSummary
from mika.exit_codes import ExitCode
from mika.model.errors import ModelErrorKind
from mika.record.events import (
    Activity,
    ApprovalEvent,
    FileShared,
    MemoryRemembered,
    ModelFailed,
    Notice,
    RunEvent,
    ToolCalled,
    ToolFinished,
)
from mika.run.borrowed import BorrowedLedger
from mika.run.contracts import TaskRunLike
from mika.run.conversations import ConversationStore
from mika.run.outbox import Delivery, DeliveryFailed, Outbox
from mika.run.recovery import recover_at_start, settle
from mika.run.result_view import result_dict, with_not_paid
from mika.run.task_center import TaskCenter
from mika.run.ui_text import t
from mika.runtypes.result import OutcomeStatus, RunResult
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.terminal_text import for_terminal, json_for_terminal

FORMATS = ("text", "json", "stream-json")
HEADLESS = RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED)
# Started from a terminal with a person at it (mika.headless_person).
ATTENDED = RunProvenance(RunOrigin.CLI, Attendance.PRESENT)

# Every provider failure exits 4, including kinds added later.
_MODEL_KINDS = {kind.value for kind in ModelErrorKind}


@dataclass
class HeadlessOutcome:
    result: RunResult
    exit_code: ExitCode


def exit_code_for(result: RunResult, approval_blocked: bool, interrupted: bool) -> ExitCode:
    """The process's exit code. A payment step that was refused or could not be approved
    makes it 5 whatever the run ended with — a model that says "done" afterwards did
    not pay (only a stop or a lost device say more about what happened)."""
    status = result.status
    if status is OutcomeStatus.STOPPED:
        return ExitCode.INTERRUPTED if interrupted else ExitCode.NOT_DONE
    if status is OutcomeStatus.DEVICE_UNAVAILABLE:
        return ExitCode.DEVICE
    if status is OutcomeStatus.APPROVAL_REFUSED or approval_blocked:
        return ExitCode.APPROVAL
    if status is OutcomeStatus.ANSWERED:
        return ExitCode.DONE
    if status is OutcomeStatus.BUDGET_EXHAUSTED:
        return ExitCode.BUDGET
    if status is OutcomeStatus.FAILED and result.subtype in _MODEL_KINDS:
        return ExitCode.MODEL
    return ExitCode.NOT_DONE


class _Printer:
    """Events → stdout (stream-json) or progress lines on stderr (text, json)."""

    def __init__(self, fmt: str, out: IO[str], err: IO[str], run_ids: set[str]) -> None:
        self.fmt, self.out, self.err = fmt, out, err
        self.run_ids = run_ids
        self.approval_blocked = False  # exit 5: a payment step or a risky setting held back
        self.payment_blocked = False  # the answer then says nothing was paid

    def __call__(self, event: RunEvent) -> None:
        if event.run_id not in self.run_ids:
            return
        if isinstance(event, ApprovalEvent) and event.decision in BLOCKED:
            self.approval_blocked = True
            self.payment_blocked = self.payment_blocked or event.reason != "setting"
        if self.fmt == "stream-json":
            self.out.write(json_for_terminal(event.to_dict()) + "\n")
            self.out.flush()
            return
        line = _progress_line(event)
        if line:
            self.err.write(for_terminal(line) + "\n")
            self.err.flush()


def _progress_line(event: RunEvent) -> str:
    if isinstance(event, ToolCalled):
        args = json.dumps(event.arguments, ensure_ascii=False)
        return f"· {event.name} {args if len(args) < 120 else args[:117] + '...'}"
    if isinstance(event, ApprovalEvent) and event.decision in BLOCKED and event.reason == "setting":
        return f"  setting change {event.decision}: {event.what}"
    if isinstance(event, ApprovalEvent) and event.decision in BLOCKED:
        # What the screen showed at the held-back step, not the model's description.
        shown = ScreenSummary(item=event.item, amount=event.amount, app=event.app, button=event.button).line()
        return f"  payment step {event.decision}: {shown}"
    if isinstance(event, ToolFinished) and not event.ok:
        return f"  ! {event.code}: {event.text[:200]}"
    if isinstance(event, ModelFailed):
        return f"  model: {event.message}" + (f" (retrying in {event.retry_in_s:.0f}s)" if event.will_retry else "")
    if isinstance(event, (Activity, Notice)):
        return f"  {event.text}"
    if isinstance(event, FileShared):
        return "  " + t("file_shared", name=event.name, size=event.size, path=event.path)
    if isinstance(event, MemoryRemembered):
        return "\n".join(
            "  " + t("memory_pending" if i.get("status") == "pending" else "memory_remembered", **i)
            for i in event.items
        )
    return ""


class _StdoutChannel:
    """Headless delivery: this run's answer is the data on stdout; anything else
    (a recovered answer from an interrupted run, notices) is a line on stderr."""

    name = "stdout"

    def __init__(self, fmt: str, out: IO[str], err: IO[str]) -> None:
        self.fmt, self.out, self.err = fmt, out, err
        self.current: str = ""
        # Set when this run refused a payment step: the answer then says it was not paid.
        self.not_paid: Callable[[], bool] = lambda: False

    def send(self, delivery: Delivery) -> None:
        if delivery.run_id == self.current and delivery.kind == "answer" and not delivery.recovered:
            if self.fmt == "text":
                text = with_not_paid(delivery.text) if self.not_paid() else delivery.text
                if delivery.level == "info":
                    self.out.write(for_terminal(text) + "\n")
                    self.out.flush()
                else:
                    self.err.write(f"Not done: {for_terminal(text)}\n")
            if self.fmt == "json":
                # The result object is printed once the run is over, after its aftercare:
                # not shown yet, so a crash before then leaves it for recovery to send once.
                raise DeliveryFailed("printed with the result object when the run ends")
            return  # stream-json: the outcome event, printed right after this, carries it
        self.err.write(for_terminal(f"[{delivery.conversation_id or 'mika'}] {delivery.display_text}") + "\n")
        self.err.flush()


class UnknownConversation(LookupError):
    pass


async def run_headless(
    goal: str,
    factory: Callable[[RunSpec], TaskRunLike],
    state_dir: Path,
    *,
    conversation_id: str | None = None,
    read_only: bool = False,
    step_budget: int = 0,
    fmt: str = "text",
    out: IO[str] = sys.stdout,
    err: IO[str] = sys.stderr,
    borrowed: BorrowedLedger | None = None,
    make_center: Callable[[ConversationStore, Outbox], TaskCenter] | None = None,
    person: IO[str] | None = None,
) -> HeadlessOutcome:
    """`make_center` is how the assembly hands over its TaskCenter (titles, stop
    summaries); without it, a bare TaskCenter over `factory` (tests, embedding programs).
    `person`: where a person at the terminal answers (mika.headless_person); the run is
    then attended — its approvals, questions and hand-overs are asked on `err`."""
    recover_at_start(state_dir)
    conversations = ConversationStore(state_dir)
    if conversation_id:
        if not conversations.exists(conversation_id):
            raise UnknownConversation(conversation_id)
    else:
        conversation_id = conversations.create().id
    channel = _StdoutChannel(fmt, out, err)
    outbox = Outbox(state_dir, [channel])
    if make_center is not None:
        center = make_center(conversations, outbox)
    else:
        center = TaskCenter(factory, conversations=conversations, outbox=outbox)
    run_ids: set[str] = set()
    printer = _Printer(fmt, out, err, run_ids)
    center.subscribe(printer)
    channel.not_paid = lambda: printer.payment_blocked
    provenance = HEADLESS
    if person is not None:
        from mika.headless_person import TerminalPerson

        provenance = ATTENDED
        center.subscribe(TerminalPerson(center, lambda: conversation_id or "", person, err))
    # What earlier, interrupted processes left unsaid is told once, on stderr.
    # `borrowed` knows how to give back what a crashed run borrowed (a phone's IME, clipboard).
    settling = asyncio.create_task(settle(state_dir, channel, borrowed=borrowed))

    interrupted = False
    loop = asyncio.get_running_loop()

    def on_sigint() -> None:
        nonlocal interrupted
        interrupted = True
        err.write("Stopping… (the record is being closed)\n")
        center.stop(conversation_id)

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
        installed = True
    except (NotImplementedError, RuntimeError, ValueError):
        installed = False
    try:
        submission = center.submit(
            conversation_id, goal, provenance=provenance, read_only=read_only, step_budget=step_budget
        )
        run_ids.add(submission.run_id)
        channel.current = submission.run_id
        result = await center.wait_run(submission.run_id)
        await settling
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)
        await center.aclose()
    code = exit_code_for(result, printer.approval_blocked, interrupted)
    if fmt != "text":
        out.write(json_for_terminal(result_dict(result, conversation_id, not_paid=printer.payment_blocked)) + "\n")
    elif result.status is OutcomeStatus.STOPPED:
        err.write(f"Stopped: {for_terminal(result.answer)}\n")
    out.flush()
    return HeadlessOutcome(result, code)
