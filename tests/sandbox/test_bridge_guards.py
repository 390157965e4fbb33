"""What protects the user at the bridge: tokens good for one command only, a command can't
reach another's socket, the socket is gone when its command ends, oversize requests, and a
payment step sent through the bridge refused like the model's own (the sim shop)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from pathlib import Path

import pytest

from mika.action.confirmation import Consent
from mika.cap.sandbox.bridge import SandboxBridge
from mika.runtypes.spec import Attendance
from tests.sandbox.bridge_setup import RAW_CLIENT, bridge_run, element_number, last_json, phone_capability


class Watched(SandboxBridge):
    """The bridge, noting each command's socket folder on this machine (to look at it after)."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.folders: list[Path] = []

    @contextlib.asynccontextmanager
    async def extras(self, ctx):
        async with super().extras(ctx) as extra:
            self.folders.extend(b.host for b in extra.ro_binds)
            yield extra


@pytest.fixture
def phone(sim_phone):
    return phone_capability(sim_phone)


@pytest.fixture
def raw(workspace) -> str:
    (workspace.root / "raw.py").write_text(RAW_CLIENT)
    return "python3 /workspace/raw.py"


async def test_a_wrong_or_missing_token_is_refused(cap, phone, raw) -> None:
    run = bridge_run(cap, phone)
    out = await run.command(f"{raw} not-the-token")
    assert last_json(out.text)["code"] == "bad_token"
    out = await run.command(f"{raw} env")  # the right one works
    assert last_json(out.text)["ok"] is True
    out = await run.command("MIKA_BRIDGE_TOKEN= mika phone apps '{}'; echo rc=$?")
    assert "rc=2" in out.text
    assert [e.name for e in run.calls("sandbox")] == ["phone_list_apps"]


async def test_a_token_is_dead_after_its_command_and_the_socket_is_gone(cap, phone, raw, workspace) -> None:
    bridge = Watched()
    run = bridge_run(cap, phone, bridge=bridge)
    out = await run.command('printf %s "$MIKA_BRIDGE_TOKEN" > old.tok; ls -l /run/mika/bridge')
    assert "bridge.sock" in out.text
    old = (workspace.root / "old.tok").read_text()
    folder = bridge.folders[0]
    # Gone on this machine: nothing left to connect to, even with the token.
    assert not folder.exists()
    with socket.socket(socket.AF_UNIX) as s, pytest.raises((FileNotFoundError, ConnectionRefusedError)):
        s.connect(str(folder / "bridge.sock"))
    # The next command gets a new socket and token; the old token is refused there.
    out = await run.command(f'{raw} "$(cat old.tok)"')
    assert last_json(out.text)["code"] == "bad_token"
    assert bridge.folders[1] != folder and not bridge.folders[1].exists()
    assert old and run.calls("sandbox") == []


async def test_the_folder_is_private_while_the_command_runs(cap, phone, workspace) -> None:
    bridge = Watched()
    run = bridge_run(cap, phone, bridge=bridge)
    task = asyncio.ensure_future(run.command("touch started; while [ ! -e stop ]; do sleep 0.05; done"))
    try:
        await _until(lambda: (workspace.root / "started").exists())
        assert bridge.folders and (bridge.folders[0].stat().st_mode & 0o777) == 0o700
    finally:
        (workspace.root / "stop").touch()
        await task


async def test_a_second_command_cannot_use_the_first_ones_socket_or_token(port, workspace, phone, raw) -> None:
    from mika.cap.sandbox import SandboxCapability

    # Two sandboxes with the phone, commands alive at once, one bridge each.
    first_bridge, second_bridge = Watched(), Watched()
    first = bridge_run(SandboxCapability(port, workspace, cpu_seconds=30), phone, bridge=first_bridge)
    second = bridge_run(SandboxCapability(port, workspace, cpu_seconds=30), phone, bridge=second_bridge)
    a = asyncio.ensure_future(
        first.command('printf %s "$MIKA_BRIDGE_TOKEN" > a.tok; while [ ! -e b.done ]; do sleep 0.05; done')
    )
    try:
        await _until(lambda: (workspace.root / "a.tok").exists())
        # The second command's /run/mika/bridge is its own socket: the first's folder is not there.
        out = await second.command(f'ls -a /run/mika/bridge; {raw} "$(cat a.tok)"')
        assert last_json(out.text)["code"] == "bad_token", out.text
        assert first_bridge.folders[0] != second_bridge.folders[0]
        assert first_bridge.folders[0].exists()  # alive while its command runs
    finally:
        (workspace.root / "b.done").touch()
        await a
    assert first.calls("sandbox") == [] and second.calls("sandbox") == []


