"""BatchRunner (mika/agent/batch.py) on its own: step checks, stops, skipped steps.

The perform function here records calls in memory: the runner's contract is only "send
each step to perform, in order, and stop when told"; the real executor path is covered
by the do_steps runs on the simulated phone (test_faults, test_tools)."""

from __future__ import annotations

import asyncio

import pytest

from mika.agent.batch import MAX_STEPS, BatchRunner, BatchSpecError, BatchStep, parse_steps, summary


def steps(*names: str, wait: dict | None = None) -> list[BatchStep]:
    return [BatchStep(n, {}, wait) for n in names]


def runner(results: dict[str, tuple], steer: asyncio.Event, **kw) -> tuple[BatchRunner, list[str]]:
    done: list[str] = []

    async def perform(i: int, step: BatchStep):
        done.append(step.tool)
        ok, code = results.get(step.tool, (True, "done"))
        return ok, code, f"{step.tool} {code}", 5, {}

    return BatchRunner(perform, steer_signal=steer, **kw), done


class TestParse:
    def test_limits_and_declarations_are_checked(self):
        known = {"phone_tap", "phone_back", "phone_observe"}.__contains__
        batchable = {"phone_tap", "phone_back"}.__contains__
        assert [s.tool for s in parse_steps([{"tool": "phone_tap", "args": {"element": 3}}], known=known, batchable=batchable)] == ["phone_tap"]
        with pytest.raises(BatchSpecError, match="1 to 20"):
            parse_steps([], known=known, batchable=batchable)
        with pytest.raises(BatchSpecError, match=f"at most {MAX_STEPS}"):
            parse_steps([{"tool": "phone_tap"}] * 21, known=known, batchable=batchable)
        with pytest.raises(BatchSpecError, match="step 2: there is no tool 'phone_fly'"):
            parse_steps([{"tool": "phone_tap"}, {"tool": "phone_fly"}], known=known, batchable=batchable)
        with pytest.raises(BatchSpecError, match="step 1: phone_observe can't run inside do_steps"):
            parse_steps([{"tool": "phone_observe"}], known=known, batchable=batchable)
        with pytest.raises(BatchSpecError, match="'args' must be an object"):
            parse_steps([{"tool": "phone_tap", "args": [1]}], known=known, batchable=batchable)


class TestRun:
    async def test_all_steps_in_order(self):
        r, done = runner({}, asyncio.Event())
        result = await r.run(steps("a", "b", "c"))
        assert done == ["a", "b", "c"] and result.completed and result.stopped is None
        assert summary(result).endswith("All 3 steps done.")

    async def test_a_failed_step_stops_the_rest(self):
        r, done = runner({"b": (False, "stale_element")}, asyncio.Event())
        result = await r.run(steps("a", "b", "c"))
        assert done == ["a", "b"] and result.stopped == "failed" and result.skipped == (3,)
        assert "2. b: failed (stale_element)" in summary(result)

    async def test_a_new_message_before_a_step_skips_it_and_the_rest(self):
        steer = asyncio.Event()

        async def interrupted(step, data):
            steer.set()  # the user writes while step 1 runs
            return None

        r, done = runner({}, steer, interrupted=interrupted)
        result = await r.run(steps("a", "b", "c"))
        assert done == ["a"] and result.stopped == "skipped_for_new_message" and result.skipped == (2, 3)
        assert "the user sent a new message" in summary(result)

    async def test_a_wait_that_stops_for_a_dialog_stops_the_batch(self):
        async def wait(spec):
            return {"met": False, "stopped": "dialog", "waited_ms": 120}

        r, done = runner({}, asyncio.Event(), wait=wait)
        result = await r.run(steps("a", "b", wait={"expect": "Saved"}))
        assert done == ["a"] and result.stopped == "dialog"
        assert result.steps[0].wait == {"met": False, "stopped": "dialog", "waited_ms": 120}
        assert result.steps[0].wait_ms == 125
        assert "wait met=False stopped=dialog waited_ms=120" in summary(result)

    async def test_an_app_change_reported_by_the_capability_stops_it(self):
        async def interrupted(step, data):
            return "app_changed"

        r, done = runner({}, asyncio.Event(), interrupted=interrupted)
        result = await r.run(steps("a", "b"))
        assert done == ["a"] and result.stopped == "app_changed" and result.skipped == (2,)
