"""`mika --no-ui` with a person at the terminal: the approval card is asked on stderr and
only a "y" releases the one payment step; "n", an empty line, other words or the end of
input refuse it (exit 5, nothing paid). In-process on the toy shop, and the real CLI
against the simulated shop's cart (¥23.50), where "paid" needs the person's yes."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.config.language import set_language
from mika.exit_codes import ExitCode
from mika.headless import run_headless
from mika.model.testing import Reply, ScriptedModel
from mika.run.task_run import RunOptions, TaskRun
from tests.core.toy import ToyCapability, ToyWorld
from tests.mcp_server.mcp_client import server_env, shop_numbers
from tests.trigger.test_sched_serve import ROOT

SCREEN = "Checkout · Green Tea 250g × 1 · Total ¥23.50 · Place order"


@pytest.fixture
def english():
    set_language("en")
    yield
    set_language(None)


def _factory(tmp_path, world):
    model = ScriptedModel(
        [
            Reply.call("toy_open", page=world.screen),
            Reply.call("toy_tap", label="Place order"),  # held: asks for consent
            Reply.call("request_confirmation", what="Green Tea", amount="¥23.50", app="com.toy.shop"),
            Reply.call("toy_tap", label="Place order"),
            "Ordered.",
        ]
    )

    def factory(spec):
        caps = capabilities_for(spec, RunEnvironment(extra=[ToyCapability(world)]))
        return TaskRun(spec, model, caps, RunOptions(state_dir=tmp_path, pacing=False))

    return factory


async def test_a_yes_at_the_terminal_releases_the_one_step(tmp_path, english):
    world = ToyWorld(screen=SCREEN)
    out, err = io.StringIO(), io.StringIO()
    outcome = await run_headless(
        "buy the tea", _factory(tmp_path, world), tmp_path, out=out, err=err, person=io.StringIO("y\n")
    )
    assert world.taps == ["Place order"]
    assert outcome.exit_code is ExitCode.DONE, err.getvalue()
    asked = err.getvalue()
    assert "Green Tea 250g × 1" in asked and "¥23.50" in asked and "Allow this once? [y/N]" in asked
    assert "Allowed once." in asked
    assert out.getvalue() == "Ordered.\n"  # stdout stays data only


@pytest.mark.parametrize("answer", ["n\n", "\n", "sure\n", "yes please\n", "", "y es\n"])
async def test_anything_but_a_yes_refuses(tmp_path, english, answer):
    world = ToyWorld(screen=SCREEN)
    err = io.StringIO()
    outcome = await run_headless(
        "buy the tea", _factory(tmp_path, world), tmp_path, out=io.StringIO(), err=err, person=io.StringIO(answer)
    )
    assert world.taps == []
    assert outcome.exit_code is ExitCode.APPROVAL
    assert "Not allowed: nothing was done." in err.getvalue()


async def test_the_card_speaks_chinese_and_takes_a_chinese_yes(tmp_path):
    set_language("zh")
    try:
        world = ToyWorld(screen=SCREEN)
        err = io.StringIO()
        outcome = await run_headless(
            "买茶", _factory(tmp_path, world), tmp_path, out=io.StringIO(), err=err, person=io.StringIO("是\n")
        )
    finally:
        set_language(None)
    assert world.taps == ["Place order"] and outcome.exit_code is ExitCode.DONE
    assert "只允许这一次吗" in err.getvalue()


async def test_a_screen_label_cannot_write_to_the_terminal(tmp_path, english):
    # The item is the app's text: its escape sequences are shown defused, never sent.
    world = ToyWorld(screen="Checkout · Tea\x1b]0;pwned\x07\x1b[2J × 1 · Total ¥23.50 · Place order")
    err = io.StringIO()
    await run_headless(
        "buy the tea", _factory(tmp_path, world), tmp_path, out=io.StringIO(), err=err, person=io.StringIO("n\n")
    )
    assert "\x1b" not in err.getvalue() and "\x07" not in err.getvalue()


def _cli(tmp_path, serial: str, model: str, answer: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mika.cli", "--device", serial, "--model", model, "run", "--ask", "buy the tea"],
        input=answer,
        capture_output=True,
        text=True,
        timeout=120,
        env=server_env(tmp_path),
        cwd=ROOT,
    )


@pytest.mark.parametrize(("answer", "reached"), [("y\n", True), ("n\n", False)])
async def test_on_the_simulated_shop_the_checkout_needs_the_persons_yes(tmp_path, sim_phone_factory, answer, reached):
    cart, checkout = await shop_numbers(sim_phone_factory)
    phone = sim_phone_factory(scenario="shop_cart")
    tap = {"tool_calls": [{"name": "phone_tap", "arguments": {"element": checkout}}]}
    consent = {"name": "request_confirmation", "arguments": {"what": "Green Tea", "amount": "¥23.50"}}
    replies = [
        {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "Shop"}}]},
        {"tool_calls": [{"name": "phone_tap", "arguments": {"element": cart}}]},
        tap,
        {"tool_calls": [consent]},
        tap,
        "Opened the checkout.",
    ]
    model = tmp_path / "model.json"
    model.write_text(json.dumps(replies))
    done = await asyncio.to_thread(_cli, tmp_path, phone.serial, f"script:{model}", answer)
    state = phone.device.world.state()["shop"]
    assert bool(state.get("checkout_reached")) is reached, done.stderr
    assert done.returncode == (ExitCode.DONE.value if reached else ExitCode.APPROVAL.value), done.stderr
    assert "Allow this once? [y/N]" in done.stderr and "¥23.50" in done.stderr
    assert not state.get("orders"), "the final Pay is the person's own, never Mika's"
