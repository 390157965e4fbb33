"""Run a list of tasks, each on a fresh simulated phone, N at a time, and score them.

One task run: its phone (`mika sim --port 0`, its own process and port) is attached to
the adb server and reset to the task's scenario (task.prepare_commands()); the run is
`mika run --device SERIAL --output-format stream-json` in its own process with its own
state folder (so its run record, memory and conversations are its own) and pacing off
(MIKA_RUN_PACE=fast: the simulated phone needs no waiting) and on the main screen
(MIKA_RUN_DISPLAY=main: the task's scenario is set up there, the shade exists only
there, and the phone is the evaluation's own, so a display of the run's own protects no
one); then `simctl state` is read
over adb and the run is scored (mika.eval.scoring).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mika.atomic_write import ensure_dir
from mika.eval.policy import NeedsPerson, NoSolution, model_for
from mika.eval.processes import (
    FEEDBACK_TYPES,
    Interrupted,
    PhoneError,
    TaskPhone,
    begin,
    run_headless_process,
    stop_everything,
    stopping,
)
from mika.eval.scoring import NOT_RUN, score
from mika.model.errors import ModelErrorKind
from mika.sim.tasks import SimTask

MODEL_KINDS = frozenset(kind.value for kind in ModelErrorKind)


@dataclass(frozen=True)
class Plan:
    tasks: list[SimTask]
    model: str
    report_dir: Path
    parallel: int = 1
    repeat: int = 1
    timeout: float = 300.0  # seconds per task run, phone start included
    max_steps: int | None = None
    config_path: str | None = None


class EvalInterrupted(Exception):
    """Ctrl+C: every child process was ended; `rows` are the task runs as far as they got."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        super().__init__("the evaluation was stopped")
        self.rows = rows


def run_dir_name(task: SimTask, repeat: int, repeats: int) -> str:
    return task.id if repeats == 1 else f"{task.id}.r{repeat}"


