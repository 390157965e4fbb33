"""`adb` itself against the simulated phone: push / pull with modes and mtimes over sync v1
and v2, the v2 records on the wire, shell exit codes, get-state / get-serialno / devices -l,
`exec-out screencap -p` and forwards.

Two phones: the world's (it lists stat_v2, ls_v2 and sendrecv_v2 as an Android 14 phone
does, so adb 36 speaks STA2 / LIS2 / SND2 / RCV2) and the wire double (no v2 features:
STAT / LIST / SEND / RECV). Both are reached through the real adb server and CLI.
"""

from __future__ import annotations

import io
import os
import socket
import stat
import struct
import time
from pathlib import Path

import adbutils
import av
import pytest
import uiautomator2
from PIL import Image

from tests.adb_env import SimPhone, free_port
from tests.sim_wire.test_scrcpy_server import JAR, PRODUCT_OPTIONS, SCID, recv_exact, server_command
from tests.sim_wire.wire_device import WireDevice

STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")
DENT_V2 = struct.Struct("<4sIQQIIIIQqqqI")
MTIME = 1_700_000_000  # 2023-11-14, far from the sim clock's "now"


@pytest.fixture(params=["sync-v2", "sync-v1"])
def phone(request, sim_phone_factory) -> SimPhone:
    if request.param == "sync-v1":
        return sim_phone_factory(WireDevice())
    return sim_phone_factory()


def test_the_world_phone_lists_the_sync_v2_features(sim_phone: SimPhone) -> None:
    features = sim_phone.run_adb("features").stdout.decode().split()
    assert {"stat_v2", "ls_v2", "sendrecv_v2", "sendrecv_v2_dry_run_send", "shell_v2"} <= set(features)
    assert not {"sendrecv_v2_brotli", "sendrecv_v2_lz4", "sendrecv_v2_zstd", "abb_exec"} & set(features)


def test_push_keeps_the_mode_and_mtime(phone: SimPhone, tmp_path: Path) -> None:
    src = tmp_path / "tool.sh"
    src.write_bytes(b"#!/system/bin/sh\necho hi\n")
    src.chmod(0o750)
    os.utime(src, (MTIME, MTIME))
    phone.run_adb("push", str(src), "/data/local/tmp/tool.sh")
    st = phone.device.files.stat("/data/local/tmp/tool.sh")
    assert st is not None
    assert (stat.S_IFMT(st.mode), st.mode & 0o777, st.mtime, st.size) == (stat.S_IFREG, 0o750, MTIME, 25)


def test_pull_a_restores_mode_and_mtime_of_files_and_trees(phone: SimPhone, tmp_path: Path) -> None:
    files = phone.device.files
    files.write("/sdcard/Download/tree/a.txt", b"alpha\n", 0o100640, MTIME)
    files.write("/sdcard/Download/tree/sub/b.bin", bytes(range(256)) * 300, 0o100600, MTIME + 60)
    phone.run_adb("pull", "-a", "/sdcard/Download/tree/a.txt", str(tmp_path / "a.txt"))
    a = (tmp_path / "a.txt").stat()
    assert (int(a.st_mtime), a.st_mode & 0o777) == (MTIME, 0o640)
    out = tmp_path / "pulled"
    out.mkdir()
    phone.run_adb("pull", "-a", "/sdcard/Download/tree", str(out))
    b = out / "tree" / "sub" / "b.bin"
    assert b.read_bytes() == bytes(range(256)) * 300
    assert (int(b.stat().st_mtime), b.stat().st_mode & 0o777) == (MTIME + 60, 0o600)
    assert (out / "tree" / "a.txt").read_bytes() == b"alpha\n"


