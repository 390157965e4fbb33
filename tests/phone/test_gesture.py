"""Timed strokes and two-finger gestures on the simulated phone through a real adb server.

The agent's display (the sim's scrcpy server, its control socket) carries every finger's
points at their times; the sim keeps what the last touch drew in `last_stroke` and applies
a pinch (zoom) or a twist (rotation) to the Photos viewer, which `simctl state` shows.
"""

from __future__ import annotations

import asyncio
import json
import math

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort, GestureUnavailable
from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import ListingDriver, step
from tests.phone.test_pace_typing import _owned_sleep
from tests.phone.test_runs import make_run, record, results_of, world_state


def _state(sim_phone) -> dict:
    return json.loads(sim_phone.shell("simctl state"))


async def _on_own_display(sim_phone) -> tuple[PhoneCapability, AdbPort, int]:
    port = AdbPort(sim_phone.serial, sim_phone.server.client(), backend="u2")
    cap = PhoneCapability(port, display_mode="virtual")
    cap.bind_run(lambda _e: None, "run-1", "conv-1")
    await cap.surface.is_locked("phone")
    display = cap.session.display
    assert display != 0 and port.channel(display) is not None, "the agent's display did not start"
    result = await port.launch_app(display, "com.mika.photos")
    assert result.exit_code == 0, result.output
    return cap, port, display


async def _stroke(sim_phone, port: AdbPort, display: int, pointers) -> str:
    """Draws the stroke and waits until the sim has taken all of it (the control socket is
    its own stream: `simctl state` on the shell could be answered first)."""
    world = sim_phone.device.world
    world.data.pop("last_stroke", None)
    way = await port.stroke(display, pointers)
    await _until(world, lambda: "last_stroke" in world.data)
    return way


def _photo(sim_phone) -> tuple[int, int]:
    photo = _state(sim_phone).get("photo") or {}
    return int(photo.get("zoom", 100)), int(photo.get("rotation", 0))


def _fingers(a0, a1, b0, b1, ms: int = 400, steps: int = 8) -> list[list[tuple[int, int, int]]]:
    def path(p, q):
        return [
            (ms * i // steps, round(p[0] + (q[0] - p[0]) * i / steps), round(p[1] + (q[1] - p[1]) * i / steps))
            for i in range(steps + 1)
        ]

    return [path(a0, a1), path(b0, b1)]


async def test_pinching_out_zooms_in_and_pinching_in_zooms_out(sim_phone):
    cap, port, display = await _on_own_display(sim_phone)
    try:
        assert _photo(sim_phone) == (100, 0)
        way = await _stroke(sim_phone, port, display, _fingers((440, 900), (240, 900), (640, 900), (840, 900)))
        assert way == "control"
        zoom, rotation = _photo(sim_phone)
        assert zoom == 300 and rotation == 0  # 200 px apart → 600 px apart: ×3
        await _stroke(sim_phone, port, display, _fingers((240, 900), (390, 900), (840, 900), (690, 900)))
        assert _photo(sim_phone)[0] == 150  # 600 → 300: ×0.5
        stroke = _state(sim_phone)["last_stroke"]
        assert stroke["display"] == display and len(stroke["pointers"]) == 2
        assert stroke["pointers"][0][0][1:] == [240, 900]
        assert stroke["pointers"][1][-1][1:] == [690, 900]
    finally:
        await cap.close()


async def test_twisting_two_fingers_rotates_the_photo(sim_phone):
    cap, port, display = await _on_own_display(sim_phone)
    try:
        # The line between the fingers turns from horizontal to vertical: +90°, same length.
        await _stroke(sim_phone, port, display, _fingers((340, 900), (540, 700), (740, 900), (540, 1100), steps=12))
        zoom, rotation = _photo(sim_phone)
        assert rotation == 90 and zoom == 100
    finally:
        await cap.close()


async def test_one_finger_stroke_arrives_with_its_points(sim_phone):
    cap, port, display = await _on_own_display(sim_phone)
    try:
        path = [(0, 100, 1500), (40, 200, 1450), (80, 320, 1420), (120, 450, 1430), (160, 560, 1480)]
        assert await _stroke(sim_phone, port, display, [path]) == "control"
        stroke = _state(sim_phone)["last_stroke"]
        assert [p[1:] for p in stroke["pointers"][0]] == [[x, y] for _, x, y in path]
        assert _photo(sim_phone) == (100, 0)  # one finger never zooms
    finally:
        await cap.close()


async def test_two_fingers_on_display_0_are_refused_with_a_sentence(sim_phone):
    port = AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump")
    with pytest.raises(GestureUnavailable) as err:
        await port.stroke(0, _fingers((440, 900), (240, 900), (640, 900), (840, 900)))
    assert err.value.code == "gesture_unavailable"
    assert "agent's display" in str(err.value) and "display 0" in str(err.value)
    assert "last_stroke" not in _state(sim_phone)


async def test_one_finger_without_a_control_channel_is_a_straight_input_swipe(sim_phone):
    port = AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump")
    way = await port.stroke(0, [[(0, 540, 1600), (100, 560, 1300), (300, 540, 900)]])
    assert way == "input_swipe"


async def test_a_point_off_the_display_is_refused_before_any_finger_goes_down(sim_phone):
    cap, port, display = await _on_own_display(sim_phone)
    try:
        from mika.cap.phone.adb.port import PortError

        with pytest.raises(PortError, match="outside the display"):
            await port.stroke(display, [[(0, 100, 100), (50, 99999, 100)]])
        assert "last_stroke" not in _state(sim_phone)
    finally:
        await cap.close()


def _bow(points: list[list[int]]) -> float:
    """The farthest any point of a path strays from the straight line between its ends."""
    (_, x1, y1), (_, x2, y2) = points[0], points[-1]
    length = math.hypot(x2 - x1, y2 - y1)
    return max(abs((x2 - x1) * (y1 - y) - (x1 - x) * (y2 - y1)) / length for _, x, y in points)


async def _swipe_run(tmp_path, sim_phone, pace: str) -> tuple[dict, list[dict]]:
    cap = PhoneCapability(
        AdbPort(sim_phone.serial, sim_phone.server.client(), backend="u2"), pace=pace, display_mode="virtual"
    )
    sim_phone.device.world.data.pop("last_stroke", None)
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Photos"),
            step("phone_swipe", x1=150, y1=1500, x2=900, y2=1500, ms=600),
            "swiped",
        ]
    )
    run = make_run(tmp_path, cap, driver)
    _owned_sleep(run, [])
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    events = record(run)
    assert next(e for e in events if e["type"] == "run_started")["display"]["mode"] == "virtual"
    await _until(sim_phone.device.world, lambda: "last_stroke" in sim_phone.device.world.data)
    return world_state(sim_phone)["last_stroke"], results_of(events, "phone_swipe")


