"""The general tier (`more`): schedule_task, spawn_agent and history_read are offered as
one index line each until the model asks (issue 16), unless the task's words ask for
something later or repeatedly, when schedule_task is there from the first request.
Real TaskRuns with the real general capability and schedule store."""

from __future__ import annotations

from mika.assembly import RunEnvironment, capabilities_for
from mika.model.testing import FunctionModel, Reply
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec

PRESENT = RunProvenance(RunOrigin.UI, Attendance.PRESENT)


def names(request) -> list[str]:
    return [t.name for t in request.tools]


def _run(tmp_path, goal: str, replies: list, provenance=PRESENT) -> tuple[TaskRun, FunctionModel]:
    it = iter(replies)
    model = FunctionModel(lambda request: next(it))
    spec = RunSpec(goal=goal, provenance=provenance, conversation_id="c1")
    caps = capabilities_for(spec, RunEnvironment(state_dir=tmp_path))
    return TaskRun(spec, model, caps, RunOptions(pacing=False, state_dir=tmp_path)), model


async def test_schedule_task_is_behind_the_index_and_a_call_by_name_opens_it(tmp_path):
    run, model = _run(tmp_path, "What is on my list?", [Reply.call("schedule_task", op="list"), "Nothing scheduled."])
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED
    first, second = model.requests
    assert "schedule_task" not in names(first)
    index = next(t for t in first.tools if t.name == "more_tools")
    assert "\n- schedule_task: " in index.description
    # The index is the last tool: opening the tier changes nothing before it.
    assert names(first)[-1] == "more_tools"
    assert first.tools[:-1] == second.tools[: len(first.tools) - 1]
    assert "schedule_task" in names(second) and "more_tools" not in names(second)
    assert "op" in next(t for t in second.tools if t.name == "schedule_task").parameters["properties"]


async def test_a_task_that_asks_for_a_reminder_has_schedule_task_from_the_first_request(tmp_path):
    run, model = _run(tmp_path, "Remind me to water the plants every day at 8", ["Noted."])
    await run.run()
    first = model.requests[0]
    assert "schedule_task" in names(first) and "more_tools" not in names(first)


async def test_the_index_names_unknown_tools_and_opens_the_rest(tmp_path):
    replies = [Reply.call("more_tools", tools=["schedule_task", "delete_everything"]), "Ok."]
    run, model = _run(tmp_path, "Plan something", replies)
    await run.run()
    said = [p.text for m in model.requests[1].messages for p in m.tool_results]
    assert "Opened: schedule_task." in said[-1]
    assert "Not among these tools: delete_everything." in said[-1]
    assert "schedule_task" in names(model.requests[1])


async def test_an_unattended_run_lists_only_what_it_has_and_a_run_with_none_has_no_index(tmp_path):
    run, model = _run(tmp_path, "Say hi", ["Hi."], RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    await run.run()
    index = next(t for t in model.requests[0].tools if t.name == "more_tools")
    listed = [line.split(":")[0][2:] for line in index.description.splitlines() if line.startswith("- ")]
    assert listed == ["history_read"]  # nobody there: no schedules, no children
    # Outside a conversation there is no history either: no tier tool, so no index.
    model = FunctionModel(lambda request: "Hi.")
    spec = RunSpec(goal="Say hi", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    await TaskRun(spec, model, capabilities_for(spec, RunEnvironment(state_dir=tmp_path)), RunOptions()).run()
    assert "more_tools" not in names(model.requests[0])
