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
