"""phone_run on the simulated phone through real adb: a 4-command flow whose later
targets only exist after earlier commands (each is found on the screen of its own
moment), stops on a missing target, an ambiguous one and an app switch, conditions
(if_text / unless_text), bad commands named by field, and the payment gate: a
phone_run whose command taps Checkout meets the same approval refusal as a direct tap."""

from __future__ import annotations

import re

import pytest

from mika.cap.phone.tools.run import RunSpecError, parse_commands
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import SHOP_TO_CHECKOUT, make_run, record, results_of, world_state
from tests.phone.test_tools import dump_cap
from tests.sim_world.driver import OverAdb, center, find

SEND_CODE = [
    {"action": "launch", "app": "Mika ID"},
    {"action": "tap", "text": "Sign in with phone number"},
    {"action": "type", "text": "Phone number", "value": "5550199"},
    {"action": "tap", "text": "Send code"},
]


async def _run(tmp_path, sim_phone, commands, **kw):
    driver = ListingDriver([step("phone_run", commands=commands), "done"])
    run = make_run(tmp_path, dump_cap(sim_phone), driver, **kw)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    return driver.results[0], results_of(record(run), "phone_run")[0], run


async def test_a_four_command_flow_finds_each_target_on_its_own_screen(tmp_path, sim_phone, phone_cap):
    driver = ListingDriver([step("phone_run", commands=SEND_CODE), "done"])
    run = make_run(tmp_path, phone_cap, driver)
    await run.run()
    text, res = driver.results[0], results_of(record(run), "phone_run")[0]
    assert "All 4 commands done." in text, text
    assert res["ok"] and res["code"] == "done"
    state = world_state(sim_phone)
    assert state["login"]["code_sent"] is True and state["screen"]["0"] == "PhoneSignIn"
    # "Send code" and the phone field exist only on the screen command 2 opened.
    assert "3. type text='Phone number'" in text and "4. tap text='Send code': ok" in text, text


async def test_a_target_that_moved_is_found_where_it_is_now(tmp_path, sim_phone):
    # "Send code" puts a line above the code field and Verify, which move down: the tap
    # on Verify is aimed at where it is after that, not where it was when the run began.
    await _run(tmp_path / "a", sim_phone, SEND_CODE[:2])
    d = OverAdb(sim_phone)
    y_before = center(find(d, text="Verify"))[1]
    commands = [
        SEND_CODE[2],
        SEND_CODE[3],
        {"action": "type", "text": "Verification code", "value": "000000"},
        {"action": "tap", "text": "Verify"},
    ]
    text, res, _ = await _run(tmp_path / "b", sim_phone, commands)
    assert res["code"] == "done", text
    y_after = center(find(d, text="Verify"))[1]
    assert y_after > y_before, (y_before, y_after)
    assert sim_phone.device.world.last_toast == "Wrong code. Try again.", "the tap reached Verify"
    listing = text.split("Screen v")[-1]
    assert listing.index("We sent a code to 5550199") < listing.index('button "Verify"'), listing


async def test_a_missing_target_stops_and_shows_the_screen_now(tmp_path, sim_phone):
    commands = [*SEND_CODE[:2], {"action": "tap", "text": "Log in with fingerprint"}, SEND_CODE[3]]
    text, res, _ = await _run(tmp_path, sim_phone, commands)
    assert res["code"] == "stopped_missing_target" and not res["ok"], res
    assert "Stopped at command 3 (tap text='Log in with fingerprint'): its target is not on the screen." in text
    assert "Commands 4 were not done." in text
    assert "The screen now is below." in text and 'button "Send code"' in text.split("The screen now is below.")[1], (
        text
    )
    assert not world_state(sim_phone)["login"].get("code_sent")


async def test_an_ambiguous_target_stops_without_guessing(tmp_path, sim_phone):
    # "Sign" is in two buttons: "Sign in" and "Sign in with phone number".
    commands = [SEND_CODE[0], {"action": "tap", "text": "Sign"}]
    text, res, _ = await _run(tmp_path, sim_phone, commands)
    assert res["code"] == "stopped_ambiguous_target", res
    assert "2 elements match" in text and "its target matches several elements" in text, text
    assert world_state(sim_phone)["screen"]["0"] == "SignIn", "nothing was tapped"


async def test_an_app_switch_stops_the_run(tmp_path, sim_phone):
    commands = [
        {"action": "launch", "app": "Contacts"},
        {"action": "tap", "text": "Alice Chen"},
        {"action": "tap", "id": "message"},
        {"action": "type", "value": "hello"},
    ]
    text, res, _ = await _run(tmp_path, sim_phone, commands)
    assert res["code"] == "stopped_app_switch", res
    assert "Stopped at command 3 (tap id='message'): another app came to the front." in text, text
    assert "com.google.android.apps.messaging" in text
    # Nothing was typed into the other app.
    screen = sim_phone.shell("uiautomator dump /dev/tty")
    assert "com.google.android.apps.messaging" in screen and "hello" not in screen


async def test_expect_app_allows_the_switch(tmp_path, sim_phone):
    commands = [
        {"action": "launch", "app": "Contacts"},
        {"action": "tap", "text": "Alice Chen"},
        {"action": "tap", "id": "message", "expect_app": "com.google.android.apps.messaging"},
        {"action": "type", "id": "compose_message_text", "value": "hello"},
    ]
    text, res, _ = await _run(tmp_path, sim_phone, commands)
    assert res["code"] == "done", text


