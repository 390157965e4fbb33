"""Routes and the rules that protect the user, on the simulated phone: parameters filled
by the light model (an alarm at another time), a payment step never replayed (not even
with a person present), a route file edited to another tool or to coordinates still goes
through the executor's rules and hands over, a corrupt route file is skipped."""

from __future__ import annotations

import json

from mika.model.testing import FunctionModel, ScriptedModel
from mika.replay.route import Route
from mika.replay.store import RouteStore
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance
from tests.phone.driver import ListingDriver, step
from tests.replay.test_routes_replay import (
    events_of,
    judge_done,
    make,
    never_called,
    record_dark_mode,
    reference,
    reset,
)


def replayed_of(run) -> dict:
    return next(e for e in events_of(run) if e["type"] == "route_replayed")


async def test_the_light_model_fills_the_parameters_of_an_alarm_route(tmp_path, sim_phone):
    task, script = reference(tmp_path, "clock_alarm_weekdays_0730")
    reset(sim_phone, task)
    run = make(tmp_path, sim_phone, script, task.goal, light=judge_done())
    assert (await run.run()).status is OutcomeStatus.ANSWERED
    (route,) = RouteStore(tmp_path).list()
    assert route.params == {"p1": "7", "p2": "30"}
    assert route.steps[0].args == {"hour": "{p1}", "minute": "{p2}", "days": ["mon", "tue", "wed", "thu", "fri"]}
    assert route.answer == "Alarm set for {p1}:{p2} AM on weekdays."

    reset(sim_phone, task)
    light = ScriptedModel([json.dumps({"route": route.id, "params": {"p1": "6", "p2": "45"}})])
    run = make(tmp_path, sim_phone, FunctionModel(never_called), "Set an alarm for 6:45 AM on weekdays", light=light)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert result.answer == "Alarm set for 6:45 AM on weekdays."
    alarms = sim_phone.device.world.state()["alarms"]
    assert any(a["hour"] == 6 and a["minute"] == 45 and a["enabled"] for a in alarms), alarms
    assert not any(a["hour"] == 7 and a["minute"] == 30 for a in alarms)
    assert len(light.requests) == 1 and light.requests[0].purpose == "route_match"
    assert "7:30" in light.requests[0].messages[0].text and route.id in light.requests[0].messages[0].text


async def test_a_malformed_light_answer_is_no_match_and_the_model_does_the_task(tmp_path, sim_phone):
    task, route = await record_dark_mode(tmp_path, sim_phone)
    reset(sim_phone, task)
    for answer in (
        "sure, route 1",
        json.dumps({"route": "ffffffff", "params": {}}),
        json.dumps({"route": route.id, "params": {"p9": "x"}}),
    ):
        light = ScriptedModel([answer])
        main = ScriptedModel(["I did nothing."])
        run = make(tmp_path, sim_phone, main, task.goal, light=light, judge=False)
        result = await run.run()
        assert result.answer == "I did nothing." and main.remaining == 0
        assert not [e for e in events_of(run) if e["type"] == "route_replayed"]


SHOP_TO_CART = [
    step("phone_launch_app", app="Shop"),
    step("phone_type_text", pick="Search products", text="tea"),
    step("phone_tap", pick="Search", role="button"),
    step("phone_wait", expect="Green Tea"),
    step("phone_tap", pick="Green Tea"),
    step("phone_tap", pick="Add to cart"),
    step("phone_tap", pick="Cart,"),
]


