"""The hot path keeps its connections (issue 16, target 1) and stays careful: our shell
client keeps exit codes, bytes and the device-gone errors; uiautomator2's JSON-RPC over
one kept `tcp:` stream never hands back a stale or foreign answer; the foreground read
alongside the dump is used once, for that dump only, and never across an action.

All against the simulated phone through a real adb server."""

from __future__ import annotations

import adbutils
import pytest

from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.cap.phone.adb.shell_client import ServiceRefused, ShellClient
from mika.cap.phone.adb.u2_transport import IDLE_LIMIT_S, KeptRpc
from mika.tool.errors import DeviceUnavailable
from mika.uistate import parse_hierarchy
from mika.uistate.screen import build_screen


def wire_for(phone) -> ShellClient:
    return ShellClient("127.0.0.1", phone.server.port, phone.serial)


def port_for(phone, backend: str = "u2") -> AdbPort:
    policy = ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=1.0)
    return AdbPort(phone.serial, phone.server.client(), backend=backend, reconnect=policy)


# -- the shell client -------------------------------------------------------------------


@pytest.mark.parametrize(("command", "code"), [("true", 0), ("false", 1), ("echo x; exit 42", 42), ("nosuch", 127)])
def test_shell_v2_and_v1_keep_the_commands_exit_code(sim_phone, command, code):
    wire = wire_for(sim_phone)
    assert wire.shell_v2(command, 10)[0] == code
    if "exit" not in command:  # v1 learns the code from an echo after the command, as adbutils does
        assert wire.shell_v1(command, 10)[0] == code


def test_shell_output_keeps_stdout_and_stderr_in_order(sim_phone):
    code, out = wire_for(sim_phone).shell_v2("echo out; echo err >&2; echo more; exit 7", 10)
    assert code == 7
    assert out.replace("\r\n", "\n").split() == ["out", "err", "more"]


def test_exec_out_is_byte_exact(sim_phone):
    png = wire_for(sim_phone).exec_out("screencap -p", 20)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")  # no CR LF rewriting of the binary


def test_a_phone_the_server_does_not_know_is_an_adb_error():
    # The reconnect logic catches adbutils.AdbError: a gone phone must arrive as one.
    from tests.adb_env import ADB_PORT

    wire = ShellClient("127.0.0.1", ADB_PORT, "no-such-phone:1")
    with pytest.raises(adbutils.AdbError, match=r"not found|offline|no-such-phone"):
        wire.shell_v2("echo hi", 5)


def test_a_refused_service_says_so(sim_phone):
    with pytest.raises(ServiceRefused):
        wire_for(sim_phone).open("tcp:1", 5)  # nothing listens on tcp:1 on the phone


async def test_a_phone_that_goes_for_good_ends_with_device_unavailable(sim_phone):
    port = port_for(sim_phone, backend="dump")
    await port.info()
    sim_phone.running.close()  # the cable is pulled and stays out
    with pytest.raises(DeviceUnavailable, match="stopped answering"):
        await port.shell("echo hi")


async def test_a_drop_under_the_kept_stream_reconnects_and_reads_on(sim_phone):
    port = port_for(sim_phone)
    await port.dump_hierarchy(0)
    sim_phone.shell("simctl fault drop_after=1")  # the next OPEN drops the whole connection
    assert "<node" in await port.dump_hierarchy(0)  # a read: waited for, then asked again
    assert "<node" in await port.dump_hierarchy(0)
    await port.close()


# -- uiautomator2 over one kept stream ---------------------------------------------------


async def test_many_u2_calls_ride_one_stream(sim_phone):
    port = port_for(sim_phone)
    for _ in range(6):
        assert "<node" in await port.dump_hierarchy(0)
    assert port._u2.rpc.opened == 1
    await port.close()


async def test_a_screen_that_changes_between_dumps_is_seen_on_the_kept_stream(sim_phone):
    port = port_for(sim_phone)
    before = build_screen(parse_hierarchy(await port.dump_hierarchy(0)), display_id=0)
    sim_phone.shell("am start -n com.android.settings/.Settings")  # behind the port's back
    after = build_screen(parse_hierarchy(await port.dump_hierarchy(0)), display_id=0)
    assert (before.foreground_package, after.foreground_package) == ("com.android.launcher3", "com.android.settings")
    assert port._u2.rpc.opened == 1
    await port.close()


async def _u2_started(phone) -> None:
    port = port_for(phone)
    await port.dump_hierarchy(0)  # starts the on-device uiautomator2 server
    await port.close()


