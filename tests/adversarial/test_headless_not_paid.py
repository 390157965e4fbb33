"""Headless: a run during which a payment step was refused or could not be approved
exits 5 even when the model then claims success, and the answer printed says nothing
was paid — in text, json and stream-json, English and Chinese."""

from __future__ import annotations

import io
import json

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.config.language import set_language
from mika.exit_codes import ExitCode
from mika.headless import run_headless
from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply, ScriptedModel
from mika.run.task_run import RunOptions, TaskRun
from tests.core.toy import ToyCapability, ToyWorld
from tests.phone.driver import number_for

CLAIM = "Done! I paid ¥23.50 and the tea is on its way."


def toy_factory(tmp_path, world):
    model = ScriptedModel(
        [
            Reply.call("toy_open", page=world.screen),
            Reply.call("toy_tap", label="Place order"),
            CLAIM,  # the model claims success after the refusal
        ]
    )

    def factory(spec):
        caps = capabilities_for(spec, RunEnvironment(extra=[ToyCapability(world)]))
        return TaskRun(spec, model, caps, RunOptions(state_dir=tmp_path, pacing=False))

    return factory


@pytest.fixture
def english():
    set_language("en")
    yield
    set_language(None)


async def test_text_a_claimed_success_after_a_refused_payment_exits_5_saying_not_paid(tmp_path, english):
    world = ToyWorld(screen="Checkout · Total ¥23.50 · Place order")
    out, err = io.StringIO(), io.StringIO()
    outcome = await run_headless("buy the tea", toy_factory(tmp_path, world), tmp_path, out=out, err=err)
    assert outcome.exit_code is ExitCode.APPROVAL
    assert world.taps == []
    printed = out.getvalue()
    assert printed.startswith(CLAIM)
    assert "Not paid" in printed and "nothing was paid" in printed


async def test_json_result_says_not_paid(tmp_path, english):
    world = ToyWorld(screen="Checkout · Total ¥23.50 · Place order")
    out = io.StringIO()
    outcome = await run_headless(
        "buy the tea", toy_factory(tmp_path, world), tmp_path, fmt="json", out=out, err=io.StringIO()
    )
    assert outcome.exit_code is ExitCode.APPROVAL
    result = json.loads(out.getvalue())
    assert result["type"] == "result" and result["not_paid"] is True
    assert result["answer"].startswith(CLAIM) and "Not paid" in result["answer"]


async def test_stream_json_carries_the_refusal_and_a_not_paid_result(tmp_path, english):
    world = ToyWorld(screen="Checkout · Total ¥23.50 · Place order")
    out = io.StringIO()
    outcome = await run_headless(
        "buy the tea", toy_factory(tmp_path, world), tmp_path, fmt="stream-json", out=out, err=io.StringIO()
    )
    assert outcome.exit_code is ExitCode.APPROVAL
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    approvals = [x for x in lines if x["type"] == "approval"]
    assert approvals and approvals[0]["decision"] == "approval_unavailable" and approvals[0]["amount"] == "¥23.50"
    final = lines[-1]
    assert final["type"] == "result" and final["not_paid"] is True and "Not paid" in final["answer"]


async def test_the_not_paid_sentence_speaks_chinese(tmp_path):
    set_language("zh")
    try:
        world = ToyWorld(screen="结算 · 实付 ¥23.50 · 提交订单")
        model = ScriptedModel(
            [Reply.call("toy_open", page=world.screen), Reply.call("toy_tap", label="提交订单"), "已经付款成功！"]
        )

        def factory(spec):
            caps = capabilities_for(spec, RunEnvironment(extra=[ToyCapability(world)]))
            return TaskRun(spec, model, caps, RunOptions(state_dir=tmp_path, pacing=False))

        out = io.StringIO()
        outcome = await run_headless("买茶", factory, tmp_path, out=out, err=io.StringIO())
    finally:
        set_language(None)
    assert outcome.exit_code is ExitCode.APPROVAL
    assert "未付款" in out.getvalue()


async def test_a_run_that_gives_up_after_the_refusal_says_not_paid_on_stderr(tmp_path, english):
    world = ToyWorld(screen="Checkout · Total ¥23.50 · Place order")
    model = ScriptedModel(
        [
            Reply.call("toy_open", page=world.screen),
            Reply.call("toy_tap", label="Place order"),
            Reply.call("end_not_done", subtype="blocked", message="Placing the order needs you."),
        ]
    )

    def factory(spec):
        caps = capabilities_for(spec, RunEnvironment(extra=[ToyCapability(world)]))
        return TaskRun(spec, model, caps, RunOptions(state_dir=tmp_path, pacing=False))

    out, err = io.StringIO(), io.StringIO()
    outcome = await run_headless("buy the tea", factory, tmp_path, out=out, err=err)
    assert outcome.exit_code is ExitCode.APPROVAL
    assert out.getvalue() == ""
    assert "Not done: " in err.getvalue() and "Not paid" in err.getvalue()


async def test_a_run_without_a_payment_step_still_exits_0_with_the_plain_answer(tmp_path, english):
    world = ToyWorld(screen="Home · Settings")
    model = ScriptedModel(
        [Reply.call("toy_open", page=world.screen), Reply.call("toy_tap", label="Settings"), "Opened."]
    )

    def factory(spec):
        caps = capabilities_for(spec, RunEnvironment(extra=[ToyCapability(world)]))
        return TaskRun(spec, model, caps, RunOptions(state_dir=tmp_path, pacing=False))

    out = io.StringIO()
    outcome = await run_headless("open settings", factory, tmp_path, out=out, err=io.StringIO())
    assert outcome.exit_code is ExitCode.DONE
    assert out.getvalue() == "Opened.\n"


async def test_on_the_simulated_shop_a_refused_checkout_then_a_claim_exits_5(tmp_path, sim_phone_factory, english):
    """The whole way: the real phone layer, the cart on the simulated shop, a point tap on
    Checkout refused, then the model says it paid."""
    phone = sim_phone_factory(scenario="shop_cart")
    seen: list[str] = []

    def reply(request):
        for part in request.messages[-1].parts if request.messages else ():
            if isinstance(part, ToolResult):
                seen.append(part.text)
        n = len(seen)
        if n == 0:
            return Reply.call("phone_launch_app", app="Shop")
        if n == 1:
            return Reply.call("phone_tap", element=number_for(seen[-1], "Cart,"))
        if n == 2:
            return Reply.call("phone_tap", x=540, y=2325)
        return CLAIM

    def factory(spec):
        port = AdbPort(phone.serial, phone.server.client(), backend="u2")
        caps = capabilities_for(spec, RunEnvironment(extra=[PhoneCapability(port)]))
        return TaskRun(spec, FunctionModel(reply), caps, RunOptions(state_dir=tmp_path, pacing=False))

    out, err = io.StringIO(), io.StringIO()
    outcome = await run_headless("buy the tea in my cart", factory, tmp_path, out=out, err=err)
    assert outcome.exit_code is ExitCode.APPROVAL, err.getvalue()
    assert "approval_unavailable" in err.getvalue()
    # The request names what the screen showed: the cart's item and total.
    assert (
        "payment step approval_unavailable: Green Tea 250g × 1 — ¥23.50 (Checkout) in com.mika.shop" in err.getvalue()
    )
    assert "Not paid" in out.getvalue()
    assert not phone.device.world.state()["shop"].get("checkout_reached")