def run_plan(plan: Plan, progress: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """One row per task run, in the plan's order (task, then repeat)."""
    jobs = [(task, k) for task in plan.tasks for k in range(1, plan.repeat + 1)]
    begin()

    def one(job: tuple[SimTask, int]) -> dict[str, Any]:
        try:
            row = run_one(plan, *job)
        except Interrupted:
            row = _row(*job)
            row.update(category="interrupted", detail="the evaluation was stopped")
        except Exception as exc:  # a fault of the harness itself: told in the row, never a traceback
            row = _row(*job)
            row.update(category="crashed", detail=f"{type(exc).__name__}: {exc}")
        if stopping() and not row["passed"] and row["category"] not in NOT_RUN:
            row.update(category="interrupted", detail="the evaluation was stopped")
        if progress is not None:
            progress(row)
        return row

    pool = ThreadPoolExecutor(max_workers=max(1, plan.parallel))
    try:
        futures = [pool.submit(one, job) for job in jobs]
        return [f.result() for f in futures]
    except KeyboardInterrupt:
        stop_everything()  # the children run in their own sessions: Ctrl+C does not reach them
        # Each task still running ends at once now (its processes are gone) as interrupted.
        raise EvalInterrupted([f.result() for f in futures]) from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _row(task: SimTask, repeat: int) -> dict[str, Any]:
    return {
        "task": task.id,
        "repeat": repeat,
        "goal": task.goal,
        "expect": task.expect,
        "language": task.language,
        "difficulty": task.difficulty,
        "tags": list(task.tags),
        "passed": False,
        "category": "",
        "outcome": "",
        "subtype": "",
        "exit_code": None,
        "check_passed": None,
        "steps": 0,
        "tokens": {"input": 0, "output": 0, "cached": 0},
        "wall_s": 0.0,  # the whole task run: phone start, preparation, run, scoring
        "phone_s": 0.0,  # of which: starting, attaching and preparing the phone
        "run_s": 0.0,  # of which: the headless run's process
        "first_feedback_s": None,
        "first_feedback": "",
        "answer": "",
        "detail": "",
        "record": "",
        "run_dir": "",
    }


def run_one(plan: Plan, task: SimTask, repeat: int) -> dict[str, Any]:
    row = _row(task, repeat)
    work = ensure_dir(plan.report_dir / "runs" / run_dir_name(task, repeat, plan.repeat))
    row["run_dir"] = os.path.relpath(work, plan.report_dir)
    started = time.monotonic()
    try:
        model = model_for(plan.model, task, work)
    except NoSolution:
        row.update(category="no_solution", detail="the task has no reference solution")
        return row
    except NeedsPerson as exc:
        row.update(
            category="needs_person",
            detail=f"the reference solution calls {exc}, which only a run with a person present offers; "
            "mika eval's runs are unattended",
        )
        return row
    env = dict(os.environ)
    env.update(MIKA_RUN_PACE="fast", MIKA_RUN_DISPLAY="main", MIKA_STATE_DIR=str(work / "state"))
    phone: TaskPhone | None = None
    try:
        try:
            phone = TaskPhone(env, work / "sim.log", timeout=min(60.0, plan.timeout))
            for command in task.prepare_commands():
                phone.shell(command)
        except PhoneError as exc:
            row.update(category="device_error", detail=f"preparing the phone: {exc}")
            return row
        row["phone_s"] = round(time.monotonic() - started, 3)
        _headless(plan, task, row, phone, model, env, work, deadline=started + plan.timeout)
    finally:
        if phone is not None:
            phone.close()
        row["wall_s"] = round(time.monotonic() - started, 3)
    return row


def _headless(
    plan: Plan,
    task: SimTask,
    row: dict[str, Any],
    phone: TaskPhone,
    model: str,
    env: dict[str, str],
    work: Path,
    deadline: float,
) -> None:
    argv = ["--device", phone.serial, "--model", model]
    if plan.config_path:
        argv += ["--config", plan.config_path]
    argv += ["run", "--output-format", "stream-json"]
    if plan.max_steps:
        argv += ["--max-steps", str(plan.max_steps)]
    argv += ["--", task.goal]
    seen: dict[str, Any] = {}

    def on_event(event: dict[str, Any]) -> None:
        if event.get("type") == "run_started" and "start" not in seen:
            seen["start"] = float(event.get("at") or 0)
        elif event.get("type") in FEEDBACK_TYPES and "first" not in seen:
            seen["first"] = event

    began = time.monotonic()
    code, result, _events = run_headless_process(
        argv, env, max(1.0, deadline - time.monotonic()), work / "run.log", on_event
    )
    row["run_s"] = round(time.monotonic() - began, 3)
    first = seen.get("first")
    if first is not None:
        if "start" in seen:
            row["first_feedback_s"] = round(float(first.get("at") or 0) - seen["start"], 3)
        row["first_feedback"] = _feedback_text(first)
    row["exit_code"] = code
    if code is None:
        row.update(category="timeout", detail=f"the task took longer than {plan.timeout:g} s")
        return
    if result is None:
        row.update(category="config_error" if code == 2 else "crashed", detail=_tail(work / "run.log"))
        return
    usage = result.get("usage") or {}
    record = str(result.get("record") or "")
    row.update(
        outcome=str(result.get("outcome", "")),
        subtype=str(result.get("subtype", "")),
        steps=int(result.get("steps") or 0),
        tokens={k: int(usage.get(k) or 0) for k in ("input", "output", "cached")},
        answer=str(result.get("answer", ""))[:2000],
        record=os.path.relpath(record, plan.report_dir) if record else "",
    )
    try:
        state: dict[str, Any] | None = phone.state()
    except PhoneError as exc:
        state, row["detail"] = None, f"reading the phone's state: {exc}"
    s = score(task, result, state, MODEL_KINDS)
    row.update(passed=s.passed, category=s.category, check_passed=s.check_passed)
    if not s.passed and not row["detail"]:
        row["detail"] = row["answer"][:500]


def _feedback_text(event: dict[str, Any]) -> str:
    kind = event.get("type")
    if kind == "tool_call":
        return f"tool {event.get('name', '')}"
    if kind == "delta":
        return "answer text"
    return str(event.get("text") or kind)[:120]


def _tail(path: Path, size: int = 800) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-size:].strip()
