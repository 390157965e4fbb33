"""schedule_task: offered only to runs a person started from a conversation; its ops work
on this conversation's schedules only; a real run (through the action entry) makes one."""

from __future__ import annotations

from pathlib import Path

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.general.schedule_tool import ScheduleTask
from mika.model.testing import FunctionModel, Reply
from mika.observe.evidence import EvidenceLedger
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.inbox import RunInbox
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.tool.context import ToolContext
from mika.tool.registry import ToolRegistry
from mika.trigger.definition import TriggerKind
from mika.trigger.store import TriggerStore

PRESENT = RunProvenance(RunOrigin.UI, Attendance.PRESENT)


def offered(spec: RunSpec, root: Path) -> list[str]:
    tools = [t for cap in capabilities_for(spec, RunEnvironment(state_dir=root)) for t in cap.tools()]
    return ToolRegistry.for_run(tools, spec).names()


@pytest.mark.parametrize(
    ("origin", "attendance", "conversation", "expected"),
    [
        (RunOrigin.UI, Attendance.PRESENT, "c1", True),
        (RunOrigin.CLI, Attendance.REACHABLE, "c1", True),
        (RunOrigin.UI, Attendance.PRESENT, "", False),  # not from a conversation
        (RunOrigin.TRIGGER, Attendance.UNATTENDED, "c1", False),  # a schedule doesn't make schedules
        (RunOrigin.TRIGGER, Attendance.REACHABLE, "c1", False),
        (RunOrigin.MCP, Attendance.REACHABLE, "c1", False),
        (RunOrigin.CHILD, Attendance.REACHABLE, "c1", False),
        (RunOrigin.CLI, Attendance.UNATTENDED, "c1", False),  # headless: nobody there to ask for it
    ],
)
def test_offered_only_to_runs_a_person_started_from_a_conversation(
    tmp_path, origin, attendance, conversation, expected
):
    spec = RunSpec(goal="x", provenance=RunProvenance(origin, attendance), conversation_id=conversation)
    assert ("schedule_task" in offered(spec, tmp_path)) is expected


def test_not_in_read_only_runs(tmp_path):
    spec = RunSpec(goal="x", provenance=PRESENT, conversation_id="c1", read_only=True)
    assert "schedule_task" not in offered(spec, tmp_path)


def ctx(cid: str = "c1") -> ToolContext:
    spec = RunSpec(goal="x", provenance=PRESENT, conversation_id=cid)
    return ToolContext(spec=spec, inbox=RunInbox(), emit=lambda e: None, evidence=EvidenceLedger())


async def test_every_op(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
    store = TriggerStore(tmp_path)
    tool = ScheduleTask(store)
    made = await tool.run(
        {"op": "create", "goal": "check the weather", "daily": "07:30", "zone": "Asia/Shanghai"}, ctx()
    )
    assert made.ok and "mika serve` is not running" in made.text
    tid = made.data["schedule"]["id"]
    (status,) = store.list()
    assert status.trigger.conversation_id == "c1" and status.trigger.kind is TriggerKind.TASK
    assert status.trigger.created_by.startswith("tool:")
    listed = await tool.run({"op": "list"}, ctx())
    assert tid in listed.text and "daily 07:30 Asia/Shanghai" in listed.text
    assert (await tool.run({"op": "pause", "id": tid}, ctx())).data["schedule"]["paused"] is True
    assert (await tool.run({"op": "resume", "id": tid}, ctx())).data["schedule"]["paused"] is False
    moved = await tool.run({"op": "reschedule", "id": tid, "every": "2h"}, ctx())
    assert moved.ok and store.get(tid).trigger.timing.every_s == 7200
    assert (await tool.run({"op": "run_now", "id": tid}, ctx())).ok and store.run_requests() == [tid]
    assert (await tool.run({"op": "delete", "id": tid}, ctx())).ok and store.list() == []
    reminder = await tool.run({"goal": "stand up", "kind": "reminder", "at": "+20m"}, ctx())
    assert reminder.ok and store.list()[0].trigger.kind is TriggerKind.REMINDER
    cond = await tool.run({"goal": "buy it", "every": "30m", "condition": "it is in stock"}, ctx())
    assert cond.ok and store.list()[1].trigger.kind is TriggerKind.CONDITION


async def test_bad_input_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
    tool = ScheduleTask(TriggerStore(tmp_path))
    bad = await tool.run({"goal": "x", "daily": "25:00"}, ctx())
    assert not bad.ok and bad.code == "bad_schedule" and "hour must be 0–23" in bad.text
    assert (await tool.run({"goal": "x"}, ctx())).code == "bad_schedule"  # no timing
    assert (
        await tool.run({"goal": "x", "at": "+1m", "kind": "reminder", "condition": "y"}, ctx())
    ).code == "bad_schedule"
    assert (await tool.run({"op": "pause"}, ctx())).code == "missing_id"
    assert (await tool.run({"op": "pause", "id": "nope"}, ctx())).code == "no_schedule"
    assert (await tool.run({"op": "explode", "id": "x"}, ctx())).code == "bad_op"


async def test_another_conversations_schedules_are_out_of_reach(tmp_path):
    """A page or a message that talks the model into deleting or running someone else's
    schedule: the tool only sees this conversation's."""
    store = TriggerStore(tmp_path)
    tool = ScheduleTask(store)
    theirs = (await tool.run({"goal": "pay the rent", "at": "+1d"}, ctx("c2"))).data["schedule"]["id"]
    for op in ("delete", "pause", "run_now", "resume"):
        out = await tool.run({"op": op, "id": theirs}, ctx("c1"))
        assert out.code == "no_schedule"
    out = await tool.run({"op": "reschedule", "id": theirs, "at": "+1m"}, ctx("c1"))
    assert out.code == "no_schedule"
    assert theirs not in (await tool.run({"op": "list"}, ctx("c1"))).text
    status = store.get(theirs)
    assert not status.paused and store.run_requests() == [] and status.trigger.timing.kind.value == "at"


async def test_a_real_run_makes_a_schedule_through_the_action_entry(tmp_path):
    replies = iter([Reply.call("schedule_task", goal="water the plants", every="1d"), "Scheduled."])
    model = FunctionModel(lambda request: next(replies))
    spec = RunSpec(goal="remind me... no, water the plants every day", provenance=PRESENT, conversation_id="c1")
    run = TaskRun(
        spec,
        model,
        capabilities_for(spec, RunEnvironment(state_dir=tmp_path)),
        RunOptions(state_dir=tmp_path, pacing=False),
    )
    result = await run.run()
    assert result.answer == "Scheduled."
    (status,) = TriggerStore(tmp_path).list()
    assert status.trigger.goal == "water the plants" and status.trigger.timing.every_s == 86400


async def test_a_time_that_comes_while_the_tool_writes_still_runs(tmp_path):
    """The tool reads "+1s" at T0; the write happens 3 s later (a loaded machine): the
    one-off is due at once, not dropped with nothing due."""
    from datetime import UTC, datetime, timedelta

    t0 = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    store = TriggerStore(tmp_path, clock=lambda: (t0 + timedelta(seconds=3)).timestamp())
    tool = ScheduleTask(store, clock=lambda: t0.timestamp())
    made = await tool.run({"goal": "stand up", "kind": "reminder", "at": "+1s"}, ctx())
    assert made.ok and store.list()[0].next_due == t0 + timedelta(seconds=1)
    moved = await tool.run({"op": "reschedule", "id": made.data["schedule"]["id"], "at": "+2s"}, ctx())
    assert moved.ok and store.list()[0].next_due == t0 + timedelta(seconds=2)