async def test_an_oversize_request_is_refused(cap, phone, raw, workspace) -> None:
    run = bridge_run(cap, phone)
    out = await run.command(f"{raw} env apps 70000")
    reply = last_json(out.text)
    assert reply["ok"] is False and reply["code"] == "oversize"
    (workspace.root / "big.json").write_text('{"text": "' + "x" * 70000 + '"}')
    out = await run.command("mika phone type - < big.json; echo rc=$?")
    assert "the bridge takes at most 65536" in out.text and "rc=2" in out.text
    assert run.calls("sandbox") == []


async def _to_the_cart(run) -> str:
    out = await run.command("mika phone launch '{\"app\": \"Shop\"}' && mika phone dump '{}'")
    assert out.ok, out.text
    cart = element_number(out.text, "Cart,", prefix=True)
    out = await run.command(f"mika phone tap '{{\"element\": {cart}}}' && mika phone dump '{{}}'")
    assert out.ok, out.text
    return out.text


@pytest.mark.parametrize("attended", [False, True])
async def test_a_payment_step_through_the_bridge_is_refused(cap, sim_phone_factory, attended) -> None:
    shop = sim_phone_factory(scenario="shop_cart")
    run = bridge_run(cap, phone_capability(shop), attendance=Attendance.PRESENT if attended else Attendance.UNATTENDED)
    listing = await _to_the_cart(run)
    checkout = element_number(listing, "Checkout")
    if attended:
        # The user agreed to this payment while watching: a consent the model could spend.
        gate = run.acting.approval.gate
        assert gate is not None
        gate.grant(Consent(app="com.mika.shop", kind="tap", amount="¥23.50", what="Checkout", step=run._n + 1))
    out = await run.command(f"mika phone tap '{{\"element\": {checkout}}}'; echo rc=$?")
    assert "rc=2" in out.text
    tap = run.results("phone_tap")[-1]
    assert not tap.ok and tap.code in ("approval_unavailable", "confirmation_required"), tap.code
    state = shop.device.world.state()["shop"]
    assert not state.get("checkout_reached") and not state.get("orders")
    approvals = [e.decision for e in run.events if getattr(e, "type", "") == "approval"]
    assert approvals and "released" not in approvals, approvals  # the consent was not spent on it
    if attended:
        assert tap.code == "confirmation_required"


async def test_autonomous_mode_lifts_the_payment_rule_for_the_bridge_too(cap, sim_phone_factory) -> None:
    shop = sim_phone_factory(scenario="shop_cart")
    run = bridge_run(cap, phone_capability(shop), autonomous=True)
    checkout = element_number(await _to_the_cart(run), "Checkout")
    out = await run.command(f"mika phone tap '{{\"element\": {checkout}}}'")
    assert out.ok, out.text
    assert shop.device.world.state()["shop"].get("checkout_reached")


async def _until(check, deadline: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    while not check():
        if loop.time() > end:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.02)


async def test_typing_into_checkout_through_the_bridge_is_refused(cap, sim_phone_factory) -> None:
    # The route: `mika phone type` given the Checkout button taps it to focus it.
    shop = sim_phone_factory(scenario="shop_cart")
    run = bridge_run(cap, phone_capability(shop))
    checkout = element_number(await _to_the_cart(run), "Checkout")
    out = await run.command(f'mika phone type \'{{"element": {checkout}, "text": "1"}}\'; echo rc=$?')
    assert "rc=2" in out.text, out.text
    typed = run.results("phone_type_text")[-1]
    assert not typed.ok and typed.code == "approval_unavailable", typed.code
    state = shop.device.world.state()["shop"]
    assert not state.get("checkout_reached") and not state.get("orders")
    assert [e.decision for e in run.events if getattr(e, "type", "") == "approval"] == ["approval_unavailable"]