async def test_an_answer_nobody_asked_for_is_never_taken_for_the_next_one(sim_phone):
    await _u2_started(sim_phone)
    rpc = KeptRpc(wire_for(sim_phone), 9008)
    assert rpc.call("deviceInfo", [], 10)
    # Bytes wait on the kept stream that belong to no call of ours (a stray answer).
    rpc._sock.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
    sock = rpc._sock
    while not _peek_ready(sock):
        pass
    xml = rpc.call("dumpWindowHierarchy", [False, 50], 10)
    assert isinstance(xml, str) and "<node" in xml  # not "pong"
    assert rpc.opened == 2  # the dirty stream was dropped, a fresh one asked
    rpc.close()


def _peek_ready(sock) -> bool:
    import select

    return bool(select.select([sock], [], [], 5)[0])


async def test_a_stream_idle_longer_than_the_server_keeps_one_is_not_reused(sim_phone):
    await _u2_started(sim_phone)
    now = [0.0]
    rpc = KeptRpc(wire_for(sim_phone), 9008, clock=lambda: now[0])
    rpc.call("deviceInfo", [], 10)
    now[0] += IDLE_LIMIT_S / 2
    rpc.call("deviceInfo", [], 10)
    assert rpc.opened == 1
    now[0] += IDLE_LIMIT_S + 1
    rpc.call("deviceInfo", [], 10)
    assert rpc.opened == 2
    rpc.close()


async def test_a_stream_the_server_closed_between_calls_is_replaced(sim_phone):
    await _u2_started(sim_phone)
    rpc = KeptRpc(wire_for(sim_phone), 9008)
    rpc.call("deviceInfo", [], 10)
    import socket

    rpc._sock.shutdown(socket.SHUT_RDWR)  # as if the far end had gone: reads see the end
    assert "<node" in rpc.call("dumpWindowHierarchy", [False, 50], 10)
    assert rpc.opened == 2
    rpc.close()


@pytest.mark.parametrize("fault", ["rpc_error", "http_500"])
async def test_a_u2_failure_on_the_kept_stream_is_mended_by_a_restart(sim_phone, fault):
    port = port_for(sim_phone)
    await port.dump_hierarchy(0)
    sim_phone.shell(f"simctl fault {fault}=1")
    assert "<node" in await port.dump_hierarchy(0)
    assert port.last_dump_via == "uiautomator2"
    assert sim_phone.device.world.pending[fault] == 0
    await port.close()


async def test_a_u2_error_answer_keeps_its_reason(sim_phone):
    port = port_for(sim_phone)
    u2 = await _u2(port)
    from uiautomator2.exceptions import RPCUnknownError

    with pytest.raises(RPCUnknownError, match="Unknown RPC error"):
        u2.jsonrpc_call("noSuchMethod", [], 10)
    await port.close()


async def _u2(port: AdbPort):
    await port.dump_hierarchy(0)
    return port._u2


# -- the foreground read alongside the dump ----------------------------------------------


async def test_the_foreground_comes_with_the_dump(sim_phone):
    port = port_for(sim_phone)
    sim_phone.shell("am start -n com.android.settings/.Settings")
    await port.dump_hierarchy(0)
    assert port._focus_read is not None
    fg = await port.foreground(0)
    assert fg.package == "com.android.settings" and fg.activity.startswith("com.android.settings/")
    assert port._focus_read is None  # used once
    await port.close()


async def test_a_foreground_asked_again_is_read_afresh(sim_phone):
    port = port_for(sim_phone)
    await port.dump_hierarchy(0)
    assert (await port.foreground(0)).package == "com.android.launcher3"
    sim_phone.shell("am start -n com.android.settings/.Settings")  # the screen moved meanwhile
    assert (await port.foreground(0)).package == "com.android.settings"
    await port.close()


async def test_an_action_after_the_dump_voids_the_foreground_read_with_it(sim_phone):
    port = port_for(sim_phone)
    await port.dump_hierarchy(0)
    await port.start_activity(0, component="com.android.settings/.Settings")
    assert port._focus_read is None
    assert (await port.foreground(0)).package == "com.android.settings"
    await port.close()


async def test_the_foreground_of_another_display_is_not_taken_from_this_dump(sim_phone):
    out = sim_phone.shell("simctl display add 720x1280 320 agent")
    display_id = int(next(w for w in out.split() if w.isdigit()))
    sim_phone.shell(f"am start --display {display_id} -n com.android.settings/.Settings")
    port = port_for(sim_phone)
    await port.dump_hierarchy(0)
    assert (await port.foreground(display_id)).package == "com.android.settings"
    assert (await port.foreground(0)).package == "com.android.launcher3"
    await port.close()
