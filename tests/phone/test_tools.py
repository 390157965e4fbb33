"""Phone tool behaviours on the simulated phone, through real runs: stale numbers,
limit notices, passwords, command steering, batches ended by a steer, secure screens,
screens only pixels can read."""

from __future__ import annotations

import asyncio
import re

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.ocr import read_text
from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import ListingDriver, number_for, step
from tests.phone.test_runs import make_run, record, results_of


def dump_cap(phone, **kw) -> PhoneCapability:
    return PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend="dump"), **kw)


async def test_a_number_from_an_older_screen_is_refused_with_the_fresh_listing(tmp_path, sim_phone):
    driver = ListingDriver([step("phone_observe"), "placeholder", "done"])
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    orig = driver.reply

    def reply(request):
        if len(model.requests) == 2:
            # The screen changes behind the model's back; it still taps "Clock" by the old number.
            n = number_for(driver.results[-1] if driver.results else _last(request), "Clock")
            sim_phone.shell("am start -n com.android.settings/.Settings")
            driver.steps[0] = step("phone_tap", element=n)
        return orig(request)

    model = driver.model
    model.fn = reply
    await run.run()
    stale = driver.results[1]
    assert (
        re.match(r"\[stale_element\] Element \d+ is from screen v1,", stale)
        and "screen has changed" in stale
        and "Nothing was done" in stale
    )
    assert "Screen v2 · com.android.settings" in stale  # the fresh listing comes with it
    assert "Settings" in sim_phone.shell("dumpsys window | grep mCurrentFocus")


def _last(request) -> str:
    from mika.model.messages import ToolResult

    return next(p.text for p in request.messages[-1].parts if isinstance(p, ToolResult))


async def test_a_new_limit_notice_is_reported(tmp_path, sim_phone):
    sim_phone.shell("simctl set feed.limit 0")
    driver = ListingDriver([step("phone_launch_app", app="Moments"), step("phone_tap", pick="Like 赞"), "stopping"])
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    assert "limitReached" in driver.results[1], driver.results[1]
    assert "操作过于频繁" in driver.results[1]


async def test_a_password_is_never_echoed(tmp_path, sim_phone):
    redactor_secrets: list[str] = []
    cap = dump_cap(sim_phone, redact=redactor_secrets.append)
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Mika ID"),
            step("phone_type_text", pick="Email or phone", text="me@example.com"),
            step("phone_type_text", pick="#password", text="hunter2"),
            "typed",
        ]
    )
    run = make_run(tmp_path, cap, driver)
    await run.run()
    assert "7 characters into the password field" in driver.results[2], driver.results[1]
    assert all("hunter2" not in r for r in driver.results)
    events = record(run)
    assert all("hunter2" not in e.get("text", "") for e in events if e["type"] == "tool_result")
    assert redactor_secrets == ["hunter2"], "the recorder's redactor is told the secret"
    assert sim_phone.device.world.state()["login"].get("password_ok") is not True  # nothing submitted


async def test_system_commands_are_steered_to_the_phone_tools(tmp_path, sim_phone):
    driver = ListingDriver(
        [
            step("phone_system_command", command="getprop ro.product.model"),
            step("phone_system_command", command="input tap 10 10"),
            step("phone_system_command", command="input tap 20 20"),
            step(
                "phone_system_command",
                command="am start -a android.intent.action.SEND -t text/plain --es android.intent.extra.TEXT hi",
            ),
            "done",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    assert driver.results[0].startswith('exit 0\n<untrusted source="command">\nMika Sim Phone\n</untrusted>')
    # Not even the first acting command runs (issue 11; tests/phone/test_system_command.py).
    assert driver.results[1].startswith("[use_phone_tool]") and "phone_tap" in driver.results[1]
    assert driver.results[2].startswith("[use_phone_tool]")
    assert "phone_share_text" in driver.results[3]


async def test_a_steer_during_a_batch_skips_the_rest(tmp_path, sim_phone):
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Clock"),
            step(
                "do_steps",
                steps=[
                    {
                        "tool": "phone_tap",
                        "args": {"x": 5, "y": 1200},
                        "wait": {"expect": "never shows up", "timeout_s": 10},
                    },
                    {"tool": "phone_back", "args": {}},
                ],
            ),
            "ok, reading your message",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    tapped = asyncio.Event()
    run.subscribe(lambda e: e.type == "tool_result" and e.name == "phone_tap" and tapped.set())
    task = asyncio.create_task(run.run())
    # The batch's first step is done; its wait comes next and checks for a new message
    # before every read, so a steer from here on lands in that wait, however it is timed.
    await asyncio.wait_for(tapped.wait(), 20)
    run.steer("actually, open the timer")
    result = await asyncio.wait_for(task, 20)
    assert result.status is OutcomeStatus.ANSWERED
    batch = driver.results[1]
    assert "stopped=new_message" in batch and "Steps 2 were not done" in batch, batch


async def test_a_secure_screen_is_not_sent_as_a_picture(tmp_path, sim_phone):
    driver = ListingDriver([step("phone_launch_app", app="Wallet"), step("phone_screenshot"), "secure"])
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    shot = results_of(record(run), "phone_screenshot")[0]
    assert shot["code"] == "screenshot_failed" and "secure windows" in shot["text"], shot["text"]
    assert not shot["frame"]


@pytest.mark.slow
async def test_a_pixels_only_screen_is_read_with_ocr(tmp_path, sim_phone):
    driver = ListingDriver([step("phone_launch_app", app="Reading Report"), step("phone_observe"), "read"])
    run = make_run(tmp_path, dump_cap(sim_phone, ocr=read_text), driver)
    await run.run()
    seen = driver.results[1]
    assert "treeBlind" in seen or "Text read from the picture" in seen, seen
    assert "K7-4192" in seen.replace(" ", "")


async def test_a_tour_of_the_other_tools(tmp_path, sim_phone):
    driver = ListingDriver(
        [
            step("phone_list_apps", filter="note"),
            step("phone_launch_app", app="com.mika.notes"),
            step("phone_query", text="Groceries"),
            step("phone_long_press", pick="Groceries"),
            step("phone_press_key", key="BACK"),
            step("phone_show_alarms"),
            step("phone_wait", expect="Gym", timeout_s=3),
            step("phone_swipe", x1=540, y1=1800, x2=540, y2=900),
            step("phone_back"),
            step("phone_list_elements", only_actionable=True),
            "toured",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    r = driver.results
    assert "Notes · com.mika.notes" in r[0] and "Clock" not in r[0]
    assert "match(es)" in r[2] and "Groceries" in r[2]
    assert r[3].startswith("Long-pressed") and "Effect: " in r[3]
    assert r[4].startswith("Pressed BACK.")
    assert r[5].startswith("Opened the alarm list.") and "deskclock" in r[5]
    assert r[6].startswith("Condition met")
    assert r[7].startswith("Swiped from 540,1800 to 540,900")
    assert r[8].startswith("Pressed Back.")
    assert r[9].startswith("Screen v") and '"role": "' in r[9]
    finished = results_of(record(run), "phone_wait")
    assert finished and finished[0]["ok"]


async def test_a_locked_phone_refuses_actions(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="locked")
    driver = ListingDriver([step("phone_tap", x=540, y=1200), "It is locked."])
    run = make_run(tmp_path, dump_cap(phone), driver)
    await run.run()
    assert driver.results[0].startswith("[screen_locked]")
