"""The sandbox's bridge to the phone (issue 20): `mika phone <op> '<json>'` inside a real
bubblewrap command reaches the run's phone tools on the simulated phone (real adb server)
through the single action entry, recorded with origin "sandbox"; every way around it —
another command's token, a token kept past its command, unknown or non-callable ops, a
payment step, too many calls, no phone at all — is refused with a clear message."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from mika.cap.sandbox.bridge import SandboxBridge
from tests.sandbox.bridge_setup import bridge_run, phone_capability


def number_of(text: str, label_start: str) -> int:
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            row = json.loads(line)
            if str(row.get("label", "")).startswith(label_start):
                return int(row["n"])
    raise AssertionError(f"no element starting {label_start!r} in:\n{text}")


async def test_dump_and_tap_reach_the_phone_and_are_recorded_as_sandbox_calls(cap, sim_phone):
    run = bridge_run(cap, phone_capability(sim_phone))
    dump = await run.command("mika phone dump '{}'")
    assert dump.ok, dump.text
    settings = number_of(dump.text, "Settings")
    tap = await run.command(f"mika phone tap '{{\"element\": {settings}}}' && mika phone dump '{{}}'")
    assert tap.ok, tap.text
    assert "· com.android.settings" in tap.text, tap.text[:400]
    assert "Network & internet" in tap.text
    calls = run.calls()
    assert [c.name for c in calls] == ["phone_list_elements", "phone_tap", "phone_list_elements"]
    assert all(c.origin == "sandbox" for c in calls)
    # The model's own call is recorded as the model's: the bridge's are told apart.
    assert [c.name for c in run.calls("model")] == ["run_command", "run_command"]


async def test_help_lists_the_callable_ops_only(cap, sim_phone):
    run = bridge_run(cap, phone_capability(sim_phone))
    out = await run.command("mika phone --help")
    assert out.ok, out.text
    for op in ("dump", "tap", "launch", "key", "type"):
        assert f"  {op} " in out.text or f"  {op}\n" in out.text, out.text


async def test_unknown_and_not_callable_ops_are_refused_by_name(cap, sim_phone):
    run = bridge_run(cap, phone_capability(sim_phone))
    out = await run.command("mika phone fly '{}'; echo rc=$?")
    assert "no op 'fly'" in out.text and "rc=2" in out.text
    # A phone tool that is not declared sandbox_callable: named, and not run.
    out = await run.command('mika phone phone_system_command \'{"command": "reboot"}\'; echo rc=$?')
    assert "rc=2" in out.text
    assert "can't be called from the sandbox" in out.text or "no op" in out.text
    assert run.calls() == []


async def test_arguments_must_be_a_json_object(cap, sim_phone):
    run = bridge_run(cap, phone_capability(sim_phone))
    out = await run.command("mika phone tap '[1, 2]'; echo rc=$?; mika phone tap 'not json'; echo rc=$?")
    assert out.text.count("rc=2") == 2, out.text
    assert run.calls() == []


async def test_a_token_is_good_only_while_its_command_runs(cap, sim_phone):
    run = bridge_run(cap, phone_capability(sim_phone))
    # The first command keeps its socket path and token in the workspace...
    keep = await run.command('printf "%s\\n%s\\n" "$MIKA_BRIDGE" "$MIKA_BRIDGE_TOKEN" > kept.txt; ls /run/mika/bridge')
    assert keep.ok and "bridge.sock" in keep.text
    # ...a later command uses them: the old socket is gone, and the old token does not open the
    # new command's socket either.
    reuse = await run.command(
        'MIKA_BRIDGE="$(sed -n 1p kept.txt)" MIKA_BRIDGE_TOKEN="$(sed -n 2p kept.txt)" mika phone dump "{}"; echo rc=$?;'
        ' MIKA_BRIDGE_TOKEN="$(sed -n 2p kept.txt)" mika phone dump "{}"; echo rc=$?'
    )
    assert reuse.text.count("rc=2") == 2, reuse.text
    assert "wrong token" in reuse.text
    # Forged by hand: no token at all, a made-up one.
    forged = await run.command(
        "python3 -c \"import json,os,socket; s=socket.socket(socket.AF_UNIX); s.connect(os.environ['MIKA_BRIDGE']);"
        " s.sendall(json.dumps({'token':'x'*43,'op':'dump','args':{}}).encode()+b'\\n'); print(s.recv(4096).decode())\""
    )
    assert '"bad_token"' in forged.text, forged.text
    assert run.calls() == []


async def test_the_socket_is_not_left_behind(cap, sim_phone):
    bridge = SandboxBridge()
    run = bridge_run(cap, phone_capability(sim_phone), bridge=bridge)
    out = await run.command("echo $MIKA_BRIDGE")
    assert out.ok and "/run/mika/bridge/bridge.sock" in out.text
    left = list(Path(tempfile.gettempdir()).glob("mika-bridge-*"))  # noqa: ASYNC240 -- a test reading a tmp folder once
    assert left == [], left


async def test_calls_per_command_are_capped(cap, sim_phone):
    run = bridge_run(cap, phone_capability(sim_phone), bridge=SandboxBridge(calls_max=2))
    out = await run.command("for i in 1 2 3; do mika phone dump '{}' > /dev/null; echo rc=$?; done")
    assert out.text.count("rc=0") == 2 and out.text.count("rc=2") == 1, out.text
    assert "2 calls" in out.text
    # The cap is per command: the next one may call again.
    again = await run.command("mika phone dump '{}' > /dev/null; echo rc=$?")
    assert "rc=0" in again.text


async def test_no_phone_no_bridge(cap):
    run = bridge_run(cap, None)
    out = await run.command("mika phone dump '{}'; echo rc=$?")
    assert "rc=2" in out.text
    assert "no phone" in out.text


async def test_a_payment_step_through_the_bridge_is_refused(cap, sim_phone):
    run = bridge_run(cap, phone_capability(sim_phone))
    opened = await run.command("mika phone launch '{\"app\": \"Shop\"}' > /dev/null && mika phone dump '{}'")
    assert opened.ok, opened.text
    cart = number_of(opened.text, "Cart,")
    at_cart = await run.command(f"mika phone tap '{{\"element\": {cart}}}' > /dev/null && mika phone dump '{{}}'")
    checkout = number_of(at_cart.text, "Checkout")
    out = await run.command(f"mika phone tap '{{\"element\": {checkout}}}'; echo rc=$?")
    assert "rc=2" in out.text, out.text
    shop = sim_phone.device.world.state()["shop"]
    assert not shop.get("checkout_reached") and not shop.get("pay_reached") and not shop.get("orders")
    refused = [r for r in run.results("phone_tap") if not r.ok]
    assert refused, "the refused tap is in the run record"
