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
        assert [
            s.tool
            for s in parse_steps([{"tool": "phone_tap", "args": {"element": 3}}], known=known, batchable=batchable)
        ] == ["phone_tap"]
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


class TestEffects:
    """The runner keeps each step's effect and stops on `no_effect` unless it is optional."""

    @staticmethod
    def with_effects(effects: dict[str, dict], steer: asyncio.Event) -> tuple[BatchRunner, list[str]]:
        done: list[str] = []

        async def perform(i: int, step: BatchStep):
            done.append(step.tool)
            return True, "done", f"{step.tool} ok", 0, dict(effects.get(step.tool, {"effect": "done"}))

        return BatchRunner(perform, steer_signal=steer), done

    async def test_a_step_with_no_effect_stops_the_batch_and_says_which(self):
        r, done = self.with_effects({"send": {"effect": "no_effect"}}, asyncio.Event())
        result = await r.run(steps("type", "send", "back"))
        assert done == ["type", "send"] and result.stopped == "no_effect" and result.skipped == (3,)
        assert [s.effect for s in result.steps] == ["done", "no_effect"]
        text = summary(result)
        assert "All 3 steps done" not in text
        assert "2. send: ok · no_effect" in text
        assert "Stopped after step 2 (send): it had no visible effect" in text and "Steps 3 were not done." in text
        assert result.steps[1].as_dict() == {
            "step": 2,
            "tool": "send",
            "ok": True,
            "code": "done",
            "effect": "no_effect",
        }

    async def test_an_optional_step_may_change_nothing(self):
        r, done = self.with_effects({"close_popup": {"effect": "no_effect"}}, asyncio.Event())
        parsed = parse_steps(
            [{"tool": "close_popup", "optional": True}, {"tool": "b"}], known=lambda n: True, batchable=lambda n: True
        )
        result = await r.run(parsed)
        assert done == ["close_popup", "b"] and result.completed
        assert "1. close_popup: ok · no_effect · optional" in summary(result)

    async def test_optional_inside_args_is_taken_and_not_passed_to_the_tool(self):
        parsed = parse_steps(
            [{"tool": "a", "args": {"element": 3, "optional": True}}], known=lambda n: True, batchable=lambda n: True
        )
        assert parsed[0].optional and parsed[0].args == {"element": 3}
        with pytest.raises(BatchSpecError, match="'optional' must be true or false"):
            parse_steps([{"tool": "a", "optional": "yes"}], known=lambda n: True, batchable=lambda n: True)

    async def test_an_optional_step_that_fails_still_stops(self):
        async def perform(i, step):
            return False, "approval_unavailable", "refused", 0, {}

        result = await BatchRunner(perform, steer_signal=asyncio.Event()).run(
            [BatchStep("pay", {}, None, optional=True), BatchStep("b", {})]
        )
        assert result.stopped == "failed" and result.skipped == (2,)

    async def test_an_unmet_wait_stops_unless_optional(self):
        async def wait(spec):
            return {"met": False, "stopped": "timeout", "waited_ms": 10}

        r, done = runner({}, asyncio.Event(), wait=wait)
        result = await r.run([BatchStep("a", {}, {"expect": "Saved"}), BatchStep("b", {})])
        assert done == ["a"] and result.stopped == "timeout"
        assert "Stopped after step 1 (a): its wait timed out" in summary(result)
        r, done = runner({}, asyncio.Event(), wait=wait)
        result = await r.run([BatchStep("a", {}, {"expect": "Saved"}, optional=True), BatchStep("b", {})])
        assert done == ["a", "b"] and result.completed

    async def test_a_tree_blind_no_effect_says_the_tree_cannot_see(self):
        r, _ = self.with_effects({"tap": {"effect": "no_effect", "treeBlind": True}}, asyncio.Event())
        result = await r.run(steps("tap", "b"))
        assert result.stopped == "no_effect" and result.steps[0].tree_blind
        assert "no_effect (treeBlind)" in summary(result) and "treeBlind" in summary(result).splitlines()[-1]
