"""The phone's less common tools fold into the `phone_more` tier (issue 16): a real run on
the simulated phone through a real adb server, with the real phone tool declarations.

The tier is offered as one index (`phone_more`) once the phone is open; calling it, or a
member by name, opens the tier, and only from the tier's place in the tool list on."""

from __future__ import annotations

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record

TIER = {"phone_collect", "phone_find", "phone_gesture", "phone_event", "phone_set_wheel", "phone_run"}


def dump_cap(phone) -> PhoneCapability:
    return PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend="dump"))


def names(request) -> list[str]:
    return [t.name for t in request.tools]


def opened(run) -> list[tuple[str, bool]]:
    return [(e["group"], e.get("preloaded", False)) for e in record(run) if e["type"] == "tools_opened"]


async def test_the_index_stands_for_the_tier_until_it_is_called(tmp_path, sim_phone):
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Clock"),
            step("phone_more", tools=["phone_collect", "phone_find", "phone_fly"]),
            step("phone_observe"),
            "Clock is open.",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver, goal="Open the Clock app")
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    first, second, third = driver.model.requests[:3]
    # The phone is preloaded (the task names an app); the tier is one index line per tool.
    assert "phone_tap" in names(first) and "phone_more" in names(first)
    assert not TIER & set(names(first))
    index = next(t for t in first.tools if t.name == "phone_more")
    for tool in TIER:
        assert f"\n- {tool}: " in index.description, tool
    assert names(second) == names(first)
    # Opened: the members' full definitions replace the index, from its place on only.
    assert set(names(third)) >= TIER and "phone_more" not in names(third)
    at = names(first).index("phone_more")
    assert first.tools[:at] == third.tools[:at]
    collect = next(t for t in third.tools if t.name == "phone_collect")
    assert "max_screens" in collect.parameters["properties"]
    # What the model was told: what opened, and that an unknown name is not among them.
    assert "Opened: phone_collect, phone_find." in driver.results[1]
    assert "Not among these tools: phone_fly." in driver.results[1]
    assert opened(run) == [("phone", True), ("screens", True), ("phone_more", False)]
    assert "phone_more" in result.groups_used  # the next turn starts with it open


async def test_a_member_called_by_name_runs_and_opens_the_tier(tmp_path, sim_phone):
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Clock"),
            step("phone_find", target="Stopwatch"),
            "Found it.",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver, goal="Open the Clock app")
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    assert "Stopwatch" in driver.results[1] and "There is no tool" not in driver.results[1]
    assert "phone_find" in names(driver.model.requests[2])
    assert ("phone_more", False) in opened(run)


async def test_wrong_arguments_to_a_folded_member_still_open_it_so_the_model_can_correct(tmp_path, sim_phone):
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Clock"),
            step("phone_set_wheel", hour=7),
            "Gave up.",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver, goal="Open the Clock app")
    await run.run()
    assert "phone_set_wheel" in names(driver.model.requests[2])
    assert ("phone_more", False) in opened(run)


async def test_a_folded_phone_offers_neither_the_index_nor_the_tier(tmp_path, sim_phone):
    driver = ListingDriver(["Hello."])
    run = make_run(tmp_path, dump_cap(sim_phone), driver, goal="Say hello")
    await run.run()
    offered = set(names(driver.model.requests[0]))
    assert "phone_launch_app" in offered and "phone_tap" not in offered
    assert "phone_more" not in offered and not TIER & offered


async def test_a_read_only_run_lists_only_the_tier_tools_it_may_use(tmp_path, sim_phone):
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.run.task_run import RunOptions, TaskRun

    driver = ListingDriver([step("phone_launch_app", app="Clock"), "Read."])
    spec = RunSpec(
        goal="Open the Clock app and read it",
        provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED),
        conversation_id="c-ro",
        read_only=True,
    )
    caps = capabilities_for(spec, RunEnvironment(extra=[dump_cap(sim_phone)]))
    run = TaskRun(spec, driver.model, caps, RunOptions(pacing=False, state_dir=tmp_path))
    await run.run()
    index = next(t for t in driver.model.requests[0].tools if t.name == "phone_more")
    listed = {line[2:].split(":")[0] for line in index.description.splitlines() if line.startswith("- ")}
    assert {"phone_extract", "phone_query", "phone_diagnose", "phone_list_elements"} <= listed
    # Tools that act are not in a read-only run at all, so the index does not name them.
    assert not {"phone_collect", "phone_gesture", "phone_set_wheel", "phone_share_text", "phone_run"} & listed


def test_preloading_the_tier_opens_its_group_and_the_screens_first(sim_phone):
    from mika.tool.groups import ToolGroups

    groups = ToolGroups(dump_cap(sim_phone).tools(), preload=("phone_more",))
    assert groups.opened_order == ["phone_more", "phone", "screens"]
    offered = [t.name for t, folded in groups.offered() if not folded]
    assert set(offered) >= TIER and "phone_more" not in offered
    assert offered.index("phone_tap") < offered.index("phone_collect")  # the tier after its group


async def test_a_task_that_reads_a_whole_chat_has_the_tier_from_the_first_request(tmp_path, sim_phone):
    for goal in ("Read the group chat and summarise it", "总结一下周末户外群的聊天记录"):
        driver = ListingDriver(["Summary."])
        run = make_run(tmp_path, dump_cap(sim_phone), driver, goal=goal)
        await run.run()
        offered = set(names(driver.model.requests[0]))
        assert {"phone_tap", "phone_collect"} <= offered and "phone_more" not in offered, goal
    # A word inside another is no chat: "group chatter" preloads nothing of the tier.
    driver = ListingDriver(["Ok."])
    await make_run(tmp_path, dump_cap(sim_phone), driver, goal="Explain group chatter in birds").run()
    assert "phone_collect" not in names(driver.model.requests[0])
