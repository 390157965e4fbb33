"""phone_gesture on the simulated phone through real adb: runs on the agent's display (its
scrcpy control socket) pinch and twist the Photos viewer (`simctl state` shows zoom and
rotation), draw a path point by point; without that display two fingers are refused with
a sentence, and every bad argument names its field."""

from __future__ import annotations

import asyncio

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import ListingDriver, step
from tests.phone.test_pace_typing import _owned_sleep
from tests.phone.test_runs import make_run, record, results_of, world_state

PHOTO = "Photo: harbour at dusk"


async def _run(tmp_path, sim_phone, steps: list, *, pace: str = "fast", mode: str = "virtual", drawn: bool = True):
    cap = PhoneCapability(
        AdbPort(sim_phone.serial, sim_phone.server.client(), backend="u2"), pace=pace, display_mode=mode
    )
    world = sim_phone.device.world
    world.data.pop("last_stroke", None)
    world.data.pop("photo", None)
    driver = ListingDriver([step("phone_launch_app", app="Photos"), *steps, "done"])
    run = make_run(tmp_path, cap, driver)
    _owned_sleep(run, [])
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    events = record(run)
    started = next(e for e in events if e["type"] == "run_started")
    assert started["display"]["mode"] == ("virtual" if mode == "virtual" else "main")
    if drawn:
        # The control socket is its own stream: wait until the sim has taken the last touch.
        await _until(world, lambda: "last_stroke" in world.data)
    return results_of(events, "phone_gesture"), world_state(sim_phone)


async def _until(world, predicate, timeout: float = 5.0) -> None:
    # The sim's control socket is served on its own thread; wait for its change, not the clock.
    assert await asyncio.to_thread(world.wait_until, predicate, timeout), "the sim never took the touch"


def _photo(state: dict) -> tuple[int, int]:
    photo = state.get("photo") or {}
    return int(photo.get("zoom", 100)), int(photo.get("rotation", 0))


@pytest.mark.parametrize("pace", ["fast", "standard"])
async def test_pinch_out_then_in_zooms_the_photo_in_and_back(tmp_path, sim_phone, pace):
    results, state = await _run(
        tmp_path,
        sim_phone,
        [
            step("phone_gesture", pinch="out", scale=2, pick=PHOTO),
            step("phone_gesture", pinch="in", scale=1.5, x=540, y=800),
        ],
        pace=pace,
    )
    assert [r["ok"] for r in results] == [True, True], results
    assert "Pinched out ×2" in results[0]["text"] and PHOTO in results[0]["text"]
    # Out ×2 → 200 %; in ×1.5 → 200 / 1.5 = 133 %. Pacing varies only the duration.
    assert _photo(state) == (133, 0)
    assert len(state["last_stroke"]["pointers"]) == 2


async def test_pinch_out_alone_raises_the_zoom(tmp_path, sim_phone):
    results, state = await _run(tmp_path, sim_phone, [step("phone_gesture", pinch="out", scale=3, x=540, y=800)])
    assert results[0]["ok"], results
    assert _photo(state) == (300, 0)


async def test_rotate_turns_the_photo(tmp_path, sim_phone):
    results, state = await _run(
        tmp_path,
        sim_phone,
        [step("phone_gesture", rotate=90, pick=PHOTO), step("phone_gesture", rotate=-30, x=540, y=800)],
    )
    assert [r["ok"] for r in results] == [True, True], results
    assert _photo(state) == (100, 60)


@pytest.mark.parametrize("pace", ["fast", "standard"])
async def test_a_drawn_path_arrives_through_all_its_points_in_order(tmp_path, sim_phone, pace):
    drawn = [[200, 1500], [500, 1300], [800, 1500], [500, 1700]]
    results, state = await _run(tmp_path, sim_phone, [step("phone_gesture", path=drawn, duration_ms=600)], pace=pace)
    assert results[0]["ok"], results
    points = [p[1:] for p in state["last_stroke"]["pointers"][0]]
    assert len(state["last_stroke"]["pointers"]) == 1
    it = iter(points)
    assert all(p in it for p in drawn), points  # every drawn corner, in order (moves between)
    assert points[0] == drawn[0] and points[-1] == drawn[-1]
    assert _photo(state) == (100, 0)


async def test_two_fingers_without_the_agents_display_are_refused_with_a_sentence(tmp_path, sim_phone):
    results, state = await _run(
        tmp_path, sim_phone, [step("phone_gesture", pinch="out", x=540, y=800)], mode="main", drawn=False
    )
    assert results[0]["ok"] is False and results[0]["code"] == "gesture_unavailable", results
    assert "agent's display" in results[0]["text"] and "Traceback" not in results[0]["text"]
    assert _photo(state) == (100, 0) and "last_stroke" not in state


async def test_a_path_works_on_display_0_as_a_straight_swipe(tmp_path, sim_phone):
    results, _ = await _run(
        tmp_path, sim_phone, [step("phone_gesture", path=[[540, 1600], [540, 900]])], mode="main", drawn=False
    )
    assert results[0]["ok"], results


BAD = [
    ({}, "exactly one of `path`, `pinch` or `rotate`"),
    ({"path": [[1, 2], [3, 4]], "pinch": "out", "x": 5, "y": 5}, "exactly one of"),
    ({"path": [[100, 100]]}, "`path` must be a list of 2 to 50"),
    ({"path": [[100, 100], [200]]}, "`path[1]` must be a point"),
    ({"path": [[100, 100], ["a", 3]]}, "`path[1][0]` must be a whole number"),
    ({"path": [[100, 100], [-5, 3]]}, "`path[1]` (-5, 3) is off the screen"),
    ({"path": [[100, 100], [200, 200]], "duration_ms": 10}, "`duration_ms` must be 50 to 5000"),
    ({"pinch": "out"}, "`pinch` needs a centre"),
    ({"pinch": "sideways", "x": 540, "y": 800}, "parameter 'pinch' must be one of ['in', 'out']"),
    ({"pinch": "out", "scale": 9, "x": 540, "y": 800}, "`scale` must be 1.1 to 5"),
    ({"pinch": "out", "scale": "big", "x": 540, "y": 800}, "'scale' must be number"),
    ({"pinch": "out", "scale": 5, "x": 30, "y": 800}, "would leave the"),
    ({"rotate": 0, "x": 540, "y": 800}, "`rotate` must be 5 to 180"),
    ({"rotate": 400, "x": 540, "y": 800}, "`rotate` must be 5 to 180"),
]


# A run stops after 8 failed actions in a row: the cases go in runs of 5.
@pytest.mark.parametrize("start", range(0, len(BAD), 5))
async def test_bad_arguments_name_the_field_and_touch_nothing(tmp_path, sim_phone, start):
    cases = BAD[start : start + 5]
    results, state = await _run(tmp_path, sim_phone, [step("phone_gesture", **args) for args, _ in cases], drawn=False)
    assert len(results) == len(cases)
    for (args, words), r in zip(cases, results, strict=True):
        assert r["ok"] is False and r["code"] == "bad_arguments", (args, r)
        assert words in r["text"], (args, r["text"])
    assert "last_stroke" not in state and _photo(state) == (100, 0)