async def test_a_paced_swipe_is_drawn_as_an_arc_point_by_point(tmp_path, sim_phone):
    stroke, results = await _swipe_run(tmp_path, sim_phone, "standard")
    assert results and results[0]["ok"], results
    points = stroke["pointers"][0]
    assert stroke["display"] != 0 and len(stroke["pointers"]) == 1
    assert len(points) >= 10
    assert points[0][1:] == [150, 1500] and points[-1][1:] == [900, 1500]  # same ends
    assert _bow(points) >= 5  # bowed: 6 % of 750 px × 0.3…1.0 is 13–30 px
    assert 0.92 * 600 - 40 <= points[-1][0] <= 1.08 * 600 + 80  # the paced duration (±8 %)


async def test_a_fast_swipe_is_straight(tmp_path, sim_phone):
    stroke, _ = await _swipe_run(tmp_path, sim_phone, "fast")
    points = stroke["pointers"][0]
    assert points[0][1:] == [150, 1500] and points[-1][1:] == [900, 1500]
    assert len(points) >= 3 and _bow(points) <= 1


async def _until(world, predicate, timeout: float = 5.0) -> None:
    # The sim's control socket is served on its own thread; wait for its change, not the clock.
    assert await asyncio.to_thread(world.wait_until, predicate, timeout), "the sim never took the touch"


async def test_a_stroke_stopped_half_way_lifts_every_finger(sim_phone):
    """The kill point: the run is stopped while two fingers are down. Both are lifted where
    they are (the sim ends the touch and keeps it as `last_stroke`), none is left pressed."""
    cap, port, display = await _on_own_display(sim_phone)
    try:
        world = sim_phone.device.world
        long_pinch = _fingers((440, 900), (40, 900), (640, 900), (1040, 900), ms=3000, steps=150)
        world.data.pop("last_stroke", None)
        # The kill: the stroke's task is cancelled half a second into its three seconds
        # (wait_for cancels it and waits for it to finish).
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(port.stroke(display, long_pinch), 0.5)
        await _until(world, lambda: "last_stroke" in world.data)
        stroke = world.data["last_stroke"]
        assert len(stroke["pointers"]) == 2
        ends = [p[-1][1] for p in stroke["pointers"]]
        assert 40 < ends[0] < 440 and 640 < ends[1] < 1040, ends  # lifted part way, not at the ends
        # A finger left down would turn the next tap into a second finger; a fresh stroke works.
        world.data.pop("last_stroke", None)
        await port.stroke(display, [[(0, 300, 1500), (100, 700, 1500)]])
        await _until(world, lambda: "last_stroke" in world.data)
        assert len(world.data["last_stroke"]["pointers"]) == 1
    finally:
        await cap.close()


async def test_a_paced_scroll_is_drawn_as_an_arc_and_still_scrolls(tmp_path, sim_phone):
    cap = PhoneCapability(
        AdbPort(sim_phone.serial, sim_phone.server.client(), backend="u2"), pace="standard", display_mode="virtual"
    )
    sim_phone.device.world.data.pop("last_stroke", None)
    driver = ListingDriver([step("phone_launch_app", app="Settings"), step("phone_scroll", direction="down"), "ok"])
    run = make_run(tmp_path, cap, driver)
    _owned_sleep(run, [])
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    await _until(sim_phone.device.world, lambda: "last_stroke" in sim_phone.device.world.data)
    points = sim_phone.device.world.data["last_stroke"]["pointers"][0]
    assert len(points) >= 10 and _bow(points) >= 2
    scrolled = results_of(record(run), "phone_scroll")[0]
    assert scrolled["ok"], scrolled
    assert "Effect: done (the screen changed)" in scrolled["text"], scrolled["text"][:300]