def test_push_a_tree_then_list_it_with_ls(phone: SimPhone, tmp_path: Path) -> None:
    src = tmp_path / "photos"
    (src / "2026").mkdir(parents=True)
    (src / "2026" / "one.jpg").write_bytes(b"\xff\xd8" + b"x" * 1000)
    (src / "readme.txt").write_bytes(b"pics\n")
    done = phone.run_adb("push", str(src), "/sdcard/")
    assert b"2 files pushed" in done.stderr
    assert phone.device.files.read("/sdcard/photos/2026/one.jpg") == b"\xff\xd8" + b"x" * 1000
    if isinstance(phone.device, WireDevice):
        return  # the double's shell knows no ls
    listing = phone.shell("ls -l /sdcard/photos/2026")
    assert "1002" in listing and "one.jpg" in listing


def test_pull_of_a_missing_path_names_the_reason(sim_phone: SimPhone, tmp_path: Path) -> None:
    # Over STA2 the phone sends ENOENT, which adb turns into its v2 message.
    missing = sim_phone.run_adb("pull", "/sdcard/nothing.txt", str(tmp_path / "n"), check=False)
    assert missing.returncode != 0
    assert b"failed to stat remote object '/sdcard/nothing.txt': No such file or directory" in missing.stderr


def test_push_dry_run_goes_over_snd2_and_stores_nothing(sim_phone_factory, tmp_path: Path) -> None:
    src = tmp_path / "big.bin"
    src.write_bytes(os.urandom(200_000))
    world = sim_phone_factory()
    done = world.run_adb("push", "-n", str(src), "/sdcard/big.bin")
    assert b"1 file pushed" in done.stderr
    assert world.device.files.stat("/sdcard/big.bin") is None
    # adb sends a dry run only as an SND2 flag: a phone without sync v2 can't take one.
    v1 = sim_phone_factory(WireDevice()).run_adb("push", "-n", str(src), "/sdcard/big.bin", check=False)
    assert v1.returncode != 0 and b"dry-run not supported by the device" in v1.stderr


def _sync(phone: SimPhone) -> adbutils.AdbConnection:
    conn = phone.adb.open_transport()
    conn.send_command("sync:")
    conn.check_okay()
    return conn


