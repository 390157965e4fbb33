"""Headless-style runs: TaskRun + a scripted model + PhoneCapability on the simulated
phone, through a real adb server. Success is judged by the simulated world's state."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mika.assembly import RunEnvironment, capabilities_for
from mika.model.retry import RetryPolicy
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.sim.tasks import get_task
from tests.phone.driver import ListingDriver, step


def make_run(tmp_path: Path, cap, driver: ListingDriver, *, attendance=Attendance.UNATTENDED, goal="do it"):
    spec = RunSpec(goal=goal, provenance=RunProvenance(RunOrigin.CLI, attendance), conversation_id="c-phone")
    caps = capabilities_for(spec, RunEnvironment(extra=[cap]))
    opts = RunOptions(
        pacing=False, state_dir=tmp_path, retry=RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0)
    )
    return TaskRun(spec, driver.model, caps, opts)


def record(run) -> list[dict]:
    d = Path(run.result.record_dir)
    return [json.loads(line) for line in (d / "events.jsonl").read_text().splitlines()]


def world_state(sim_phone) -> dict:
    return sim_phone.device.world.state()


def results_of(events: list[dict], name: str) -> list[dict]:
    return [e for e in events if e["type"] == "tool_result" and e["name"] == name]


class TestEndToEnd:
    async def test_launch_an_app_and_tap_by_number(self, tmp_path, sim_phone, phone_cap):
        driver = ListingDriver(
            [
                step("phone_launch_app", app="时钟"),
                step("phone_tap", pick="Timer", role="button"),
                "The timer page is open.",
            ]
        )
        run = make_run(tmp_path, phone_cap, driver)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED, result.answer
        assert "Opened Clock (com.google.android.deskclock)" in driver.results[0]
        assert "Effect: " in driver.results[1]
        events = record(run)
        tap = results_of(events, "phone_tap")[0]
        assert tap["ok"] and tap["effect"] in ("done", "place_changed")
        fg = sim_phone.shell("dumpsys window")
        assert "com.google.android.deskclock" in fg

    async def test_set_an_alarm_through_the_intent(self, tmp_path, sim_phone, phone_cap):
        task = get_task("clock_alarm_1500_meeting")
        driver = ListingDriver([step("phone_set_alarm", hour=15, minute=0, label="meeting"), "Alarm set."])
        run = make_run(tmp_path, phone_cap, driver)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        assert task.succeeded(world_state(sim_phone))
        assert "check: " in driver.results[0]

    async def test_set_a_weekday_alarm_through_the_intent(self, tmp_path, sim_phone, phone_cap):
        task = get_task("clock_alarm_weekdays_0730")
        assert not task.succeeded(world_state(sim_phone))
        driver = ListingDriver(
            [
                step("phone_set_alarm", hour=7, minute=30, days=["mon", "tue", "wed", "thu", "fri"]),
                "Alarm set for 7:30 on weekdays.",
            ]
        )
        run = make_run(tmp_path, phone_cap, driver, goal=task.goal)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        assert task.succeeded(world_state(sim_phone)), world_state(sim_phone).get("alarms")

    async def test_type_chinese_text_and_send(self, tmp_path, sim_phone, phone_cap):
        task = get_task("chat_reply_xiaoming")
        driver = ListingDriver(
            [
                step("phone_launch_app", app="微聊"),
                step("phone_tap", pick="小明"),
                step("phone_type_text", text="好的，七点见"),
                step("phone_tap", pick="发送"),
                "已回复小明。",
            ]
        )
        run = make_run(tmp_path, phone_cap, driver, goal=task.goal)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED, driver.results
        typed = driver.results[2]
        assert "read back: matches" in typed, typed
        assert task.succeeded(world_state(sim_phone)), world_state(sim_phone).get("chats")
        # The ADB Keyboard was borrowed for the CJK text and given back when the run ended.
        assert (
            sim_phone.shell("settings get secure default_input_method").strip()
            == "com.android.inputmethod.latin/.LatinIME"
        )

    async def test_scroll_a_long_list_to_find_an_item(self, tmp_path, sim_phone, phone_cap):
        driver = ListingDriver(
            [
                step("phone_launch_app", app="Contacts"),
                step("phone_scroll", direction="down", find="Yara Deng"),
                step("phone_tap", pick="Yara Deng"),
                "Found Yara Deng.",
            ]
        )
        run = make_run(tmp_path, phone_cap, driver)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED, driver.results
        assert "is on screen now" in driver.results[1]
        assert "Yara Deng" in driver.results[2]


SHOP_TO_CHECKOUT = [
    step("phone_launch_app", app="Shop"),
    step("phone_type_text", pick="Search products", text="tea"),
    step("phone_tap", pick="Search", role="button"),
    step("phone_wait", expect="Green Tea"),
    step("phone_tap", pick="Green Tea"),
    step("phone_tap", pick="Add to cart"),
    step("phone_tap", pick="Cart,"),
    # The cart shows the amount due: going to checkout is already a payment step.
    step("phone_tap", pick="Checkout"),
]


class TestPaymentStep:
    async def test_unattended_runs_refuse_the_pay_button(self, tmp_path, sim_phone, phone_cap):
        driver = ListingDriver([*SHOP_TO_CHECKOUT, "I stopped at the payment step: paying needs you."])
        run = make_run(tmp_path, phone_cap, driver)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED, driver.results
        refused = driver.results[-1]
        assert "nobody can approve it in this run" in refused, refused
        state = world_state(sim_phone)
        assert state["shop"]["cart"] and not state["shop"].get("checkout_reached")
        assert not state["shop"].get("orders"), "the order must not be paid"
        events = record(run)
        approvals = [e for e in events if e["type"] == "approval"]
        assert approvals and approvals[-1]["decision"] == "approval_unavailable"
        assert approvals[-1]["amount"], "the amount on the screen decided it"
        pay = results_of(events, "phone_tap")[-1]
        assert pay["code"] == "approval_unavailable" and not pay["ok"]
        # The phone is still on the cart page: nothing was tapped.
        assert "CartActivity" in sim_phone.shell("dumpsys window")

    async def test_attended_runs_ask_for_confirmation_first(self, tmp_path, sim_phone, phone_cap):
        driver = ListingDriver([*SHOP_TO_CHECKOUT, "Waiting for your confirmation to pay."])
        run = make_run(tmp_path, phone_cap, driver, attendance=Attendance.PRESENT)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        assert "request_confirmation" in driver.results[-1]
        assert not world_state(sim_phone)["shop"].get("orders")
        approvals = [e for e in record(run) if e["type"] == "approval"]
        assert approvals[-1]["decision"] in ("confirmation_required", "pay_by_user")


class TestConsentedPayment:
    async def test_a_consent_releases_checkout_and_the_final_pay_is_handed_to_the_user(
        self, tmp_path, sim_phone, phone_cap
    ):
        driver = ListingDriver(
            [
                *SHOP_TO_CHECKOUT,
                step("request_confirmation", what="Green Tea 250g", amount="¥23.50", app="com.mika.shop"),
                step("phone_tap", pick="Checkout"),
                step("phone_tap", pick="Pay "),
                "Paying is yours to do.",
            ]
        )
        run = make_run(tmp_path, phone_cap, driver, attendance=Attendance.PRESENT)
        loop = asyncio.get_running_loop()
        # The person watching says yes, a moment after being asked.
        run.subscribe(lambda e: e.type == "confirmation" and loop.call_later(0.05, run.confirm, e.question_id, True))
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED, driver.results
        assert driver.results[-4].startswith("[confirmation_required]") or "request_confirmation" in driver.results[-4]
        assert "allowed this once" in driver.results[-3]
        assert "CheckoutActivity" in driver.results[-2], driver.results[-2]
        assert "hand_to_user" in driver.results[-1] and "Nothing was done" in driver.results[-1]
        state = world_state(sim_phone)
        assert state["shop"]["checkout_reached"] is True and not state["shop"].get("orders")


class TestTextFields:
    async def test_write_a_note_with_clear_and_retype(self, tmp_path, sim_phone, phone_cap):
        task = get_task("notes_write_packing")
        driver = ListingDriver(
            [
                step("phone_launch_app", app="备忘录"),
                step("phone_tap", pick="New note"),
                step("phone_type_text", pick="Title", text="Packnig"),
                step("phone_clear_text", pick="Packnig", role="input"),
                step("phone_type_text", pick="Title", text="Packing"),
                step("phone_type_text", pick="Note", text="passport, charger"),
                step("phone_tap", pick="Save"),
                "Saved the note.",
            ]
        )
        run = make_run(tmp_path, phone_cap, driver, goal=task.goal)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED, driver.results
        assert driver.results[3].startswith("Cleared the field."), driver.results[3]
        assert "read back: matches" in driver.results[4] and "read back: matches" in driver.results[5]
        assert task.succeeded(world_state(sim_phone)), world_state(sim_phone).get("notes")
