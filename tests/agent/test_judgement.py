"""Each judgement rule: one run that triggers it, one that shows it stays quiet.

Runs go through the real TaskRun with the phone-shaped test capability; the models are
ScriptedModel / FunctionModel (the core's own test doubles).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mika.model.errors import ModelError, ModelErrorKind
from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply, ScriptedModel
from mika.record.events import (
    GroundingChecked,
    IntentJudged,
    OutcomeJudged,
    QuestionAsked,
    StopSummarized,
    ToolCalled,
)
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin


def _events(run) -> list:
    seen: list = []
    run.subscribe(seen.append)
    return seen


def _answering(run, text: str) -> None:
    run.subscribe(
        lambda e: isinstance(e, QuestionAsked) and asyncio.get_running_loop().call_soon(run.answer, e.question_id, text)
    )


def _recorded(run) -> list[dict]:
    return [json.loads(x) for x in (Path(run.result.record_dir) / "events.jsonl").read_text().splitlines()]


def _last_text(model) -> str:
    return model.requests[-1].messages[-1].text


class TestTurnPolicyReadBack:
    async def test_an_unread_screen_change_is_reminded_once(self, make_run):
        model = ScriptedModel(
            [Reply.call("sim_launch", app="Shop"), Reply.call("sim_tap", label="Next"), "Done.", "Done, really."]
        )
        result = await make_run(model).run()
        assert "have not looked at the result" in model.requests[3].messages[-1].text
        assert "sim_tap" in model.requests[3].messages[-1].text
        assert result.answer == "Done, really."

    async def test_quiet_when_the_screen_was_read_after_the_change(self, make_run):
        model = ScriptedModel(
            [Reply.call("sim_launch", app="Shop"), Reply.call("sim_tap", label="Next"), Reply.call("sim_read"), "Done."]
        )
        result = await make_run(model).run()
        assert result.answer == "Done." and len(model.requests) == 4


class TestTurnPolicyAnswer:
    async def test_an_answer_followed_by_no_action_is_reminded_once(self, make_run):
        model = ScriptedModel(
            [
                Reply.call("sim_launch", app="Shop"),
                Reply.call("sim_read"),
                Reply.call("ask_user", question="Which size?", options=["S", "M"]),
                "OK.",
                "Size M noted; the shop shows it in stock.",
            ]
        )
        run = make_run(model, attendance=Attendance.PRESENT)
        _answering(run, "M")
        result = await asyncio.wait_for(run.run(), 5)
        assert "just answered your question" in model.requests[4].messages[-1].text
        assert result.answer.startswith("Size M")

    async def test_quiet_in_a_plain_chat_question(self, make_run):
        model = ScriptedModel([Reply.call("ask_user", question="Which city?"), "Paris it is."])
        run = make_run(model, attendance=Attendance.PRESENT)
        _answering(run, "Paris")
        result = await asyncio.wait_for(run.run(), 5)
        assert result.answer == "Paris it is." and len(model.requests) == 2


class TestTurnPolicyLanguage:
    async def test_an_answer_in_another_language_is_sent_back_once(self, make_run):
        model = ScriptedModel(["The cheapest kettle costs 89 yuan.", "最便宜的水壶是 89 元。"])
        result = await make_run(model, goal="帮我找一下最便宜的电水壶多少钱").run()
        assert "Rewrite the whole answer in Chinese" in _last_text(model)
        assert result.answer == "最便宜的水壶是 89 元。"

    async def test_a_rewrite_still_off_stands(self, make_run):
        model = ScriptedModel(["The kettle costs 89 yuan.", "It costs 89 yuan, sorry."])
        result = await make_run(model, goal="帮我找一下最便宜的电水壶多少钱").run()
        assert result.answer == "It costs 89 yuan, sorry." and len(model.requests) == 2

    async def test_quiet_when_the_language_matches_or_only_names_differ(self, make_run):
        model = ScriptedModel(["最便宜的是「Philips Kettle HD9350」，89 元。"])
        result = await make_run(model, goal="帮我找一下最便宜的电水壶多少钱").run()
        assert len(model.requests) == 1 and result.status is OutcomeStatus.ANSWERED

    async def test_a_steer_changes_the_language_wanted(self, make_run, world):
        world.say_during["Item 1"] = "请用中文回答"
        model = ScriptedModel(
            [
                Reply.call("sim_launch", app="Shop"),
                Reply.call("sim_tap", label="Item 1"),
                Reply.call("sim_read"),
                "It is 89 yuan.",
                "是 89 元。",
            ]
        )
        result = await make_run(model, goal="how much is the kettle").run()
        assert result.answer == "是 89 元。"


class TestStopRules:
    async def test_actions_that_change_nothing_end_the_run(self, make_run, world):
        world.dead = {f"Item {i}" for i in range(20)}
        model = ScriptedModel(
            [Reply.call("sim_launch", app="Shop")] + [Reply.call("sim_tap", label=f"Item {i}") for i in range(20)]
        )
        result = await make_run(model).run()
        assert result.status is OutcomeStatus.FAILED and result.subtype == "no_progress"
        assert "changed nothing" in result.answer

    async def test_reading_the_same_thing_again_and_again_ends_the_run(self, make_run):
        model = ScriptedModel(
            [Reply.call("sim_launch", app="Shop")] + [Reply.call("sim_read", part=str(i)) for i in range(10)]
        )
        result = await make_run(model).run()
        assert result.subtype == "repeated_reading" and "read 6 times" in result.answer

    async def test_too_many_failures_end_the_run(self, make_run, world):
        world.fail = True
        model = ScriptedModel(
            [Reply.call("sim_launch", app="Shop")] + [Reply.call("sim_tap", label=f"Item {i}") for i in range(10)]
        )
        result = await make_run(model).run()
        assert result.subtype == "too_many_failures"

    async def test_quiet_while_the_run_makes_progress(self, make_run):
        steps = [Reply.call("sim_launch", app="Shop")]
        for i in range(12):
            steps += [Reply.call("sim_tap", label=f"Item {i}"), Reply.call("sim_read")]
        model = ScriptedModel([*steps, "Found it."])
        result = await make_run(model).run()
        assert result.status is OutcomeStatus.ANSWERED

    async def test_give_up_ends_with_the_models_words(self, make_run):
        model = ScriptedModel([Reply.call("end_not_done", subtype="blocked", message="The shop needs a login.")])
        result = await make_run(model).run()
        assert result.status is OutcomeStatus.NOT_DONE and result.answer == "The shop needs a login."

    async def test_a_model_failure_ends_the_run_with_its_kind(self, make_run):
        model = ScriptedModel([Reply(error=ModelError(ModelErrorKind.MODEL_NOT_FOUND, "no such model"))])
        result = await make_run(model).run()
        assert result.status is OutcomeStatus.FAILED and result.subtype == "model_not_found"
        assert "does not know this model" in result.answer

    async def test_reasons_follow_the_ui_language(self, make_run, world, monkeypatch):
        monkeypatch.setenv("MIKA_LANGUAGE", "zh")
        world.fail = True
        model = ScriptedModel(
            [Reply.call("sim_launch", app="Shop")] + [Reply.call("sim_tap", label=f"Item {i}") for i in range(10)]
        )
        result = await make_run(model).run()
        assert result.answer == "已停止：连续 8 个动作失败。"


class TestStuckAdvice:
    async def test_advice_first_then_permission_to_give_up(self, make_run, world):
        world.dead = {"Same"}
        steps = [Reply.call("sim_launch", app="Shop")]
        steps += [Reply.call("sim_tap", label="Same")] * 4 + [
            Reply.call("sim_tap", label="Other"),
            Reply.call("sim_read"),
        ]
        steps += [Reply.call("sim_tap", label="Same")] * 4
        steps += [Reply.call("end_not_done", subtype="blocked", message="The button does nothing.")]
        model = ScriptedModel(steps)
        await make_run(model).run()
        results = [p.text for r in model.requests for p in r.messages[-1].parts if isinstance(p, ToolResult)]
        advice = [t for t in results if "[advice]" in t]
        assert len(advice) == 2
        assert "different way" in advice[0] and "end_not_done" not in advice[0]
        assert "fine to give up" in advice[1]

    async def test_quiet_when_not_stuck(self, make_run):
        steps = [Reply.call("sim_launch", app="Shop")] + [Reply.call("sim_tap", label=f"Item {i}") for i in range(6)]
        model = ScriptedModel([*steps, Reply.call("sim_read"), "ok"])
        await make_run(model).run()
        assert not any(
            "[advice]" in m.text or any("[advice]" in r.text for r in m.tool_results)
            for r in model.requests
            for m in r.messages
        )


class TestIntentGate:
    async def test_chat_is_answered_without_tools(self, make_run, world):
        main = ScriptedModel(
            [Reply.call("sim_launch", app="Shop"), "Hello! I'm Mika; tell me what to do on your phone."]
        )
        light = ScriptedModel(["chat"])
        run = make_run(
            main, origin=RunOrigin.UI, attendance=Attendance.PRESENT, light=light, goal="hi there, how are you?"
        )
        events = _events(run)
        result = await run.run()
        assert result.answer.startswith("Hello!")
        assert main.requests[1].tools == () and not any(
            m.tool_calls or m.tool_results for m in main.requests[1].messages
        )
        assert "hi there, how are you?" in main.requests[1].messages[0].text
        assert world.taps == [] and world.screen == "Home"
        assert [e.intent for e in events if isinstance(e, IntentJudged)] == ["chat"]
        assert light.requests[0].purpose == "intent" and "hi there" in light.requests[0].messages[0].text

    async def test_a_task_goes_ahead_and_is_asked_once(self, make_run, world):
        main = ScriptedModel(
            [
                Reply.call("sim_launch", app="Shop"),
                Reply.call("sim_tap", label="Kettle"),
                Reply.call("sim_read"),
                "Added.",
            ]
        )
        light = ScriptedModel(["task"])
        run = make_run(
            main, origin=RunOrigin.UI, attendance=Attendance.PRESENT, light=light, goal="add the kettle to my cart"
        )
        await run.run()
        assert world.taps == ["Kettle"]
        assert [r.purpose for r in light.requests] == ["intent", "judge"]  # asked once; the judge comes after

    async def test_a_failed_or_odd_verdict_leaves_the_main_choice(self, make_run, world):
        for light in (
            ScriptedModel([Reply(error=ModelError(ModelErrorKind.SERVER, "boom"))]),
            ScriptedModel(["maybe a task?"]),
        ):
            world.taps.clear()
            main = ScriptedModel(
                [
                    Reply.call("sim_launch", app="Shop"),
                    Reply.call("sim_tap", label="Kettle"),
                    Reply.call("sim_read"),
                    "Added.",
                ]
            )
            run = make_run(main, origin=RunOrigin.UI, attendance=Attendance.PRESENT, light=light)
            events = _events(run)
            await run.run()
            assert world.taps == ["Kettle"]
            assert [e.intent for e in events if isinstance(e, IntentJudged)] == ["unknown"]

    async def test_quiet_for_runs_not_started_from_the_ui_and_for_reads(self, make_run):
        light = ScriptedModel([])
        main = ScriptedModel([Reply.call("sim_launch", app="Shop"), Reply.call("sim_read"), "ok"])
        await make_run(main, origin=RunOrigin.CLI, light=light).run()
        main = ScriptedModel([Reply.call("ask_user", question="Which?"), "ok"])
        run = make_run(main, origin=RunOrigin.UI, attendance=Attendance.PRESENT, light=light)
        _answering(run, "that one")
        await asyncio.wait_for(run.run(), 5)
        assert [r.purpose for r in light.requests if r.purpose == "intent"] == []


class TestOutcomeJudge:
    async def test_the_verdict_is_recorded_and_the_answer_unchanged(self, make_run):
        main = ScriptedModel([Reply.call("sim_launch", app="Shop"), Reply.call("sim_read"), "The kettle costs ¥12.0."])
        light = ScriptedModel(["partial\nThe price was read but the colour was not checked."])
        run = make_run(main, light=light)
        result = await run.run()
        assert result.answer == "The kettle costs ¥12.0."
        judged = [e for e in _recorded(run) if e["type"] == "outcome_judged"]
        assert judged[0]["verdict"] == "partial" and "colour" in judged[0]["why"]
        assert light.requests[0].purpose == "judge" and "sim_read" in light.requests[0].messages[0].text

    async def test_the_main_model_judges_when_the_light_one_fails_and_unknown_when_none_can(self, make_run):
        main = ScriptedModel(["All done.", "done\nThe answer covers the task."])
        light = ScriptedModel([Reply(error=ModelError(ModelErrorKind.OVERLOADED, "busy"))])
        run = make_run(main, light=light)
        events = _events(run)
        await run.run()
        assert [e.verdict for e in events if isinstance(e, OutcomeJudged)] == ["done"]
        main = ScriptedModel(["All done."])
        run = make_run(main, judge_outcome=True)
        events = _events(run)
        await run.run()  # the main model has no reply left for the judge: unknown
        assert [e.verdict for e in events if isinstance(e, OutcomeJudged)] == ["unknown"]

    async def test_quiet_without_a_light_model_unless_asked(self, make_run):
        main = ScriptedModel(["All done."])
        run = make_run(main)
        events = _events(run)
        await run.run()
        assert not any(isinstance(e, OutcomeJudged) for e in events) and len(main.requests) == 1


class TestStopSummary:
    async def _stopped_after_sending(self, make_run, light):
        main = ScriptedModel(
            [
                Reply.call("sim_launch", app="Chat"),
                Reply.call("sim_send", text="on my way"),
                Reply.call("wait", seconds=30),
            ]
        )
        run = make_run(main, light=light)
        events = _events(run)
        task = asyncio.create_task(run.run())
        while not any(isinstance(e, ToolCalled) and e.name == "wait" for e in events):
            await asyncio.sleep(0.01)
        run.cancel()
        result = await asyncio.wait_for(task, 15)
        return result, events

    async def test_the_light_model_summarises_and_the_outward_count_is_kept(self, make_run):
        light = FunctionModel(lambda r: "I opened Chat and sent your message before you stopped me.")
        result, events = await self._stopped_after_sending(make_run, light)
        assert result.status is OutcomeStatus.STOPPED
        assert result.answer.startswith("I opened Chat") and "1 outward action(s)" in result.answer
        summary = next(e for e in events if isinstance(e, StopSummarized))
        assert summary.by_model and summary.outward == 1
        assert light.requests[0].tools == () and light.requests[0].purpose == "summary"

    async def test_a_plain_summary_when_no_model_answers(self, make_run):
        light = ScriptedModel([Reply(error=ModelError(ModelErrorKind.NETWORK, "down"))])
        result, _events = await self._stopped_after_sending(make_run, light)
        assert result.answer.startswith("Stopped after")
        assert "sim_send(text=on my way)" in result.answer and "cannot be undone" in result.answer

    async def test_quiet_before_anything_was_done(self, make_run):
        light = ScriptedModel([])
        main = ScriptedModel([Reply(text="never", delay=10)])
        run = make_run(main, light=light)
        task = asyncio.create_task(run.run())
        while not main.requests:
            await asyncio.sleep(0.01)
        run.cancel()
        result = await asyncio.wait_for(task, 5)
        assert result.answer == "Stopped before anything was done." and light.requests == []


class TestGrounding:
    async def test_facts_not_read_are_recorded_and_sent_back_with_the_switch(self, make_run):
        main = ScriptedModel(
            [
                Reply.call("sim_launch", app="Shop"),
                Reply.call("sim_read"),
                "Order K-7731 costs ¥99.5.",
                "I could not find that order on the screen.",
            ]
        )
        run = make_run(main, review_final_answer=True)
        events = _events(run)
        result = await run.run()
        assert "not found in anything read" in main.requests[3].messages[-1].text
        assert "K-7731" in main.requests[3].messages[-1].text
        assert result.answer.startswith("I could not find")
        assert [e.grounded for e in events if isinstance(e, GroundingChecked)] == [True]

    async def test_recorded_but_not_sent_back_with_the_switch_off(self, make_run):
        main = ScriptedModel(
            [Reply.call("sim_launch", app="Shop"), Reply.call("sim_read"), "Order K-7731 costs ¥99.5."]
        )
        run = make_run(main)
        events = _events(run)
        result = await run.run()
        assert result.answer == "Order K-7731 costs ¥99.5." and len(main.requests) == 3
        check = next(e for e in events if isinstance(e, GroundingChecked))
        assert not check.grounded and "K-7731" in check.unsupported

    async def test_quiet_when_every_fact_was_read(self, make_run, world):
        main = ScriptedModel(
            [Reply.call("sim_launch", app="Shop"), Reply.call("sim_read"), "Shop item 3 is listed first."]
        )
        run = make_run(main, review_final_answer=True)
        events = _events(run)
        await run.run()
        assert [e.grounded for e in events if isinstance(e, GroundingChecked)] == [True] and len(main.requests) == 3


async def test_a_short_answer_does_not_change_the_language_wanted(make_run):
    model = ScriptedModel(
        [Reply.call("ask_user", question="哪个尺码？", options=["S", "M"]), "Size M is in stock.", "M 码有货。"]
    )
    run = make_run(model, attendance=Attendance.PRESENT, goal="帮我看看这件衣服有没有货")
    _answering(run, "M")
    result = await asyncio.wait_for(run.run(), 5)
    assert result.answer == "M 码有货。"


class TestStepBudget:
    async def test_a_budgeted_run_gets_a_progress_check_and_a_last_round_told_to_end(self, make_run):
        steps = [Reply.call("sim_launch", app="Shop")] + [Reply.call("sim_tap", label=f"Item {i}") for i in range(4)]
        model = ScriptedModel([*steps, Reply.call("end_not_done", subtype="blocked", message="Ran out of steps.")])
        result = await make_run(model, budget=6).run()
        assert result.status is OutcomeStatus.NOT_DONE
        checks = [i for i, r in enumerate(model.requests) if "Progress check: 3 of 6" in r.messages[-1].text]
        assert checks == [3]
        # The last step keeps the tools (the cached prefix holds) and says it is the last.
        assert model.requests[5].tools == model.requests[4].tools and len(model.requests[5].tools) > 1
        assert "This is the last step of the step budget" in model.requests[5].messages[-1].text
        assert not any("This is the last step" in r.messages[-1].text for r in model.requests[:5])

    async def test_quiet_without_a_budget(self, make_run):
        steps = [Reply.call("sim_launch", app="Shop")] + [Reply.call("sim_tap", label=f"Item {i}") for i in range(6)]
        model = ScriptedModel([*steps, Reply.call("sim_read"), "ok"])
        await make_run(model).run()
        assert not any("Progress check" in r.messages[-1].text for r in model.requests)
        assert all(len(r.tools) > 1 for r in model.requests)