def _recv_exact(conn: adbutils.AdbConnection, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.conn.recv(n - len(data))
        assert chunk, "stream closed early"
        data += chunk
    return data


def _request(ident: bytes, path: str) -> bytes:
    raw = path.encode()
    return ident + struct.pack("<I", len(raw)) + raw


def test_sta2_and_lis2_records_on_the_wire(sim_phone: SimPhone) -> None:
    sim_phone.device.files.write("/data/local/tmp/x.bin", b"12345", 0o100755, MTIME)
    conn = _sync(sim_phone)
    try:
        conn.conn.sendall(_request(b"STA2", "/data/local/tmp/x.bin"))
        ident, error, _dev, ino, mode, nlink, uid, gid, size, atime, mtime, ctime = STAT_V2.unpack(
            _recv_exact(conn, STAT_V2.size)
        )
        assert (ident, error, mode, nlink, size, mtime) == (b"STA2", 0, 0o100755, 1, 5, MTIME)
        assert (uid, gid) == (2000, 2000) and ino != 0 and atime == ctime == MTIME
        conn.conn.sendall(_request(b"LST2", "/sdcard/none"))
        reply = STAT_V2.unpack(_recv_exact(conn, STAT_V2.size))
        assert reply[:2] == (b"LST2", 2) and set(reply[2:]) == {0}  # ENOENT, nothing else
        conn.conn.sendall(_request(b"LIS2", "/data/local/tmp"))
        names = {}
        while True:
            head = DENT_V2.unpack(_recv_exact(conn, DENT_V2.size))
            if head[0] == b"DONE":
                assert set(head[1:]) == {0}
                break
            assert head[0] == b"DNT2" and head[1] == 0
            names[_recv_exact(conn, head[-1]).decode()] = head[4]
        assert names["x.bin"] == 0o100755
    finally:
        conn.close()


def test_snd2_and_rcv2_round_trip(sim_phone: SimPhone) -> None:
    data = os.urandom(150_000)
    conn = _sync(sim_phone)
    try:
        body = b"".join(
            b"DATA" + struct.pack("<I", len(data[i : i + 65536])) + data[i : i + 65536]
            for i in range(0, len(data), 65536)
        )
        conn.conn.sendall(
            _request(b"SND2", "/sdcard/v2.bin")
            + b"SND2"
            + struct.pack("<II", 0o100600, 0)
            + body
            + b"DONE"
            + struct.pack("<I", MTIME)
        )
        assert _recv_exact(conn, 8) == b"OKAY\0\0\0\0"
        conn.conn.sendall(_request(b"RCV2", "/sdcard/v2.bin") + b"RCV2" + struct.pack("<I", 0))
        got = b""
        while True:
            ident, length = struct.unpack("<4sI", _recv_exact(conn, 8))
            if ident == b"DONE":
                break
            assert ident == b"DATA"
            got += _recv_exact(conn, length)
        assert got == data
        # A compressed transfer was never offered; asking for one is refused.
        conn.conn.sendall(_request(b"RCV2", "/sdcard/v2.bin") + b"RCV2" + struct.pack("<I", 4))
        ident, length = struct.unpack("<4sI", _recv_exact(conn, 8))
        assert ident == b"FAIL" and b"compression" in _recv_exact(conn, length)
    finally:
        conn.close()
    st = sim_phone.device.files.stat("/sdcard/v2.bin")
    assert st is not None and (st.mode, st.mtime) == (0o100600, MTIME)


def test_shell_exit_codes_and_stderr_apart(sim_phone: SimPhone) -> None:
    assert sim_phone.run_adb("shell", "exit 3", check=False).returncode == 3
    assert sim_phone.run_adb("shell", "false", check=False).returncode == 1
    both = sim_phone.run_adb("shell", "echo out; echo err >&2; exit 7", check=False)
    assert (both.returncode, both.stdout, both.stderr) == (7, b"out\n", b"err\n")
    missing = sim_phone.run_adb("shell", "no-such-tool", check=False)
    assert missing.returncode == 127
    r = sim_phone.adb.shell2("ls /nowhere")
    assert r.returncode == 1 and "No such file or directory" in r.output


def test_state_serial_and_devices_l(sim_phone: SimPhone) -> None:
    assert sim_phone.run_adb("get-state").stdout == b"device\n"
    assert sim_phone.run_adb("get-serialno").stdout.decode().strip() == sim_phone.serial
    line = next(
        ln
        for ln in sim_phone.server.run("devices", "-l").stdout.decode().splitlines()
        if ln.startswith(sim_phone.serial)
    )
    props = sim_phone.device.world.props
    assert line.split()[1] == "device"
    assert f"product:{props['ro.product.name']}" in line and f"device:{props['ro.product.device']}" in line
    assert "model:" + props["ro.product.model"].replace(" ", "_") in line and "transport_id:" in line
    assert sim_phone.adb.get_state() == "device"


def test_exec_out_screencap_png_is_the_screen(sim_phone: SimPhone) -> None:
    png = sim_phone.run_adb("exec-out", "screencap", "-p").stdout
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(png))
    assert image.size == (1080, 2400)


def test_forward_list_and_remove_reach_the_u2_server(sim_phone: SimPhone) -> None:
    d = uiautomator2.connect(sim_phone.serial)  # starts the on-device server on tcp:9008
    try:
        d.info  # noqa: B018 — waits until it answers
        local = free_port()
        sim_phone.run_adb("forward", f"tcp:{local}", "tcp:9008")
        listed = sim_phone.run_adb("forward", "--list").stdout.decode()
        assert f"{sim_phone.serial} tcp:{local} tcp:9008" in listed
        with socket.create_connection(("127.0.0.1", local), timeout=10) as s:
            s.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
            reply = b""
            while not reply.endswith(b"pong"):
                chunk = s.recv(1000)
                assert chunk
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 200")
        sim_phone.run_adb("forward", "--remove", f"tcp:{local}")
        assert f"tcp:{local}" not in sim_phone.run_adb("forward", "--list").stdout.decode()
        assert sim_phone.run_adb("forward", "--remove", f"tcp:{local}", check=False).returncode != 0
    finally:
        d.stop_uiautomator(wait=False)


