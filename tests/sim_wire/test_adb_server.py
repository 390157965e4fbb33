"""The wire through a real adb server (adb 36 bundled with adbutils): adb CLI and adbutils.

The phone here is the wire's test double (wire_device.py) so each path of the adbd can
be exercised on purpose; the world's own device is checked through the same fixtures in
test_world_device.py.
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
from pathlib import Path

import adbutils
import pytest

from tests.adb_env import SimPhone, free_port
from tests.sim_wire.wire_device import WireDevice


@pytest.fixture
def phone(sim_phone_factory) -> SimPhone:
    return sim_phone_factory(WireDevice())


@pytest.fixture(params=["wire-double", "world"])
def any_phone(request, sim_phone_factory) -> SimPhone:
    """Tests of behaviour both devices share run on the double and on the real world."""
    if request.param == "world":
        return sim_phone_factory()
    return sim_phone_factory(WireDevice())


def _pattern(n: int) -> bytes:
    return (bytes(range(256)) * (n // 256 + 1))[:n]


def test_connect_and_devices_list(phone: SimPhone) -> None:
    out = phone.server.run("devices", "-l").stdout.decode()
    line = next(line for line in out.splitlines() if line.startswith(phone.serial))
    assert line.split()[1] == "device"
    assert "product:wire" in line and "model:Wire_Double" in line and "device:wire" in line
    assert phone.run_adb("get-state").stdout.decode().strip() == "device"


def test_features_seen_by_the_host_exclude_unspoken_protocols(phone: SimPhone) -> None:
    features = phone.run_adb("features").stdout.decode().split()
    assert "cmd" in features and "fixed_push_mkdir" in features
    assert "shell_v2" in features  # spoken: mika/sim/adbd/shell_v2.py
    assert "abb_exec" not in features


def test_shell_echo_with_cli_and_adbutils(any_phone: SimPhone) -> None:
    assert any_phone.shell("echo hello from the sim") == "hello from the sim\n"
    assert any_phone.adb.shell("echo 'quoted  words'") == "quoted  words"
    assert any_phone.adb.shell(["echo", "a b"]) == "a b"
    assert any_phone.shell("echo 你好，世界") == "你好，世界\n"  # UTF-8 in the OPEN payload


def test_unknown_command_answers_like_a_phone(phone: SimPhone) -> None:
    out = phone.run_adb("shell", "frobnicate", check=False).stdout.decode()
    assert out == "/system/bin/sh: frobnicate: inaccessible or not found\n"


def test_exec_out_is_byte_exact(phone: SimPhone) -> None:
    n = 3 * 262144 + 12345  # several full WRTEs and a tail
    out = phone.run_adb("exec-out", f"spew {n}").stdout
    assert out == _pattern(n)
    assert phone.adb.shell(f"spew {n}", encoding=None) == _pattern(n)


def test_push_and_pull_large_file(any_phone: SimPhone, tmp_path: Path) -> None:
    data = os.urandom(1024 * 1024 + 777)  # > 256 KiB, not a multiple of 64 KiB
    src = tmp_path / "big.bin"
    src.write_bytes(data)
    any_phone.run_adb("push", str(src), "/sdcard/big.bin")
    assert any_phone.device.files.read("/sdcard/big.bin") == data
    back = tmp_path / "back.bin"
    any_phone.run_adb("pull", "/sdcard/big.bin", str(back))
    assert hashlib.sha256(back.read_bytes()).digest() == hashlib.sha256(data).digest()


def test_push_into_directory_and_pull_many_small_files(any_phone: SimPhone, tmp_path: Path) -> None:
    src = tmp_path / "many"
    src.mkdir()
    files = {f"f{i:03d}.txt": f"file number {i}\n".encode() * (i + 1) for i in range(60)}
    (src / "sub").mkdir()
    (src / "sub" / "deep.txt").write_bytes(b"deep\n")
    for name, content in files.items():
        (src / name).write_bytes(content)
    any_phone.run_adb("push", str(src), "/sdcard/")
    for name, content in files.items():
        assert any_phone.device.files.read(f"/sdcard/many/{name}") == content
    assert any_phone.device.files.read("/sdcard/many/sub/deep.txt") == b"deep\n"
    dest = tmp_path / "pulled"
    dest.mkdir()
    any_phone.run_adb("pull", "/sdcard/many", str(dest))
    for name, content in files.items():
        assert (dest / "many" / name).read_bytes() == content
    assert (dest / "many" / "sub" / "deep.txt").read_bytes() == b"deep\n"


def test_adbutils_sync_push_pull_stat_list(any_phone: SimPhone, tmp_path: Path) -> None:
    data = os.urandom(300 * 1024)
    any_phone.adb.sync.push(data, "/data/local/tmp/u.bin", mode=0o755)
    st = any_phone.adb.sync.stat("/data/local/tmp/u.bin")
    assert st.size == len(data) and st.mode & 0o777 == 0o755
    assert any_phone.adb.sync.read_bytes("/data/local/tmp/u.bin") == data
    names = [e.path for e in any_phone.adb.sync.list("/data/local/tmp")]
    assert "u.bin" in names
    missing = any_phone.adb.sync.stat("/data/local/tmp/none")
    assert missing.mode == 0 and missing.size == 0


def test_push_and_pull_failures_are_reported(phone: SimPhone, tmp_path: Path) -> None:
    src = tmp_path / "x.txt"
    src.write_bytes(b"x")
    bad = phone.run_adb("push", str(src), "/system/x.txt", check=False)
    assert bad.returncode != 0
    assert b"Read-only file system" in bad.stderr
    missing = phone.run_adb("pull", "/sdcard/nothing.txt", str(tmp_path / "n"), check=False)
    assert missing.returncode != 0
    assert b"'/sdcard/nothing.txt' does not exist" in missing.stderr  # the host stats first
    # RECV on its own (adbutils doesn't stat first) gets the adbd's FAIL text.
    with pytest.raises(adbutils.AdbError, match="No such file or directory"):
        phone.adb.sync.read_bytes("/sdcard/nothing.txt")


def test_several_streams_at_once(phone: SimPhone) -> None:
    results: dict[int, bytes | str] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            dev = phone.adb
            if i % 2:
                results[i] = dev.shell(f"spew {200_000 + i}", encoding=None)
            else:
                results[i] = dev.shell(f"echo worker {i}")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    for i in range(10):
        expected = _pattern(200_000 + i) if i % 2 else f"worker {i}"
        assert results[i] == expected


def test_host_closing_mid_output_is_not_an_error(phone: SimPhone) -> None:
    device = phone.device
    conn = phone.adb.shell("forever", stream=True)
    first = conn.read(5)
    assert first == b"tick\n"
    conn.close()
    deadline = time.monotonic() + 10
    while "forever" not in device.cancelled and time.monotonic() < deadline:
        time.sleep(0.02)
    assert "forever" in device.cancelled  # the command was stopped, like a broken pipe
    # Closing in the middle of a big transfer too.
    conn = phone.adb.shell("spew 50000000", stream=True)
    assert conn.read(1000) == _pattern(1000)
    conn.close()
    assert phone.shell("echo alive") == "alive\n"


def test_unknown_services_are_refused(phone: SimPhone) -> None:
    for service in ("reboot:bootloader", "localabstract:nobody", "tcp:1234"):  # plain reboot: is served
        conn = phone.adb.open_transport()
        try:
            conn.send_command(service)
            with pytest.raises(adbutils.AdbError):
                conn.check_okay()
        finally:
            conn.close()
    assert phone.shell("echo fine") == "fine\n"


def test_tcp_forward_reaches_a_service_in_the_phone(phone: SimPhone) -> None:
    local = free_port()
    phone.run_adb("forward", f"tcp:{local}", "tcp:9008")
    try:
        with socket.create_connection(("127.0.0.1", local), timeout=5) as s:
            s.sendall(b"hello service")
            got = b""
            while len(got) < len(b"hello service"):
                got += s.recv(100)
        assert got == b"HELLO SERVICE"
    finally:
        phone.run_adb("forward", "--remove", f"tcp:{local}", check=False)
    # And the way uiautomator2 does it: a direct tcp: stream through adbutils.
    conn = phone.adb.create_connection(adbutils.Network.TCP, 9008)
    try:
        conn.sendall(b"ping")
        assert conn.recv(4) == b"PING"
    finally:
        conn.close()


def test_nothing_listening_on_a_forward_fails_cleanly(phone: SimPhone) -> None:
    with pytest.raises(adbutils.AdbError):
        phone.adb.create_connection(adbutils.Network.TCP, 4321)
