"""Connection-level faults through the real adb server: a dropped cable and slow commands."""

from __future__ import annotations

import time

import adbutils
import pytest

from tests.adb_env import SimPhone
from tests.sim_wire.wire_device import WireDevice


def _state(phone: SimPhone) -> str:
    out = phone.server.run("devices").stdout.decode()
    for line in out.splitlines():
        if line.startswith(phone.serial + "\t"):
            return line.split("\t")[1]
    return "absent"


def test_drop_after_n_opens_then_the_host_reconnects(sim_phone_factory) -> None:
    device = WireDevice()
    phone = sim_phone_factory(device)
    device.drop_after = device.opens + 3  # counted from now, whatever the connect opened
    assert phone.shell("echo one") == "one\n"
    assert phone.shell("echo two") == "two\n"
    third = phone.run_adb("shell", "echo three", check=False)
    assert third.returncode != 0 and b"three" not in third.stdout
    # Right after the drop the host shows the phone offline (adb waits 250 ms before
    # its reconnect handler dials again) …
    assert _state(phone) in ("offline", "absent")
    # … then the reconnect brings it back on its own.
    phone.server.client().wait_for(phone.serial, state="device", timeout=20)
    assert _state(phone) == "device"
    assert phone.running.server.accepted >= 2  # a second TCP connection was made
    assert phone.shell("echo after reconnect") == "after reconnect\n"


def test_drop_is_seen_by_adbutils_as_an_error(sim_phone_factory) -> None:
    device = WireDevice()
    phone = sim_phone_factory(device)
    device.drop_after = device.opens + 1
    with pytest.raises(adbutils.AdbError):
        phone.adb.shell("echo never")
    phone.server.client().wait_for(phone.serial, state="device", timeout=20)
    assert phone.adb.shell("echo back") == "back"


def test_slow_commands_are_delayed_but_correct(sim_phone_factory) -> None:
    device = WireDevice(slow_ms=0)
    phone = sim_phone_factory(device)
    device.slow_ms = 400
    start = time.monotonic()
    assert phone.adb.shell("echo slow") == "slow"
    # A lower bound only: the fault must delay the answer by at least slow_ms.
    assert time.monotonic() - start >= 0.4
    device.slow_ms = 0
    assert phone.adb.shell("echo quick") == "quick"


def test_server_side_drop_of_all_connections(sim_phone_factory) -> None:
    phone = sim_phone_factory(WireDevice())
    before = phone.running.server.accepted
    phone.running.drop_connections()
    phone.server.client().wait_for(phone.serial, state="device", timeout=20)
    deadline = time.monotonic() + 20
    while phone.running.server.accepted == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert phone.running.server.accepted > before
    assert phone.shell("echo reconnected") == "reconnected\n"


def test_world_fault_spec_drop_and_slow(sim_phone_factory) -> None:
    from mika.sim.faults import FaultSpec

    phone = sim_phone_factory(faults=FaultSpec(drop_after=2, slow_ms=50))
    assert phone.device.command_delay() == 0.05
    assert phone.shell("echo one") == "one\n"
    assert phone.shell("echo two") == "two\n"
    assert phone.run_adb("shell", "echo three", check=False).returncode != 0
    assert _state(phone) in ("offline", "absent")
    phone.server.client().wait_for(phone.serial, state="device", timeout=20)
    assert phone.shell("echo four") == "four\n"  # the cable is plugged back in for good


def test_adb_reconnect_then_connect_again(sim_phone_factory) -> None:
    """adb 36 marks a TCP transport "kicked" on `adb reconnect` and gives up on it (see
    kick_transport / transport_destroy in adb's transport.cpp), so the phone leaves the
    list; a new `adb connect` brings it back on a fresh connection."""
    phone = sim_phone_factory(WireDevice())
    out = phone.run_adb("reconnect").stdout.decode()
    assert out.startswith(f"reconnecting {phone.serial}")
    deadline = time.monotonic() + 10
    while _state(phone) != "absent" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _state(phone) == "absent"
    assert "connected to" in phone.server.run("connect", phone.serial).stdout.decode()
    phone.server.client().wait_for(phone.serial, state="device", timeout=20)
    assert phone.running.server.accepted == 2
    assert phone.shell("echo after adb reconnect") == "after adb reconnect\n"


