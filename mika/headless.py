"""`mika --no-ui GOAL`: one task on the same core, printed for scripts.

stdout carries data only (the answer, one JSON object, or JSON lines); diagnostics go to
stderr. SIGINT stops the run cleanly: the record is closed and the exit code is 130.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from dataclasses import dataclass
from typing import IO, Callable, Sequence

from mika.exit_codes import ExitCode
from mika.model.base import Model
from mika.record.events import (
    Activity,
    ApprovalEvent,
    ModelFailed,
    Notice,
    RunEvent,
    ToolCalled,
    ToolFinished,
)
from mika.run.contracts import OutcomeStatus, RunResult
from mika.run.spec import RunSpec
from mika.run.task_run import RunOptions, TaskRun
from mika.tool.capability import Capability

FORMATS = ("text", "json", "stream-json")


@dataclass
class HeadlessOutcome:
    result: RunResult
    exit_code: ExitCode


def exit_code_for(result: RunResult, approval_blocked: bool, interrupted: bool) -> ExitCode:
    status = result.status
    if status is OutcomeStatus.ANSWERED:
        return ExitCode.DONE
    if status is OutcomeStatus.STOPPED:
        return ExitCode.INTERRUPTED if interrupted else ExitCode.NOT_DONE
    if status is OutcomeStatus.DEVICE_UNAVAILABLE:
        return ExitCode.DEVICE
    if status is OutcomeStatus.BUDGET_EXHAUSTED:
        return ExitCode.BUDGET
    if status is OutcomeStatus.APPROVAL_REFUSED or approval_blocked:
        return ExitCode.APPROVAL
    if status is OutcomeStatus.FAILED and result.subtype in _MODEL_KINDS:
        return ExitCode.MODEL
    return ExitCode.NOT_DONE


_MODEL_KINDS = {
    "auth", "rate_limited", "overloaded", "server", "context_overflow", "model_not_found",
    "model_unavailable", "tools_unsupported", "bad_request", "network", "stream_incomplete",
}


class _Printer:
    def __init__(self, fmt: str, out: IO[str], err: IO[str]) -> None:
        self.fmt, self.out, self.err = fmt, out, err
        self.approval_blocked = False

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, ApprovalEvent) and event.decision in ("approval_unavailable", "refused", "pay_by_user"):
            self.approval_blocked = True
        if self.fmt == "stream-json":
            self.out.write(json.dumps(event.to_dict(), ensure_ascii=False) + "\n")
            self.out.flush()
            return
        # Progress for people goes to stderr.
        line = _progress_line(event)
        if line:
            self.err.write(line + "\n")
            self.err.flush()


def _progress_line(event: RunEvent) -> str:
    if isinstance(event, ToolCalled):
        args = json.dumps(event.arguments, ensure_ascii=False)
        return f"· {event.name} {args if len(args) < 120 else args[:117] + '...'}"
    if isinstance(event, ToolFinished) and not event.ok:
        return f"  ! {event.code}: {event.text[:200]}"
    if isinstance(event, ModelFailed):
        return f"  model: {event.message}" + (f" (retrying in {event.retry_in_s:.0f}s)" if event.will_retry else "")
    if isinstance(event, (Activity, Notice)):
        return f"  {event.text}"
    return ""


def result_dict(result: RunResult) -> dict:
    return {
        "type": "result",
        "run_id": result.run_id,
        "outcome": result.status.value,
        "subtype": result.subtype,
        "answer": result.answer,
        "steps": result.steps,
        "usage": {k: result.usage.get(k, 0) for k in ("input", "output", "cached")},
        "sources": [{"id": s.get("id"), "title": s.get("title"), "place": s.get("place")} for s in result.sources],
        "record": result.record_dir,
    }


async def run_headless(
    spec: RunSpec,
    model: Model,
    capabilities: Sequence[Capability],
    options: RunOptions,
    *,
    fmt: str = "text",
    out: IO[str] = sys.stdout,
    err: IO[str] = sys.stderr,
    on_run: Callable[[TaskRun], None] | None = None,
) -> HeadlessOutcome:
    run = TaskRun(spec, model, capabilities, options)
    printer = _Printer(fmt, out, err)
    run.subscribe(printer)
    if on_run:
        on_run(run)
    interrupted = False
    loop = asyncio.get_running_loop()

    def on_sigint() -> None:
        nonlocal interrupted
        interrupted = True
        err.write("Stopping… (the record is being closed)\n")
        run.cancel("Interrupted (SIGINT).")

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
        installed = True
    except (NotImplementedError, RuntimeError, ValueError):
        installed = False
    try:
        result = await run.run()
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)
    code = exit_code_for(result, printer.approval_blocked, interrupted)
    if fmt == "text":
        if result.status is OutcomeStatus.ANSWERED:
            out.write(result.answer + "\n")
        else:
            err.write(f"Not done ({result.status.value}{': ' + result.subtype if result.subtype else ''}): {result.answer}\n")
    else:
        out.write(json.dumps(result_dict(result), ensure_ascii=False) + "\n")
    out.flush()
    return HeadlessOutcome(result, code)
