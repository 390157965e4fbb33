"""start_sim: what `--device sim` uses to bring up a phone and attach it to adb."""

from __future__ import annotations

import subprocess

import pytest

from mika.sim.adb_host import AdbHostError
from mika.sim.launch import (
    AdbServerAddress,
    SimLaunchError,
    bundled_adb,
    ensure_adb_server,
    start_sim,
)
from tests.adb_env import AdbServer, free_port
from tests.sim_wire.wire_device import WireDevice


def test_address_from_env_follows_adb_rules() -> None:
    assert AdbServerAddress.from_env({}) == AdbServerAddress("127.0.0.1", 5037)
    assert AdbServerAddress.from_env({"ANDROID_ADB_SERVER_PORT": "6001"}).port == 6001
    assert AdbServerAddress.from_env(
        {"ADB_SERVER_SOCKET": "tcp:10.0.0.2:7000", "ANDROID_ADB_SERVER_PORT": "6001"}
    ) == AdbServerAddress("10.0.0.2", 7000)
    assert AdbServerAddress.from_env({"ADB_SERVER_SOCKET": "tcp:7001"}) == AdbServerAddress("127.0.0.1", 7001)
    with pytest.raises(AdbHostError, match="ADB_SERVER_SOCKET"):
        AdbServerAddress.from_env({"ADB_SERVER_SOCKET": "localfilesystem:/tmp/adb"})
    with pytest.raises(AdbHostError, match="ANDROID_ADB_SERVER_PORT"):
        AdbServerAddress.from_env({"ANDROID_ADB_SERVER_PORT": "five"})


def test_start_sim_uses_the_running_server_and_close_disconnects(adb_server: AdbServer) -> None:
    sim = start_sim(device=WireDevice(), adb_address=adb_server.address)
    try:
        assert sim.serial == f"127.0.0.1:{sim.port}"
        assert sim.adb_device().shell("echo launched") == "launched"
        assert sim.serial in adb_server.run("devices").stdout.decode()
    finally:
        sim.close()
    assert sim.serial not in adb_server.run("devices").stdout.decode()
    sim.close()  # closing twice is harmless


def test_start_sim_starts_the_bundled_adb_when_none_runs() -> None:
    address = AdbServerAddress("127.0.0.1", free_port())
    assert not address.is_listening()
    try:
        with start_sim(device=WireDevice(), adb_address=address) as sim:
            assert address.is_listening()
            assert sim.adb_device().shell("echo own server") == "own server"
    finally:
        subprocess.run(
            [bundled_adb(), "-P", str(address.port), "kill-server"], capture_output=True, timeout=30, check=False
        )


def test_an_adb_server_that_cannot_start_is_a_clear_error(tmp_path) -> None:
    fake = tmp_path / "adb"
    fake.write_text("#!/bin/sh\necho 'cannot bind: address in use' >&2\nexit 1\n")
    fake.chmod(0o755)
    address = AdbServerAddress("127.0.0.1", free_port())
    with pytest.raises(SimLaunchError, match=r"could not start the adb server.*cannot bind"):
        ensure_adb_server(address, adb_binary=str(fake))


def test_start_sim_default_device_is_the_world(adb_server: AdbServer) -> None:
    with start_sim(scenario=None, adb_address=adb_server.address) as sim:
        assert sim.device.serial == "mika-sim"
        assert sim.adb_device().shell("echo world") == "world"


def test_start_sim_reports_bad_faults_and_scenarios(adb_server: AdbServer) -> None:
    with pytest.raises(SimLaunchError, match="unknown key 'bogus'"):
        start_sim(faults="bogus=1", adb_address=adb_server.address)
    with pytest.raises(SimLaunchError, match="unknown scenario"):
        start_sim(scenario="no-such-scenario", adb_address=adb_server.address)


def test_start_sim_with_a_fault_spec_string(adb_server: AdbServer) -> None:
    with start_sim(faults="slow_ms=1", adb_address=adb_server.address) as sim:
        assert sim.device.command_delay() == pytest.approx(0.001)
        assert sim.adb_device().shell("echo slow but fine") == "slow but fine"


def test_connections_count_follows_the_adb_server(adb_server: AdbServer) -> None:
    sim = start_sim(device=WireDevice(), adb_address=adb_server.address)
    try:
        assert sim.server.connections == 1
        assert sim.server.accepted == 1
    finally:
        sim.close()
