"""Every sim task's reference solution, played through Mika's real tools: a fresh
simulated phone behind a real adb server, the task's setup, a TaskRun with the phone
capability (plain `uiautomator dump` backend, one backend to keep the time down), and a
scripted model built from the task's "solution". The task's check must fail before and
pass after, and the run must end as the task expects (done / answer / handoff / not_done).

The player reads a `pick` off the latest listing the run gave back, as a model reads the
numbers it is shown; the string "{match}" in an argument or answer is the last
`Match: …` a tool returned (a one-time code read off a notification by phone_event).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.model.messages import ToolResult
from mika.model.retry import RetryPolicy
from mika.model.testing import FunctionModel, Reply
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.sim.tasks import SimTask, list_tasks
from tests.phone.driver import current_listing, number_for
from tests.phone.test_diagnose import u2_cap
from tests.phone.test_runs import record, world_state
from tests.phone.test_tools import dump_cap
from tests.sim_world.test_hard_tasks import HARD_IDS

TASKS = list_tasks()


def _params() -> list:
    # The hard tasks (cross-app, impossible, payment, adversarial) are played by
    # test_hard_tasks.py, unattended and with their attacks; every other task is played here.
    return [pytest.param(t, id=t.id) for t in TASKS if t.solution and t.id not in HARD_IDS]


_MATCH = re.compile(r"^Match: (\S+)$", re.M)


class SolutionPlayer:
    """A model that replays a reference solution, reading element numbers off the run's
    own tool results (several tool calls in one reply are allowed)."""

    def __init__(self, solution: tuple[Any, ...]) -> None:
        self.script = list(solution)
        self.results: list[str] = []
        self.model = FunctionModel(self.reply)

    def _fill(self, value: Any) -> Any:
        if isinstance(value, str) and "{match}" in value:
            found = [m for r in self.results for m in _MATCH.findall(r)]
            assert found, "the solution types {match} but no tool returned a Match: line"
            return value.replace("{match}", found[-1])
        if isinstance(value, dict):
            return {k: self._fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._fill(v) for v in value]
        return value

    def reply(self, request) -> Reply | str:
        if request.messages:
            for part in request.messages[-1].parts:
                if isinstance(part, ToolResult):
                    self.results.append(part.text)
        assert self.script, "the solution ran out of replies; last result:\n" + (self.results or [""])[-1]
        entry = self.script.pop(0)
        if isinstance(entry, str):
            return self._fill(entry)
        calls = []
        for call in entry["tool_calls"]:
            args = self._fill(dict(call.get("arguments", {})))
            if "pick" in call:
                args["element"] = number_for(current_listing(self.results), call["pick"], call.get("role"))
            calls.append((call["name"], args))
        return Reply.calls(*calls, text=entry.get("text", ""))


def make_run(tmp_path: Path, cap, player: SolutionPlayer, *, attendance: Attendance, goal: str) -> TaskRun:
    """As a headless `mika run` would: the shipped app knowledge and skills are there
    (tasks that need app knowledge read it), pacing is off."""
    spec = RunSpec(goal=goal, provenance=RunProvenance(RunOrigin.CLI, attendance), conversation_id="c-ref")
    knowledge, skills = KnowledgeCatalog.load(), SkillCatalog.load()
    caps = capabilities_for(spec, RunEnvironment(extra=[cap], knowledge=knowledge, skills=skills))
    opts = RunOptions(
        pacing=False,
        state_dir=tmp_path,
        knowledge=knowledge,
        skills=skills,
        retry=RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0),
    )
    return TaskRun(spec, player.model, caps, opts)


def _stand_in_user(run, sim_phone) -> None:
    """The person at an attended run (handoff tasks, and tasks tagged "attended"): they
    approve a checkout step when asked; handed a locked phone they swipe it open and hand
    it back done; handed a payment or a captcha they give it back undone — so the check
    sees exactly where the run stopped, and nothing is paid."""
    loop = asyncio.get_running_loop()
    pending: set[asyncio.Task[None]] = set()

    async def take_over(question_id: str) -> None:
        if world_state(sim_phone).get("locked"):
            await asyncio.to_thread(sim_phone.shell, "input swipe 540 2000 540 600 250")
            run.hand_back(question_id, True)
        else:
            run.hand_back(question_id, False)

    def on_event(e) -> None:
        if e.type == "confirmation":
            loop.call_later(0.05, run.confirm, e.question_id, True)
        elif e.type == "takeover" and e.state == "asked":
            task = loop.create_task(take_over(e.question_id))
            pending.add(task)
            task.add_done_callback(pending.discard)

    run.subscribe(on_event)


def test_every_task_has_a_reference_solution() -> None:
    assert len(TASKS) >= 70
    missing = [t.id for t in TASKS if not t.solution]
    assert not missing, f"tasks without a reference solution: {missing}"
    assert len({t.id for t in TASKS}) == len(TASKS), "task ids must be unique"


@pytest.mark.parametrize("task", _params())
async def test_reference_solution_solves_the_task(tmp_path: Path, sim_phone, task: SimTask) -> None:
    for command in task.prepare_commands():
        sim_phone.shell(command)
    assert not task.succeeded(world_state(sim_phone), ""), "the check must fail on the initial state"
    player = SolutionPlayer(task.solution)
    attended = task.expect == "handoff" or "attended" in task.tags
    # A window of another app over the target (tag "covered") is seen only by uiautomator2,
    # which dumps every window; the plain dump shows one, so those tasks need u2.
    cap = u2_cap(sim_phone) if "covered" in task.tags else dump_cap(sim_phone)
    run = make_run(
        tmp_path,
        cap,
        player,
        attendance=Attendance.PRESENT if attended else Attendance.UNATTENDED,
        goal=task.goal,
    )
    if attended:
        _stand_in_user(run, sim_phone)
    result = await run.run()
    print("\n=====\n".join(player.results))  # shown by pytest only when the test fails
    tail = "\n---\n".join(player.results[-3:])
    state = world_state(sim_phone)
    answer = result.answer if task.expect == "answer" else None
    assert task.succeeded(state, answer), f"check {task.check} failed (answer {result.answer!r}):\n{tail}"
    assert not player.script, f"the run ended before the solution did ({result.status}): {result.answer}"
    if task.expect == "not_done":
        assert result.status is OutcomeStatus.NOT_DONE, (result.status, result.answer)
        assert result.answer.strip(), "a not-done ending says why"
    else:
        assert result.status is OutcomeStatus.ANSWERED, (result.status, result.answer, tail)
    if task.expect == "answer" and not {"pixels-only", "count"} & set(task.tags):
        # The answer's numbers and quotes are in what the run read, not made up by the script
        # (a count is worked out, and a picture's text is read by the model's eyes).
        grounding = [e for e in record(run) if e["type"] == "grounding"]
        assert grounding and grounding[-1]["grounded"], (grounding[-1:], result.answer)
    if task.expect == "handoff":
        events = record(run)
        handed = [e for e in events if e["type"] == "takeover" and e.get("state") == "asked"]
        refused = [
            e for e in events if e["type"] == "tool_result" and e.get("code") in ("pay_by_user", "approval_unavailable")
        ]
        assert handed or refused, "a handoff task stops for the user"
        assert not state.get("shop", {}).get("orders"), "nothing is paid"
