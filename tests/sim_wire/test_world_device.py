"""The wire carrying the real simulated world (mika.sim.phone.make_device) via `sim_phone`."""

from __future__ import annotations

import os
from pathlib import Path

from tests.adb_env import SimPhone


def test_world_phone_is_a_device_for_the_adb_server(sim_phone: SimPhone) -> None:
    assert sim_phone.run_adb("get-state").stdout.decode().strip() == "device"
    features = sim_phone.run_adb("features").stdout.decode().split()
    assert "shell_v2" in features
    assert sim_phone.shell("echo hi && echo there") == "hi\nthere\n"


def test_world_phone_push_pull_roundtrip(sim_phone: SimPhone, tmp_path: Path) -> None:
    data = os.urandom(600 * 1024)
    src = tmp_path / "w.bin"
    src.write_bytes(data)
    sim_phone.run_adb("push", str(src), "/sdcard/Download/w.bin")
    back = tmp_path / "back.bin"
    sim_phone.run_adb("pull", "/sdcard/Download/w.bin", str(back))
    assert back.read_bytes() == data
    assert sim_phone.adb.sync.read_bytes("/sdcard/Download/w.bin") == data


def test_world_phone_props_through_adbutils(sim_phone: SimPhone) -> None:
    model = sim_phone.adb.shell("getprop ro.product.model")
    assert model
    line = next(
        line
        for line in sim_phone.server.run("devices", "-l").stdout.decode().splitlines()
        if line.startswith(sim_phone.serial)
    )
    assert f"model:{model.replace(' ', '_')}" in line


def test_interactive_shell_reads_stdin_through_the_wire(sim_phone: SimPhone) -> None:
    import subprocess

    proc = subprocess.run(
        [sim_phone.server.binary, "-P", str(sim_phone.server.port), "-s", sim_phone.serial, "shell"],
        input=b"echo typed in\nexit\n",
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 0
    assert b"typed in\n" in proc.stdout.replace(b"echo typed in", b"")


def test_uiautomator2_connects_through_the_wire(sim_phone: SimPhone) -> None:
    """u2 pushes its jar (sync), starts app_process (a shell stream that stays open) and
    talks HTTP over tcp:9008: every kind of stream the wire carries, at once."""
    import uiautomator2

    d = uiautomator2.connect(sim_phone.serial)
    info = d.info
    assert info["displayWidth"] == 1080 and info["displayHeight"] == 2400
    xml = d.dump_hierarchy()
    assert xml.startswith("<?xml") and "<hierarchy" in xml


def test_push_one_file_into_a_directory(sim_phone: SimPhone, tmp_path: Path) -> None:
    src = tmp_path / "note.txt"
    src.write_bytes("笔记 note\n".encode())
    sim_phone.run_adb("push", str(src), "/sdcard/Download/")
    assert sim_phone.adb.sync.read_bytes("/sdcard/Download/note.txt") == "笔记 note\n".encode()
    names = [e.path for e in sim_phone.adb.sync.list("/sdcard/Download")]
    assert "note.txt" in names