def test_forward_to_a_localabstract_socket_in_the_phone(sim_phone: SimPhone) -> None:
    # The scrcpy server listens on localabstract:scrcpy_SCID; `adb forward` leads a PC port there.
    sim_phone.adb.sync.push(b"PK\x03\x04 scrcpy-server stand-in", JAR)
    server = sim_phone.adb.shell(server_command("3.3.4", *PRODUCT_OPTIONS), stream=True)
    local = free_port()
    try:
        sim_phone.run_adb("forward", f"tcp:{local}", f"localabstract:scrcpy_{SCID:08x}")
        assert f"tcp:{local} localabstract:scrcpy_{SCID:08x}" in sim_phone.run_adb("forward", "--list").stdout.decode()
        deadline = time.monotonic() + 20
        while True:  # until the server listens: before that adb closes the PC socket at once
            with socket.create_connection(("127.0.0.1", local), timeout=10) as video:
                first = video.recv(1)
                if first == b"\x00":  # the dummy byte; the device name once control connects too
                    with socket.create_connection(("127.0.0.1", local), timeout=10):
                        name = recv_exact(video, 64).rstrip(b"\0").decode()
                    assert name == sim_phone.device.world.props["ro.product.model"]
                    break
            assert time.monotonic() < deadline, "the scrcpy socket never answered"
            time.sleep(0.1)
        sim_phone.run_adb("forward", "--remove-all")
        assert f"tcp:{local}" not in sim_phone.run_adb("forward", "--list").stdout.decode()
    finally:
        server.close()


def test_root_and_unroot_answer_as_a_user_build(sim_phone: SimPhone) -> None:
    root = sim_phone.run_adb("root", check=False)
    assert root.stdout + root.stderr == b"adbd cannot run as root in production builds\n"
    unroot = sim_phone.run_adb("unroot", check=False)
    assert unroot.stdout + unroot.stderr == b"adbd not running as root\n"
    assert sim_phone.shell("id -u").strip() == "2000"  # still the shell user, still connected


def _decoded(path: Path) -> list[av.VideoFrame]:
    with av.open(str(path)) as box:
        return list(box.decode(video=0))


def test_screenrecord_with_a_time_limit_makes_a_playable_mp4(sim_phone: SimPhone, tmp_path: Path) -> None:
    sim_phone.run_adb("shell", "screenrecord --time-limit 1 /sdcard/rec.mp4", timeout=30)
    sim_phone.run_adb("pull", "/sdcard/rec.mp4", str(tmp_path / "rec.mp4"))
    frames = _decoded(tmp_path / "rec.mp4")
    assert frames and (frames[0].width, frames[0].height) == (1080, 2400)


def test_screenrecord_stopped_by_the_host_keeps_what_it_recorded(sim_phone: SimPhone, tmp_path: Path) -> None:
    conn = sim_phone.adb.shell("screenrecord --size 540x1200 /sdcard/stop.mp4", stream=True)
    try:
        time.sleep(0.5)
        sim_phone.shell("am start -n com.android.settings/.Settings")  # something changes on screen
        time.sleep(0.5)
    finally:
        conn.close()  # as Ctrl-C on `adb shell screenrecord` does
    deadline = time.monotonic() + 10
    while sim_phone.device.files.stat("/sdcard/stop.mp4") is None and time.monotonic() < deadline:
        time.sleep(0.1)
    sim_phone.run_adb("pull", "/sdcard/stop.mp4", str(tmp_path / "stop.mp4"))
    frames = _decoded(tmp_path / "stop.mp4")
    assert len(frames) >= 2 and (frames[-1].width, frames[-1].height) == (540, 1200)
