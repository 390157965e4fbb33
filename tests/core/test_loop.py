"""End-to-end runs of the real loop with a scripted model and the toy capability."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mika.model.errors import ModelError, ModelErrorKind
from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply, ScriptedModel
from mika.record.events import ConfirmationAsked, QuestionAsked, RunEvent
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin


def _events(run) -> list[RunEvent]:
    seen: list[RunEvent] = []
    run.subscribe(seen.append)
    return seen


def _record(run) -> tuple[dict, list[dict]]:
    d = Path(run.result.record_dir)
    summary = json.loads((d / "run.json").read_text())
    events = [json.loads(line) for line in (d / "events.jsonl").read_text().splitlines()]
    return summary, events


class TestAnswers:
    async def test_a_reply_without_tool_calls_is_the_answer(self, make_run):
        run = make_run(ScriptedModel(["The answer is 42."]))
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        assert result.answer == "The answer is 42."
        assert result.steps == 1
        summary, events = _record(run)
        assert summary["state"] == "ended" and summary["outcome"] == "answered"
        assert [e["type"] for e in events if e["type"] != "phase"][-1] == "outcome"
        assert summary["metrics"]["model_round_trips"] == 1

    async def test_end_not_done_ends_with_its_message(self, make_run):
        model = ScriptedModel(
            [Reply.call("end_not_done", subtype="blocked", message="Opened the shop; the item is sold out.")]
        )
        result = await make_run(model).run()
        assert result.status is OutcomeStatus.NOT_DONE
        assert result.subtype == "blocked"
        assert result.answer == "Opened the shop; the item is sold out."

    async def test_an_empty_reply_is_reminded_once_then_accepted(self, make_run):
        model = ScriptedModel(["", ""])
        result = await make_run(model).run()
        assert result.status is OutcomeStatus.ANSWERED
        assert len(model.requests) == 2
        assert "empty or cut off" in model.requests[1].messages[-1].text

    async def test_sources_come_from_what_was_read(self, make_run, world):
        world.screen = "Order 7731 shipped on Monday"
        model = ScriptedModel(
            [Reply.call("toy_open", page=world.screen), Reply.call("toy_read"), "Order 7731 shipped on Monday."]
        )
        run = make_run(model)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        assert result.sources and "7731" in result.sources[0]["text"]
        assert result.sources[0]["text"].startswith('<untrusted source="toy" app="com.toy.shop">\n')


class TestSteering:
    async def test_a_steer_cancels_the_request_in_flight_and_reasks(self, make_run):
        model = ScriptedModel([Reply(text="stale answer", delay=5), "Fresh answer with the blue one."])
        run = make_run(model)
        events = _events(run)
        task = asyncio.create_task(run.run())
        while not model.requests:
            await asyncio.sleep(0.01)
        assert run.steer("make it the blue one")
        result = await asyncio.wait_for(task, 3)
        assert result.answer == "Fresh answer with the blue one."
        second = model.requests[1]
        assert "The user adds: make it the blue one" in second.messages[-1].text
        # The cancelled attempt left nothing in the history.
        assert all("stale answer" not in m.text for m in second.messages)
        assert any(e.type == "model_cancelled" for e in events)
        states = [(e.kind, e.state) for e in events if e.type == "user_input"]
        assert states == [("steer", "received"), ("steer", "consumed")]

    async def test_a_steer_ends_an_interruptible_wait_early(self, make_run):
        model = ScriptedModel([Reply.call("wait", seconds=30), "ok, switching"])
        run = make_run(model)
        waiting = asyncio.Event()

        async def wait_sleep(seconds: float) -> None:
            waiting.set()  # the `wait` tool's interruptible wait has begun
            await asyncio.sleep(seconds)

        def watch_the_wait(_event) -> None:
            # The run builds its tool context when it starts; its sleep is the wait's seam.
            loop = getattr(run, "loop", None)
            if loop is not None:
                loop.ctx.sleep = wait_sleep

        run.subscribe(watch_the_wait)
        task = asyncio.create_task(run.run())
        await asyncio.wait_for(waiting.wait(), 3)
        run.steer("stop waiting")
        result = await asyncio.wait_for(task, 3)
        assert result.answer == "ok, switching"
        results = [p for p in model.requests[1].messages[-1].parts if isinstance(p, ToolResult)]
        assert results[0].text.startswith("[skipped_for_new_message]")
        assert "The user adds: stop waiting" in model.requests[1].messages[-1].text

    async def test_a_tool_call_inside_the_executor_finishes_and_is_recorded(self, make_run, world):
        world.tap_delay = 0.3
        model = ScriptedModel([Reply.call("toy_open", page="Shop"), Reply.call("toy_tap", label="Red"), "done"])
        run = make_run(model)
        events = _events(run)
        task = asyncio.create_task(run.run())
        while not any(e.type == "tool_call" and e.name == "toy_tap" for e in events):
            await asyncio.sleep(0.01)
        run.steer("also pick a hat")
        result = await asyncio.wait_for(task, 3)
        assert world.taps == ["Red"]
        finished = [e for e in events if e.type == "tool_result" and e.name == "toy_tap"]
        assert finished and finished[0].ok
        assert result.status is OutcomeStatus.ANSWERED
        assert "also pick a hat" in model.requests[2].messages[-1].text

    async def test_a_steer_at_the_last_moment_keeps_the_run_going(self, make_run):
        run = None

        def reply(request):
            # The first answer comes back while a steer lands: the loop must not close.
            if len(model.requests) == 1:
                run.steer("one more thing")
                return "first answer"
            return "second answer"

        model = FunctionModel(reply)
        run = make_run(model)
        result = await run.run()
        assert result.answer == "second answer"
        assert len(model.requests) == 2

    async def test_steers_unread_at_the_end_become_the_next_task(self, make_run):
        model = ScriptedModel([Reply.call("end_not_done", subtype="blocked", message="stuck")])
        run = make_run(model)
        await run.run()
        assert not run.steer("too late")  # the inbox is closed after the run
        assert run.result.unconsumed == ()


class TestCancel:
    async def test_cancel_while_waiting_for_an_answer_stops_and_closes_the_record(self, make_run):
        model = ScriptedModel([Reply.call("ask_user", question="Which size?", options=["S", "M"])])
        run = make_run(model, attendance=Attendance.PRESENT, origin=RunOrigin.UI)
        events = _events(run)
        task = asyncio.create_task(run.run())
        while not any(isinstance(e, QuestionAsked) for e in events):
            await asyncio.sleep(0.01)
        run.cancel()
        result = await asyncio.wait_for(task, 3)
        assert result.status is OutcomeStatus.STOPPED
        summary, recorded = _record(run)
        assert summary["state"] == "ended" and summary["outcome"] == "stopped"
        assert [e["type"] for e in recorded if e["type"] != "phase"][-1] == "outcome"

    async def test_cancel_during_a_model_call(self, make_run):
        model = ScriptedModel([Reply(text="never", delay=10)])
        run = make_run(model)
        task = asyncio.create_task(run.run())
        while not model.requests:
            await asyncio.sleep(0.01)
        run.cancel()
        result = await asyncio.wait_for(task, 3)
        assert result.status is OutcomeStatus.STOPPED

    async def test_an_answered_question_reaches_the_model(self, make_run):
        model = ScriptedModel([Reply.call("ask_user", question="Which size?", options=["S", "M"]), "Size M it is."])
        run = make_run(model, attendance=Attendance.PRESENT, origin=RunOrigin.UI)
        run.subscribe(
            lambda e: (
                isinstance(e, QuestionAsked) and asyncio.get_running_loop().call_soon(run.answer, e.question_id, "M")
            )
        )
        result = await asyncio.wait_for(run.run(), 3)
        assert result.answer == "Size M it is."
        assert model.requests[1].messages[-1].tool_results[0].text == "The user answered: M"


class TestPayment:
    async def test_a_payment_step_is_refused_when_nobody_can_approve(self, make_run, world):
        world.screen = "Checkout · Total ¥23.50 · Place order"
        model = ScriptedModel(
            [
                Reply.call("toy_open", page=world.screen),
                Reply.call("toy_tap", label="Place order"),
                Reply.call("end_not_done", subtype="blocked", message="Stopped before paying."),
            ]
        )
        run = make_run(model)
        events = _events(run)
        result = await run.run()
        assert world.taps == []
        assert result.status is OutcomeStatus.NOT_DONE
        refused = [e for e in events if e.type == "tool_result" and e.name == "toy_tap"]
        assert refused[0].code == "approval_unavailable"
        approvals = [e for e in events if e.type == "approval"]
        assert approvals[0].decision == "approval_unavailable" and approvals[0].amount == "¥23.50"
        assert "request_confirmation" not in [t.name for t in model.requests[-1].tools]

    async def test_a_consent_releases_exactly_one_matching_action(self, make_run, world):
        world.screen = "Checkout · Total ¥23.50 · Place order"
        model = ScriptedModel(
            [
                Reply.call("toy_open", page=world.screen),
                Reply.call("toy_tap", label="Place order"),
                Reply.call("request_confirmation", what="1 coffee beans", amount="¥23.50", app="com.toy.shop"),
                Reply.call("toy_tap", label="Place order"),
                Reply.call("toy_tap", label="Place order"),
                "Ordered.",
            ]
        )
        run = make_run(model, attendance=Attendance.PRESENT, origin=RunOrigin.UI)
        events = _events(run)
        run.subscribe(
            lambda e: (
                isinstance(e, ConfirmationAsked)
                and asyncio.get_running_loop().call_soon(run.confirm, e.question_id, True)
            )
        )
        await asyncio.wait_for(run.run(), 5)
        codes = [e.code for e in events if e.type == "tool_result" and e.name == "toy_tap"]
        assert codes == ["confirmation_required", "done", "confirmation_required"]
        assert world.taps == ["Place order"]

    async def test_request_confirmation_without_an_amount_is_refused(self, make_run, world):
        model = ScriptedModel([Reply.call("request_confirmation", what="beans", amount="the usual price"), "ok"])
        run = make_run(model, attendance=Attendance.PRESENT, origin=RunOrigin.UI)
        events = _events(run)
        await run.run()
        assert not any(isinstance(e, ConfirmationAsked) for e in events)
        assert [e.code for e in events if e.type == "tool_result"] == ["amount_required"]

    async def test_the_final_pay_is_handed_to_the_user(self, make_run, world):
        world.screen = "Pay ¥23.50"
        model = ScriptedModel(
            [Reply.call("toy_open", page=world.screen), Reply.call("toy_tap", label="Pay"), "handing over"]
        )
        run = make_run(model, attendance=Attendance.PRESENT, origin=RunOrigin.UI)
        events = _events(run)
        await run.run()
        assert world.taps == []
        assert [e.code for e in events if e.type == "tool_result" and e.name == "toy_tap"] == ["pay_by_user"]

    async def test_autonomous_mode_lifts_the_gate(self, make_run, world):
        world.screen = "Checkout · Total ¥23.50 · Place order"
        model = ScriptedModel(
            [Reply.call("toy_open", page=world.screen), Reply.call("toy_tap", label="Place order"), "ok"]
        )
        await make_run(model, autonomous=True).run()
        assert world.taps == ["Place order"]

    async def test_sending_is_not_asked(self, make_run, world):
        world.screen = "Chat with Alice · Send"
        model = ScriptedModel([Reply.call("toy_open", page=world.screen), Reply.call("toy_tap", label="Send"), "sent"])
        await make_run(model).run()
        assert world.taps == ["Send"]


class TestToolGroups:
    async def test_a_group_unfolds_on_first_use_changing_only_its_part(self, make_run):
        model = ScriptedModel([Reply.call("toy_open", page="Shop"), "done"])
        run = make_run(model)
        events = _events(run)
        await run.run()
        first, second = (list(r.tools) for r in model.requests)
        names1, names2 = [t.name for t in first], [t.name for t in second]
        assert "toy_open" in names1 and "toy_tap" not in names1
        assert {"toy_tap", "toy_read"} <= set(names2)
        i = names1.index("toy_open")
        assert first[:i] == second[:i]  # everything before the group is unchanged
        assert first[i].description == "Open the toy shop." and second[i].description.endswith("(full text).")
        assert "The toy shop sells toys." not in model.requests[0].system
        assert "The toy shop sells toys." in model.requests[1].system
        assert [e.group for e in events if e.type == "tools_opened"] == ["toy"]
        assert run.result.groups_used == ("toy",)

    async def test_unattended_and_read_only_runs_lose_tools(self, make_run):
        model = ScriptedModel(["hi"])
        await make_run(model, read_only=True).run()
        names = [t.name for t in model.requests[0].tools]
        assert "ask_user" not in names and "toy_open" not in names and "end_not_done" in names


class TestRecord:
    async def test_the_record_is_redacted(self, make_run, world):
        secret = "sk-live-abcdefghijklmnopqrstuvwxyz0123456789"
        model = ScriptedModel([Reply.call("toy_open", page=f"token {secret}"), "ok"])
        run = make_run(model)
        await run.run()
        text = (Path(run.result.record_dir) / "events.jsonl").read_text()
        assert secret not in text
        assert "[redacted]" in text

    async def test_only_the_newest_30_runs_are_kept(self, make_run, tmp_path):
        for _ in range(32):
            await make_run(ScriptedModel(["ok"])).run()
        assert len(list((tmp_path / "runs").iterdir())) == 30
        assert len((tmp_path / "run-metrics.jsonl").read_text().splitlines()) == 32


class TestModelFailures:
    async def test_a_rate_limit_is_retried_then_answered(self, make_run):
        calls = []

        def reply(request):
            calls.append(1)
            if len(calls) == 1:
                return Reply(error=ModelError(ModelErrorKind.RATE_LIMITED, "slow down", retry_after=0.01))
            return "fine now"

        result = await make_run(FunctionModel(reply)).run()
        assert result.answer == "fine now" and len(calls) == 2

    async def test_an_auth_error_fails_at_once(self, make_run):
        model = ScriptedModel([Reply(error=ModelError(ModelErrorKind.AUTH, "invalid x-api-key", status=401))])
        result = await make_run(model).run()
        assert result.status is OutcomeStatus.FAILED and result.subtype == "auth"
        assert "API key" in result.answer

    async def test_the_step_budget_ends_the_run(self, make_run):
        model = ScriptedModel([Reply.call("wait", seconds=0), Reply.call("wait", seconds=0), "never"])
        result = await make_run(model, budget=2).run()
        assert result.status is OutcomeStatus.BUDGET_EXHAUSTED

    async def test_repeating_the_same_action_is_stopped(self, make_run):
        model = ScriptedModel([Reply.call("toy_read")] * 6)
        result = await make_run(model).run()
        assert result.status is OutcomeStatus.FAILED and result.subtype == "repeated_action"


async def test_groups_the_last_turn_used_are_open_from_the_start(tmp_path, world):
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.run.task_run import RunOptions, TaskRun
    from mika.runtypes.spec import RunProvenance, RunSpec
    from tests.core.toy import ToyCapability

    spec = RunSpec(
        goal="again", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED), preload_groups=("toy",)
    )
    model = ScriptedModel(["ok"])
    run = TaskRun(
        spec,
        model,
        capabilities_for(spec, RunEnvironment(extra=[ToyCapability(world)])),
        RunOptions(pacing=False, state_dir=tmp_path),
    )
    events = _events(run)
    await run.run()
    assert "toy_tap" in [t.name for t in model.requests[0].tools]
    assert [(e.group, e.preloaded) for e in events if e.type == "tools_opened"] == [("toy", True)]


async def test_an_answer_given_the_instant_the_card_appears_is_not_lost(make_run, world):
    world.screen = "Checkout · Total ¥23.50 · Place order"
    model = ScriptedModel(
        [
            Reply.call("request_confirmation", what="beans", amount="¥23.50", app="com.toy.shop"),
            Reply.call("ask_user", question="Gift wrap?"),
            "done",
        ]
    )
    run = make_run(model, attendance=Attendance.PRESENT, origin=RunOrigin.UI)
    # Answered synchronously inside the event callback, before the tool awaits.
    run.subscribe(lambda e: isinstance(e, ConfirmationAsked) and run.confirm(e.question_id, True))
    run.subscribe(lambda e: isinstance(e, QuestionAsked) and run.answer(e.question_id, "no"))
    result = await asyncio.wait_for(run.run(), 3)
    assert result.answer == "done"
