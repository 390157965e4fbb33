"""Paced typing on the simulated phone through real adb: text goes in as growing prefixes
(Latin one character at a time, CJK in IME-like runs of 1–3) and ends exactly right;
password fields and `fast` go in at once. The sim keeps every value a field took."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record


def _cap(sim_phone, backend: str, pace: str) -> PhoneCapability:
    return PhoneCapability(AdbPort(sim_phone.serial, sim_phone.server.client(), backend=backend), pace=pace)


def _owned_sleep(run, sleeps: list[float]) -> None:
    """The pauses between chunks go through the run's sleep; the test takes them instantly
    and keeps how long each would have been."""

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    def seam(_event) -> None:
        loop = getattr(run, "loop", None)
        if loop is not None:
            loop.ctx.sleep = sleep

    run.subscribe(seam)


def _values(sim_phone, name_part: str) -> list[str]:
    return [v for f, v in sim_phone.device.world.field_history if name_part in f]


def _grows(values: list[str], text: str) -> None:
    assert values[-1] == text
    for a, b in pairwise(values):
        assert b.startswith(a) and len(b) > len(a), values


@pytest.mark.parametrize("backend", ["dump", "u2"])
async def test_latin_text_grows_one_character_at_a_time(tmp_path, sim_phone, backend):
    driver = ListingDriver(
        [
            step("phone_launch_app", app="备忘录"),
            step("phone_tap", pick="New note"),
            step("phone_type_text", pick="Title", text="Packing"),
            "typed",
        ]
    )
    run = make_run(tmp_path, _cap(sim_phone, backend, "standard"), driver)
    sleeps: list[float] = []
    _owned_sleep(run, sleeps)
    before = len(sim_phone.device.world.field_history)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    assert "read back: matches" in driver.results[2], driver.results[2]
    values = [v for _, v in sim_phone.device.world.field_history[before:] if v]
    _grows(values, "Packing")
    assert len(values) == 7  # P, Pa, Pac, … one chunk per letter
    gaps = [s for s in sleeps if s < 1]  # the chunk pauses (60–170 ms a letter)
    assert len(gaps) >= 6 and all(0.06 <= s <= 0.17 for s in gaps[-6:])


@pytest.mark.parametrize("backend", ["dump", "u2"])
async def test_cjk_text_goes_in_runs_of_one_to_three(tmp_path, sim_phone, backend):
    driver = ListingDriver(
        [
            step("phone_launch_app", app="微聊"),
            step("phone_tap", pick="小明"),
            step("phone_type_text", text="好的七点见我们公园门口"),
            "typed",
        ]
    )
    run = make_run(tmp_path, _cap(sim_phone, backend, "human"), driver)
    _owned_sleep(run, [])
    before = len(sim_phone.device.world.field_history)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    assert "read back: matches" in driver.results[2], driver.results[2]
    values = [v for _, v in sim_phone.device.world.field_history[before:] if v]
    _grows(values, "好的七点见我们公园门口")
    steps = [len(b) - len(a) for a, b in zip(["", *values], values, strict=False)]
    assert len(values) >= 4 and all(1 <= n <= 3 for n in steps), steps


async def test_fast_types_the_whole_text_at_once(tmp_path, sim_phone):
    driver = ListingDriver(
        [
            step("phone_launch_app", app="备忘录"),
            step("phone_tap", pick="New note"),
            step("phone_type_text", pick="Title", text="Packing"),
            "typed",
        ]
    )
    run = make_run(tmp_path, _cap(sim_phone, "u2", "fast"), driver)
    before = len(sim_phone.device.world.field_history)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    assert [v for _, v in sim_phone.device.world.field_history[before:] if v] == ["Packing"]


@pytest.mark.parametrize("backend", ["dump", "u2"])
async def test_paced_taps_still_land_on_their_element(tmp_path, sim_phone, backend):
    driver = ListingDriver(
        [
            step("phone_launch_app", app="时钟"),
            step("phone_tap", pick="Timer", role="button"),
            "The timer page is open.",
        ]
    )
    run = make_run(tmp_path, _cap(sim_phone, backend, "human"), driver)
    sleeps: list[float] = []
    _owned_sleep(run, sleeps)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    assert "Tapped" in driver.results[1] and "Timer" in driver.results[1]
    # the held, offset tap was a tap: the screen changed (no long press, no miss)
    assert re.search(r"Effect: (done|place_changed)", driver.results[1]), driver.results[1]
    # the pause before touch-down went through the run's sleep: 30–120 ms
    assert any(0.03 <= s <= 0.12 for s in sleeps), sleeps
    events = record(run)
    tap = next(e for e in events if e["type"] == "tool_result" and e["name"] == "phone_tap")
    assert "ms" not in tap["text"] and "pause" not in tap["text"].lower()


async def test_a_batch_dwells_before_each_step_not_for_itself(tmp_path, sim_phone):
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.run.task_run import RunOptions, TaskRun
    from tests.phone.test_batch_on_phone import _driver

    driver = _driver(optional=True)
    run = make_run(tmp_path, _cap(sim_phone, "u2", "fast"), driver)
    # the same run, but at standard pace for its actions (the run's own clock moves with its sleep)
    now = [1000.0]
    opts = RunOptions(pacing=False, state_dir=tmp_path, clock=lambda: now[0], pace="standard")
    spec = run.spec
    run = TaskRun(
        spec, driver.model, capabilities_for(spec, RunEnvironment(extra=[_cap(sim_phone, "u2", "fast")])), opts
    )
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    run.subscribe(lambda _e: setattr(run.loop.ctx, "sleep", sleep) if getattr(run, "loop", None) else None)
    await run.run()
    events = record(run)
    results = [e for e in events if e["type"] == "tool_result"]
    batch_at = next(i for i, e in enumerate(results) if e["name"] == "do_steps")
    steps = results[batch_at - 3 : batch_at]
    assert [e["name"] for e in steps] == ["phone_tap", "phone_type_text", "phone_back"]
    assert "All 3 steps done." in driver.results[2], driver.results[2]
    # each step dwelt (standard: 0.5–3.5 s); the batch waited nothing of its own
    assert all(500 <= e["wait_ms"] <= 3500 for e in steps), [e["wait_ms"] for e in steps]
    assert results[batch_at]["wait_ms"] == sum(e["wait_ms"] for e in steps)
    dwell_sleeps = [s for s in sleeps if s >= 0.5]
    assert len(dwell_sleeps) >= 4  # the two taps before the batch, and each step in it
    assert not re.search(r"dwell|waited|\d+\s*ms\b", driver.results[2], re.I), driver.results[2]


async def test_odd_text_is_never_split_inside_a_character_on_the_phone(tmp_path, sim_phone):
    from mika.action.pace import graphemes

    text = "ok 👨\u200d👩\u200d👧 cafe\u0301 🇨🇳 ❤\ufe0f 👍🏽!"
    driver = ListingDriver(
        [
            step("phone_launch_app", app="微聊"),
            step("phone_tap", pick="小明"),
            step("phone_type_text", text=text),
            "typed",
        ]
    )
    run = make_run(tmp_path, _cap(sim_phone, "u2", "standard"), driver)
    _owned_sleep(run, [])
    before = len(sim_phone.device.world.field_history)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    values = [v for _, v in sim_phone.device.world.field_history[before:] if v]
    _grows(values, text)
    ends, acc = set(), ""
    for g in graphemes(text):
        acc += g
        ends.add(acc)
    assert len(values) > 5 and all(v in ends for v in values), [v for v in values if v not in ends]
