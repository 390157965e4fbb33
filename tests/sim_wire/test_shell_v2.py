"""Shell protocol v2 on the simulated phone: real exit codes and stderr apart, through
the real adb CLI (which switches to `shell,v2,…` because the phone announces shell_v2)
and through raw packets (adbd's shell_protocol.h: id byte, u32 LE length, data)."""

from __future__ import annotations

import struct
import subprocess

import pytest

from mika.cap.phone.adb.port import AdbPort
from tests.adb_env import SimPhone
from tests.sim_wire.wire_device import WireDevice


@pytest.fixture(params=["wire-double", "world"])
def any_phone(request, sim_phone_factory) -> SimPhone:
    return sim_phone_factory(WireDevice()) if request.param == "wire-double" else sim_phone_factory()


def test_the_phone_announces_shell_v2(any_phone: SimPhone) -> None:
    assert "shell_v2" in any_phone.run_adb("features").stdout.decode().split()


@pytest.mark.parametrize(
    ("command", "code"),
    [("false", 1), ("true", 0), ("exit 3", 3), ("exit 255", 255), ("echo x; exit 42", 42), ("nosuchcommand", 127)],
)
def test_adb_shell_returns_the_commands_exit_code(sim_phone: SimPhone, command: str, code: int) -> None:
    assert sim_phone.run_adb("shell", command, check=False).returncode == code


def test_stderr_stays_apart_from_stdout(sim_phone: SimPhone) -> None:
    done = sim_phone.run_adb("shell", "echo out; echo err >&2; echo more; exit 7", check=False)
    assert (done.returncode, done.stdout, done.stderr) == (7, b"out\nmore\n", b"err\n")
    missing = sim_phone.run_adb("shell", "ls /no/such/dir", check=False)
    assert missing.returncode == 1 and missing.stdout == b""
    assert b"/no/such/dir" in missing.stderr
    joined = sim_phone.run_adb("shell", "ls /no/such/dir 2>&1", check=False)
    assert b"/no/such/dir" in joined.stdout and joined.stderr == b""


def _packets(conn) -> list[tuple[int, bytes]]:
    """Every packet until the exit packet (the phone closes the stream after it)."""
    out = []
    while True:
        kind, length = struct.unpack("<BI", conn.read_exact(5))
        out.append((kind, conn.read_exact(length) if length else b""))
        if kind == 3:
            return out


def test_raw_packets_frame_stdout_stderr_and_exit(sim_phone: SimPhone) -> None:
    conn = sim_phone.adb.open_transport()
    try:
        conn.send_command("shell,v2,raw:echo a; echo b >&2; exit 5")
        conn.check_okay()
        packets = _packets(conn)
        assert conn.read_until_close(encoding=None) == b""  # nothing after exit
    finally:
        conn.close()
    assert packets == [(1, b"a\n"), (2, b"b\n"), (3, b"\x05")]


def test_stdin_packets_reach_the_command_and_close_stdin_ends_it(sim_phone_factory) -> None:
    device = WireDevice()
    phone = sim_phone_factory(device)
    conn = phone.adb.open_transport()
    try:
        conn.send_command("shell,v2,raw:cat")
        conn.check_okay()
        # One stdin packet cut in two sends, then close-stdin: the host cuts as it likes.
        first = struct.pack("<BI", 0, 6) + b"hel"
        conn.send(first)
        conn.send(b"lo\n" + struct.pack("<BI", 5, 9) + b"24x80,0x0" + struct.pack("<BI", 4, 0))
        packets = _packets(conn)
    finally:
        conn.close()
    assert b"".join(d for k, d in packets if k == 1) == b"hello\n"
    assert packets[-1] == (3, b"\x00")


def test_a_large_output_arrives_whole_in_packets(sim_phone_factory) -> None:
    phone = sim_phone_factory(WireDevice())
    conn = phone.adb.open_transport()
    try:
        conn.send_command("shell,v2,raw:spew 3000000")
        conn.check_okay()
        packets = _packets(conn)
    finally:
        conn.close()
    data = b"".join(d for k, d in packets if k == 1)
    assert data == (bytes(range(256)) * 12000)[:3000000]


async def test_the_port_reads_exit_codes_over_v2_without_a_trailer(sim_phone: SimPhone) -> None:
    port = AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump")
    info = await port.info()
    assert "shell_v2" in info.features
    done = await port.shell("echo a; echo b >&2; exit 3")
    # Both streams in the order they came, the command's own exit code.
    assert (done.exit_code, done.output) == (3, "a\nb\n")
    assert (await port.shell("false")).exit_code == 1
    # A command ending in `&` or an unclosed quote breaks a `; echo $?` trailer; v2 has none.
    assert (await port.shell("echo bg &")).exit_code == 0


def test_a_script_piped_into_adb_shell_runs_raw_with_its_exit_code(sim_phone: SimPhone) -> None:
    # No terminal on adb's stdin: a raw v2 shell, sh reading a pipe (no prompt, no echo).
    done = subprocess.run(
        [sim_phone.server.binary, "-P", str(sim_phone.server.port), "-s", sim_phone.serial, "shell"],
        input=b"echo hi\necho oops >&2\nexit 4",
        capture_output=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (4, b"hi\n", b"oops\n")