async def test_conditions_skip_or_run_a_command(tmp_path, sim_phone):
    commands = [
        SEND_CODE[0],
        {"action": "tap", "text": "Sign in with phone number", "if_text": "Sign in to Mika ID"},
        {"action": "tap", "text": "Verify", "unless_text": "Sign in with phone"},
        {"action": "back", "if_text": "No such text anywhere"},
    ]
    text, res, _ = await _run(tmp_path, sim_phone, commands)
    assert res["code"] == "done", text
    assert "3. tap text='Verify': skipped" in text and "4. back: skipped" in text, text
    assert world_state(sim_phone)["screen"]["0"] == "PhoneSignIn"


async def test_a_checkout_inside_phone_run_meets_the_payment_refusal(tmp_path, sim_phone):
    # The same path as tests/phone/test_runs.py's direct taps, up to the cart, then a
    # phone_run whose third command is the Checkout: refused exactly as the direct tap is.
    driver = ListingDriver(
        [
            *SHOP_TO_CHECKOUT[:-2],
            step(
                "phone_run",
                commands=[
                    {"action": "wait_for", "text": "Add to cart"},
                    {"action": "tap", "desc": "Cart", "if_text": "Add to cart"},
                    {"action": "tap", "text": "Checkout"},
                    {"action": "back"},
                ],
            ),
            "I stopped at the payment step.",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    text = driver.results[-1]
    events = record(run)
    res = results_of(events, "phone_run")[0]
    assert res["code"] == "approval_unavailable" and not res["ok"], (res, text)
    assert "Stopped at command 3 (tap text='Checkout')" in text and "Commands 4 were not done." in text, text
    approvals = [e for e in events if e["type"] == "approval"]
    assert approvals and approvals[-1]["decision"] == "approval_unavailable" and approvals[-1]["amount"]
    taps = results_of(events, "phone_tap")
    assert taps[-1]["code"] == "approval_unavailable"
    state = world_state(sim_phone)
    assert state["shop"]["cart"] and not state["shop"].get("orders") and not state["shop"].get("checkout_reached")


async def test_an_attended_run_asks_before_the_checkout_inside_phone_run(tmp_path, sim_phone):
    driver = ListingDriver(
        [
            *SHOP_TO_CHECKOUT[:-1],
            step("phone_run", commands=[{"action": "tap", "text": "Checkout"}, {"action": "back"}]),
            "Waiting for your confirmation to pay.",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver, attendance=Attendance.PRESENT)
    await run.run()
    text = driver.results[-1]
    assert "request_confirmation" in text and "Commands 2 were not done." in text, text
    approvals = [e for e in record(run) if e["type"] == "approval"]
    assert approvals[-1]["decision"] in ("confirmation_required", "pay_by_user")
    assert not world_state(sim_phone)["shop"].get("orders")


def test_bad_commands_name_the_field():
    cases = [
        (None, "needs 'commands'"),
        ([{"action": "fly"}], "command 1: 'action' must be one of"),
        ([{"action": "tap"}], "command 1: tap needs its target as 'text', 'desc' or 'id'"),
        ([{"action": "tap", "element": 3}], "not by element number"),
        ([{"action": "type", "text": "To"}], "type needs 'value'"),
        ([{"action": "back", "text": "x"}], "back takes no target"),
        ([{"action": "wait_for"}], "wait_for needs 'text'"),
        ([{"action": "tap", "text": "a", "optional": "yes"}], "'optional' must be true or false"),
        ([{"action": "back"}] * 21, "at most 20"),
    ]
    for raw, message in cases:
        with pytest.raises(RunSpecError, match=re.escape(message)):
            parse_commands(raw)


async def test_at_standard_pace_each_command_dwells_not_the_run_itself(tmp_path, sim_phone):
    """Seed §6 "动作之间的停留": a composite (phone_run, like do_steps) does not pause on its
    own; each of its commands pauses. The run's clock moves only with its own sleep."""
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.run.task_run import RunOptions, TaskRun

    # a Back first, so a dwell of phone_run's own (after it) would show in its wait
    driver = ListingDriver([step("phone_back"), step("phone_run", commands=SEND_CODE), "done"])
    spec = make_run(tmp_path, dump_cap(sim_phone), driver).spec
    now = [1000.0]
    opts = RunOptions(pacing=False, state_dir=tmp_path, clock=lambda: now[0], pace="standard")
    run = TaskRun(spec, driver.model, capabilities_for(spec, RunEnvironment(extra=[dump_cap(sim_phone)])), opts)

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    run.subscribe(lambda _e: setattr(run.loop.ctx, "sleep", sleep) if getattr(run, "loop", None) else None)
    await run.run()
    results = [e for e in record(run) if e["type"] == "tool_result"]
    at = next(i for i, e in enumerate(results) if e["name"] == "phone_run")
    assert "All 4 commands done." in driver.results[1], driver.results[1]
    commands = results[at - 4 : at]
    assert [e["name"] for e in results[: at - 4]] == ["phone_back"]
    assert all(e["wait_ms"] >= 500 for e in commands), [e["wait_ms"] for e in commands]
    assert not re.search(r"dwell|waited|\d+\s*ms\b", driver.results[1], re.I), driver.results[1]
    assert results[at]["wait_ms"] == sum(e["wait_ms"] for e in commands)