# --- the world's faults on the uiautomator2 path, as the real uiautomator2 client meets them ---


@pytest.fixture
def u2_phone(sim_phone_factory):
    """A world phone with uiautomator2's server started by the real client library."""
    import uiautomator2

    phone = sim_phone_factory()
    d = uiautomator2.connect(phone.adb)
    assert d.jsonrpc.deviceInfo()["displayWidth"] == 1080
    return phone, d


def _fault(phone: SimPhone, spec: str) -> None:
    phone.shell(f"simctl fault {spec}")


def test_u2_idle_timeout_is_a_json_rpc_error(u2_phone) -> None:
    from uiautomator2.exceptions import RPCUnknownError

    phone, d = u2_phone
    _fault(phone, "idle_timeout=2")
    with pytest.raises(RPCUnknownError, match="TimeoutException: No idle state"):
        d.jsonrpc.dumpWindowHierarchy(False, 50)
    with pytest.raises(RPCUnknownError, match="TimeoutException"):
        d.jsonrpc.click({"mask": 1, "childOrSibling": [], "childOrSiblingSelector": [], "text": "Settings"})
    assert "<node" in d.jsonrpc.dumpWindowHierarchy(False, 50)  # both were used up


def test_u2_null_root_is_an_empty_hierarchy_and_finds_nothing(u2_phone) -> None:
    phone, d = u2_phone
    _fault(phone, "null_root=2")
    xml = d.jsonrpc.dumpWindowHierarchy(False, 50)
    assert '<hierarchy rotation="0" />' in xml and "<node" not in xml
    assert not d(text="Settings").exists  # its lookup saw no windows either
    assert d(text="Settings").exists


def test_u2_bad_xml_and_bad_png_are_cut_short(u2_phone) -> None:
    import base64
    import io
    import xml.etree.ElementTree as ET

    from PIL import Image

    phone, d = u2_phone
    _fault(phone, "bad_xml=1,bad_png=1")
    with pytest.raises(ET.ParseError):
        ET.fromstring(d.jsonrpc.dumpWindowHierarchy(False, 50))
    ET.fromstring(d.jsonrpc.dumpWindowHierarchy(False, 50))  # the next one is whole
    cut = base64.b64decode(d.jsonrpc.takeScreenshot(1, 80))
    # Any OSError: Pillow's wording for a cut PNG depends on where the cut falls.
    with pytest.raises(OSError):  # noqa: PT011
        Image.open(io.BytesIO(cut)).load()
    Image.open(io.BytesIO(base64.b64decode(d.jsonrpc.takeScreenshot(1, 80)))).load()


def test_u2_rpc_error_and_http_500_make_the_client_restart_its_server(u2_phone) -> None:
    from uiautomator2.exceptions import HTTPError, UiAutomationNotConnectedError

    phone, d = u2_phone
    _fault(phone, "rpc_error=1")
    d.set_clipboard("kept")  # failed once; the client restarted its server and asked again
    assert phone.device.world.pending["rpc_error"] == 0
    assert d.clipboard == "kept"
    _fault(phone, "rpc_error=2")
    with pytest.raises(UiAutomationNotConnectedError):
        d.jsonrpc.getClipboard()
    _fault(phone, "http_500=2")
    with pytest.raises(HTTPError, match="500"):
        d.jsonrpc.setText({"mask": 1, "childOrSibling": [], "childOrSiblingSelector": [], "focused": True}, "x")
    assert d.jsonrpc.getClipboard() == "kept"