async def test_a_route_with_a_payment_step_never_pays_even_with_a_person_present(tmp_path, sim_phone):
    goal = "Put green tea in the cart"
    driver = ListingDriver([*SHOP_TO_CART, "Green tea is in the cart."])
    run = make(tmp_path, sim_phone, driver.model, goal, light=judge_done())
    assert (await run.run()).status is OutcomeStatus.ANSWERED, driver.results
    (route,) = RouteStore(tmp_path).list()
    cart = route.steps[-1]
    # Someone edits the route: one more step, the cart's Checkout button.
    path = tmp_path / "routes" / f"{route.id}.json"
    data = json.loads(path.read_text())
    data["steps"].append(
        {
            "tool": "phone_tap",
            "args": {},
            "place": {"app": "com.mika.shop", "activity": "com.mika.shop/com.mika.shop.CartActivity"},
            "anchor": {"label": "Checkout", "resource_id": "com.mika.shop:id/checkout", "role": "button", "desc": ""},
            "effect": "place_changed",
        }
    )
    path.write_text(json.dumps(data))
    assert (cart.tool == "phone_tap" and cart.anchor["resource_id"] == "cart_button") or cart.anchor
    sim_phone.shell("simctl reset default")

    seen = []
    main = FunctionModel(lambda req: seen.append(req) or "Stopped before paying.")
    run = make(tmp_path, sim_phone, main, goal, judge=False, attendance=Attendance.PRESENT)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED
    replayed = replayed_of(run)
    assert replayed["handed_over_at"] == len(data["steps"]) and "payment" in replayed["reason"], replayed["reason"]
    shop = sim_phone.device.world.state()["shop"]
    assert shop["cart"] and not shop.get("checkout_reached") and not shop.get("orders")
    # The checkout tap was never sent to the executor; the model was told why it got the task.
    taps = [e for e in events_of(run) if e["type"] == "tool_call" and e["origin"] == "replay"]
    assert len(taps) == len(route.steps)  # every step before it, none for it
    assert "payment" in seen[0].messages[0].text


async def test_a_route_edited_to_another_tool_or_to_a_point_is_refused_and_handed_over(tmp_path, sim_phone):
    task, route = await record_dark_mode(tmp_path, sim_phone)
    store = RouteStore(tmp_path)
    edits = [
        # A tool routes may not replay (a shell command on the phone).
        {"tool": "phone_system_command", "args": {"command": "rm -rf /sdcard"}},
        # A tap at a coordinate, no anchor: the re-targeting drops the point, the executor's
        # argument check refuses a tap at nothing.
        {"tool": "phone_tap", "args": {"x": 540, "y": 1200}},
        # A tool this run does not have.
        {"tool": "pay_now", "args": {}},
    ]
    for edit in edits:
        reset(sim_phone, task)
        data = route.to_dict()
        data["steps"] = [edit, *data["steps"]]
        store.save(Route.from_dict(data))
        main = ScriptedModel(["Handed back."])
        run = make(tmp_path, sim_phone, main, task.goal, judge=False)
        result = await run.run()
        assert result.answer == "Handed back." and main.remaining == 0
        replayed = replayed_of(run)
        assert replayed["handed_over_at"] == 1 and replayed["done"] == 0, replayed
        calls = [e for e in events_of(run) if e["type"] == "tool_call" and e["origin"] == "replay"]
        assert all(c["name"] == "phone_tap" and "x" not in c["arguments"] for c in calls), calls
        results = [e for e in events_of(run) if e["type"] == "tool_result" and e["call_id"].startswith("replay_")]
        assert all(not r["ok"] for r in results)
        assert not task.succeeded(sim_phone.device.world.state())


async def test_a_corrupt_route_file_is_skipped_and_the_good_one_still_replays(tmp_path, sim_phone):
    task, route = await record_dark_mode(tmp_path, sim_phone)
    (tmp_path / "routes" / "deadbeef.json").write_text("{broken")
    (tmp_path / "routes" / "cafe0001.json").write_text(json.dumps({"id": "cafe0001", "goal": task.goal, "steps": "x"}))
    reset(sim_phone, task)
    run = make(tmp_path, sim_phone, FunctionModel(never_called), task.goal)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED and task.succeeded(sim_phone.device.world.state())
    assert replayed_of(run)["route_id"] == route.id
