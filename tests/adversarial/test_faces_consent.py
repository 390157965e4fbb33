"""The faces that start runs nobody watches, against the simulated shop (¥23.50 in the
cart): a schedule fired by `mika serve`, and a headless `mika run` — real processes of the
real CLI, a scripted model. Each run types into the Checkout button (the focus tap of
issue 32); the shop must never reach the checkout, the record must hold the refusal, and
the headless run must exit 5. A replayed route hands its payment step over and the model's
own tap is refused. The sandbox bridge, `mika mcp` and a child run are tried in
tests/sandbox/test_bridge_guards.py, tests/mcp_server/test_mcp_payments.py and
tests/assembly/test_child_runs.py."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from mika.assembly import RunEnvironment, capabilities_for
from mika.exit_codes import ExitCode
from mika.model.retry import RetryPolicy
from mika.model.testing import FunctionModel, Reply, ScriptedModel
from mika.record.recorder import find_run, read_events
from mika.run.run_store import RunStore
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.mcp_server.mcp_client import server_env, shop_numbers
from tests.phone.test_fenced_results import default_cap
from tests.replay.test_routes_replay import events_of, make
from tests.trigger.test_sched_serve import ROOT, _done, _until

CLAIM = "Checked out the tea."


def _type_into_checkout(cart: int, checkout: int) -> list:
    return [
        {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "Shop"}}]},
        {"tool_calls": [{"name": "phone_tap", "arguments": {"element": cart}}]},
        {"tool_calls": [{"name": "phone_type_text", "arguments": {"element": checkout, "text": "1"}}]},
        CLAIM,
    ]


def _player(replies: list):
    """A model that plays `replies` (tool-call dicts or a final text) in order."""

    def reply(request):
        entry = replies.pop(0)
        if isinstance(entry, str):
            return entry
        return Reply.calls(*((c["name"], c["arguments"]) for c in entry["tool_calls"]))

    return FunctionModel(reply)


def _mika(tmp_path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "mika.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=server_env(tmp_path),
        cwd=ROOT,
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


def _serve_until_done(tmp_path, serial: str, model: str, trigger_id: str) -> None:
    serve = subprocess.Popen(
        [sys.executable, "-m", "mika.cli", "--device", serial, "serve", "--poll", "0.2", "--model", model],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(tmp_path),
        cwd=ROOT,
    )
    try:
        _until("the scheduled run", lambda: _done(tmp_path, trigger_id), serve)
    finally:
        serve.terminate()
        serve.communicate(timeout=60)


def _approvals(tmp_path, run_id: str) -> list[str]:
    run_dir = find_run(tmp_path / "state", run_id)
    assert run_dir is not None, f"no record of {run_id}"
    return [e["decision"] for e in read_events(run_dir) if e["type"] == "approval"]


def _shop(phone) -> dict:
    return phone.device.world.state()["shop"]


async def test_a_scheduled_run_under_serve_types_into_checkout_and_is_refused(tmp_path, sim_phone_factory):
    cart, checkout = await shop_numbers(sim_phone_factory)
    phone = sim_phone_factory(scenario="shop_cart")
    model = tmp_path / "model.json"
    model.write_text(json.dumps(_type_into_checkout(cart, checkout)))
    _mika(tmp_path, "schedule", "add", "--at", "+2s", "buy the tea in my cart")
    (row,) = json.loads(_mika(tmp_path, "schedule", "list", "--json").stdout)
    await asyncio.to_thread(_serve_until_done, tmp_path, phone.serial, f"script:{model}", row["id"])
    (record,) = [r for r in RunStore(tmp_path / "state").all() if r.goal == "buy the tea in my cart"]
    assert _approvals(tmp_path, record.run_id) == ["approval_unavailable"]
    state = _shop(phone)
    assert not state.get("checkout_reached") and not state.get("orders")


async def test_a_headless_run_typing_into_checkout_exits_5(tmp_path, sim_phone_factory):
    cart, checkout = await shop_numbers(sim_phone_factory)
    phone = sim_phone_factory(scenario="shop_cart")
    model = tmp_path / "model.json"
    model.write_text(json.dumps(_type_into_checkout(cart, checkout)))
    done = _mika(
        tmp_path, "--device", phone.serial, "--model", f"script:{model}", "--no-ui", "buy the tea", check=False
    )
    assert done.returncode == ExitCode.APPROVAL.value, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    state = _shop(phone)
    assert not state.get("checkout_reached") and not state.get("orders")


async def test_a_route_recorded_in_autonomous_mode_replays_under_the_rule_and_is_refused(tmp_path, sim_phone_factory):
    """A route recorded where the payment rule was lifted (`--autonomous`) holds the tap on
    Checkout; replayed in an ordinary unattended run, that step meets the
    gate like any other input and is refused."""

    cart, checkout = await shop_numbers(sim_phone_factory)
    phone = sim_phone_factory(scenario="shop_cart")
    goal = "open the shop's checkout"
    spec = RunSpec(goal=goal, provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED), conversation_id="c-r")
    opts = RunOptions(
        pacing=False,
        state_dir=tmp_path,
        retry=RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0),
        replay=True,
        judge_outcome=True,
        autonomous=True,
    )
    tap_checkout = {"tool_calls": [{"name": "phone_tap", "arguments": {"element": checkout}}]}
    replies = [*_type_into_checkout(cart, checkout)[:2], tap_checkout, "Opened the checkout."]

    caps = capabilities_for(spec, RunEnvironment(extra=[default_cap(phone)]))
    light = ScriptedModel(["done\nThe record shows it."] * 6)
    recording = TaskRun(spec, _player(replies), caps, opts, light=light)
    await recording.run()
    assert _shop(phone).get("checkout_reached"), "the autonomous run reached the checkout"
    assert len([e for e in events_of(recording) if e["type"] == "route_recorded"]) == 1

    replay_phone = sim_phone_factory(scenario="shop_cart", serial="replay")
    # The replay hands the payment step over (a route never replays one); the model it is
    # handed to taps Checkout itself, and that tap meets the gate.
    after = [tap_checkout, "I could not check out."]

    again = make(tmp_path, replay_phone, _player(after), goal, judge=False)
    await again.run()
    assert not _shop(replay_phone).get("checkout_reached") and not _shop(replay_phone).get("orders")
    events = events_of(again)
    (replayed,) = [e for e in events if e["type"] == "route_replayed"]
    assert replayed["done"] == 2 and replayed["handed_over_at"] == 3 and "payment step" in replayed["reason"]
    assert [e.get("decision") for e in events if e["type"] == "approval"] == ["approval_unavailable"]
