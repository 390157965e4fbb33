"""The host's stdin reaches the simulated phone's commands over shell v2, through the real
adb CLI: adb (no terminal on its stdin) opens `shell,v2,raw:CMD`, sends what it reads as
stdin packets (id 0) and close-stdin (id 4) at its end. A command that reads its input
(`cat`, `grep`, `md5sum` with no file) gets exactly those bytes; a command that doesn't
never waits on the host's stdin, even when it stays open."""

from __future__ import annotations

import hashlib
import struct
import subprocess

from tests.adb_env import SimPhone

# A failure guard only (a hung adb fails the test instead of the run); nothing waits on it.
GUARD = 60


def _adb(phone: SimPhone, command: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
    argv = [phone.server.binary, "-P", str(phone.server.port), "-s", phone.serial, "shell", command]
    return subprocess.run(argv, input=data, capture_output=True, timeout=GUARD)


def test_piped_input_reaches_cat(sim_phone: SimPhone) -> None:
    done = _adb(sim_phone, "cat", b"hi\n")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"hi\n", b"")


def test_every_byte_value_and_a_large_input_arrive_exact(sim_phone: SimPhone) -> None:
    # NUL, 0xff, CR, ^D (0x04, which ends input only on a pty) and ~400 KB across many packets.
    data = bytes(range(256)) * 1600
    done = _adb(sim_phone, "cat", data)
    assert done.returncode == 0 and done.stdout == data
    summed = _adb(sim_phone, "md5sum", data)
    assert summed.stdout.decode() == f"{hashlib.md5(data).hexdigest()}  -\n"


def test_input_without_a_final_newline_and_empty_input(sim_phone: SimPhone) -> None:
    assert _adb(sim_phone, "cat", b"no newline").stdout == b"no newline"
    empty = _adb(sim_phone, "cat", b"")
    assert (empty.returncode, empty.stdout) == (0, b"")


def test_grep_filters_the_hosts_input_with_its_exit_code(sim_phone: SimPhone) -> None:
    assert _adb(sim_phone, "grep -c b", b"a\nb\nbb\n").stdout == b"2\n"
    miss = _adb(sim_phone, "grep zzz", b"a\nb\n")
    assert (miss.returncode, miss.stdout) == (1, b"")


def test_the_head_of_a_pipeline_reads_it_and_only_once(sim_phone: SimPhone) -> None:
    assert _adb(sim_phone, "cat | grep -v a", b"a\nb\nab\nc\n").stdout == b"b\nc\n"
    # The second cat finds stdin already at its end, as in sh.
    assert _adb(sim_phone, "cat; echo --; cat", b"once\n").stdout == b"once\n--\n"


def test_a_redirect_or_a_file_argument_wins_over_the_hosts_input(sim_phone: SimPhone) -> None:
    version = _adb(sim_phone, "cat /proc/version", b"").stdout
    assert version.startswith(b"Linux version")
    assert _adb(sim_phone, "echo from-file > /data/local/tmp/in.txt", b"").returncode == 0
    assert _adb(sim_phone, "cat < /data/local/tmp/in.txt", b"ignored\n").stdout == b"from-file\n"
    assert _adb(sim_phone, "grep -c from /data/local/tmp/in.txt", b"from\nfrom\n").stdout == b"1\n"


def test_commands_that_dont_read_never_wait_on_an_open_stdin(sim_phone: SimPhone) -> None:
    # adb's stdin is a pipe the test never writes to nor closes: no close-stdin ever comes.
    for command, expected in (("echo hi", b"hi\n"), ("cat /proc/version", b"Linux version"), ("true", b"")):
        argv = [sim_phone.server.binary, "-P", str(sim_phone.server.port), "-s", sim_phone.serial, "shell", command]
        with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
            assert proc.stdout is not None
            out = proc.stdout.read()  # ends when the phone sends exit and closes the stream
            assert proc.wait(timeout=GUARD) == 0, command
            assert proc.stdin is not None
            proc.stdin.close()
        assert out.startswith(expected), command


def _packets(conn) -> list[tuple[int, bytes]]:
    out = []
    while True:
        kind, length = struct.unpack("<BI", conn.read_exact(5))
        out.append((kind, conn.read_exact(length) if length else b""))
        if kind == 3:
            return out


def test_on_a_pty_ctrl_d_ends_the_input_and_cr_is_newline(sim_phone: SimPhone) -> None:
    # `adb shell -t cat` at a terminal: keystrokes go raw, ^D ends input, no close-stdin comes.
    conn = sim_phone.adb.open_transport()
    try:
        conn.send_command("shell,v2,pty:cat")
        conn.check_okay()
        conn.send(struct.pack("<BI", 0, 4) + b"ab\rc")
        conn.send(struct.pack("<BI", 0, 2) + b"\x04z")
        packets = _packets(conn)
    finally:
        conn.close()
    assert b"".join(d for k, d in packets if k == 1) == b"ab\nc"
    assert packets[-1] == (3, b"\x00")


def test_raw_stdin_ends_at_close_stdin_even_with_the_stream_open(sim_phone: SimPhone) -> None:
    conn = sim_phone.adb.open_transport()
    try:
        conn.send_command("shell,v2,raw:md5sum")
        conn.check_okay()
        conn.send(struct.pack("<BI", 0, 3) + b"abc" + struct.pack("<BI", 4, 0))
        packets = _packets(conn)
    finally:
        conn.close()
    assert b"".join(d for k, d in packets if k == 1) == f"{hashlib.md5(b'abc').hexdigest()}  -\n".encode()
