"""The simulated phone's own scrcpy server (mika/sim/scrcpy), through the real adb server:
started as the product starts the real 3.3.4 jar, its two localabstract sockets opened with
adbutils, its H.264 decoded with PyAV, its control messages acting on its own display only.
Formats: scrcpy 3.3.4 DesktopConnection / Streamer / ControlMessageReader / DeviceMessageWriter."""

from __future__ import annotations

import io
import json
import re
import socket
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass

import adbutils
import av
import pytest
from adbutils import Network
from PIL import Image, ImageChops, ImageStat

from tests.adb_env import SimPhone

JAR = "/data/local/tmp/scrcpy-server.jar"
SCID = 0x1A2B3C4D
TIMEOUT = 30.0


def server_command(version: str = "3.3.4", *options: str) -> str:
    return f"CLASSPATH={JAR} app_process / com.genymobile.scrcpy.Server {version} " + " ".join(options)


PRODUCT_OPTIONS = (
    f"scid={SCID:08x}",
    "log_level=info",
    "tunnel_forward=true",
    "video=true",
    "audio=false",
    "control=true",
    "cleanup=false",
    "new_display=720x1280/320",
    "vd_destroy_content=true",
    "vd_system_decorations=false",
    "display_ime_policy=local",
    "max_size=0",
    "video_codec=h264",
    "max_fps=30",
    "send_device_meta=true",
    "send_dummy_byte=true",
    "send_codec_meta=true",
    "send_frame_meta=true",
    "stay_awake=false",
    "power_off_on_close=false",
)


def recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError(f"socket closed after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


def read_packet(sock: socket.socket) -> tuple[int, bytes]:
    pts_flags, size = struct.unpack(">QI", recv_exact(sock, 12))
    return pts_flags, recv_exact(sock, size)


class Output:
    """The server's shell stream (shell v1: stdout and stderr together), read by line."""

    def __init__(self, conn: adbutils.AdbConnection) -> None:
        self.conn = conn
        self.conn.conn.settimeout(TIMEOUT)
        self.text = ""

    def wait_for(self, pattern: str) -> re.Match[str]:
        while True:
            found = re.search(pattern, self.text)
            if found:
                return found
            chunk = self.conn.conn.recv(4096)
            if not chunk:
                raise AssertionError(f"server output ended without {pattern!r}:\n{self.text}")
            self.text += chunk.decode("utf-8", "replace")

    def rest(self) -> str:
        while chunk := self.conn.conn.recv(4096):
            self.text += chunk.decode("utf-8", "replace")
        return self.text


@dataclass
class Session:
    out: Output
    video: socket.socket
    control: socket.socket
    display_id: int
    width: int
    height: int
    name: bytes


def state(phone: SimPhone) -> dict:
    return json.loads(phone.shell("simctl state"))


def sync_control(session: Session) -> None:
    """GET_CLIPBOARD, then wait for its answer: the server reads control messages in
    order, so every message sent before it has been acted on."""
    session.control.sendall(bytes([8, 0]))
    kind = recv_exact(session.control, 1)[0]
    assert kind == 0  # DeviceMessage.TYPE_CLIPBOARD
    (length,) = struct.unpack(">I", recv_exact(session.control, 4))
    recv_exact(session.control, length)


def touch(action: int, x: int, y: int, w: int, h: int) -> bytes:
    # type, action, pointer id (i64), x, y (i32), screen w, h (u16), pressure (u16), buttons
    return struct.pack(">BBqiiHHHii", 2, action, -2, x, y, w, h, 0xFFFF if action != 1 else 0, 0, 0)


def start_app(name: str) -> bytes:
    raw = name.encode()
    return struct.pack(">BB", 16, len(raw)) + raw


def _connect_when_listening(device: adbutils.AdbDevice, name: str) -> socket.socket:
    """The first socket, once the server listens: the shell that starts it returns before
    it binds, so a client in forward mode tries again until it does (as scrcpy's does)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            return device.create_connection(Network.LOCAL_ABSTRACT, name)
        except adbutils.AdbError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def open_session(phone: SimPhone, *options: str, scid: int = SCID) -> Session:
    device = phone.adb
    device.sync.push(b"PK\x03\x04 scrcpy-server stand-in", JAR)
    if scid != SCID:
        options = tuple(f"scid={scid:08x}" if o.startswith("scid=") else o for o in options)
    out = Output(device.shell(server_command("3.3.4", *options), stream=True))
    name = f"scrcpy_{scid:08x}"
    video = _connect_when_listening(device, name)
    video.settimeout(TIMEOUT)
    assert recv_exact(video, 1) == b"\x00"  # the dummy byte, on the first socket only
    control = device.create_connection(Network.LOCAL_ABSTRACT, name)
    control.settimeout(TIMEOUT)
    device_name = recv_exact(video, 64)
    codec, width, height = struct.unpack(">III", recv_exact(video, 12))
    assert codec == 0x68323634  # "h264"
    found = out.wait_for(r"\[server\] INFO: New display: (\d+)x(\d+)/(\d+) \(id=(\d+)\)\n")
    return Session(out, video, control, int(found.group(4)), width, height, device_name)


@pytest.fixture
def session(sim_phone: SimPhone) -> Iterator[Session]:
    s = open_session(sim_phone, *PRODUCT_OPTIONS)
    yield s
    for sock in (s.video, s.control, s.out.conn.conn):
        sock.close()


def decode_first_picture(session: Session) -> tuple[av.VideoFrame, int]:
    flags, config = read_packet(session.video)
    assert flags == 1 << 63, "the first packet is the config packet (SPS/PPS)"
    assert config.startswith(b"\x00\x00\x00\x01\x67"), "Annex-B SPS first"
    decoder = av.CodecContext.create("h264", "r")
    flags, data = read_packet(session.video)
    assert flags & (1 << 62), "the first frame is a key frame"
    assert not flags & (1 << 63)
    frames = decoder.decode(av.Packet(config + data))
    frames += decoder.decode(None)  # flush: the picture of this one packet
    assert len(frames) == 1
    return frames[0], flags & ~(3 << 62)


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    diff = ImageStat.Stat(ImageChops.difference(a.convert("RGB"), b.convert("RGB")))
    return sum(diff.mean) / 3


def test_product_options_give_a_display_its_stream_and_its_control(sim_phone: SimPhone, session: Session) -> None:
    phone = sim_phone
    model = phone.adb.shell("getprop ro.product.model").strip()
    assert session.name == model.encode().ljust(64, b"\0")
    assert (session.width, session.height) == (720, 1280)
    n = session.display_id
    assert n != 0
    before = state(phone)
    assert str(n) in before["foreground"]

    picture, _pts = decode_first_picture(session)
    assert (picture.width, picture.height) == (720, 1280)
    shot = Image.open(io.BytesIO(phone.adb.shell(["screencap", "-p", "-d", str(n)], encoding=None)))
    assert shot.size == (720, 1280)
    assert mean_difference(picture.to_image(), shot) < 6, "the picture is that display's screen"

    # START_APP on the server's display, then a tap by control message on its first row.
    session.control.sendall(start_app("com.android.settings"))
    sync_control(session)
    opened = state(phone)
    assert opened["foreground"][str(n)].startswith("com.android.settings/")
    assert opened["foreground"]["0"] == before["foreground"]["0"], "display 0 is left alone"
    screen_before_tap = opened["screen"][str(n)]

    from mika.sim.apps.frame import build_frame

    world = phone.device.world  # type: ignore[attr-defined]
    row = next(node for win in build_frame(world, n) for node in win.root.walk() if node.on_tap)
    x, y = row.center
    session.control.sendall(touch(0, x, y, 720, 1280) + touch(1, x, y, 720, 1280))
    sync_control(session)
    tapped = state(phone)
    assert tapped["screen"][str(n)] != screen_before_tap, "the tap opened a row on display N"
    assert tapped["foreground"]["0"] == before["foreground"]["0"]
    assert tapped["screen"]["0"] == before["screen"]["0"]

    # BACK as INJECT_KEYCODE (down, up) goes back on display N, not on display 0.
    key = struct.pack(">BBiii", 0, 0, 4, 0, 0) + struct.pack(">BBiii", 0, 1, 4, 0, 0)
    session.control.sendall(key)
    sync_control(session)
    backed = state(phone)
    assert backed["screen"][str(n)] == screen_before_tap
    assert backed["screen"]["0"] == before["screen"]["0"]

    # The stream goes on with the changed screen: later packets are frames, pts rising.
    decoder = av.CodecContext.create("h264", "r")
    last_pts = -1
    for _ in range(3):
        flags, data = read_packet(session.video)
        if flags & (1 << 63):
            decoder.decode(av.Packet(data))
            continue
        pts = flags & ~(3 << 62)
        assert pts > last_pts
        last_pts = pts


def test_closing_the_shell_stream_removes_the_display(sim_phone: SimPhone) -> None:
    s = open_session(sim_phone, *PRODUCT_OPTIONS)
    n = s.display_id
    assert str(n) in state(sim_phone)["foreground"]
    s.out.conn.conn.close()  # the host closes the shell: app_process goes, its display too
    # The server closes its sockets when it ends; drain the video socket to that end.
    while s.video.recv(65536):
        pass
    assert str(n) not in state(sim_phone)["foreground"]
    s.video.close()
    s.control.close()


def test_kill_of_its_pid_ends_the_server_and_its_display(sim_phone: SimPhone) -> None:
    s = open_session(sim_phone, *PRODUCT_OPTIONS)
    pid = sim_phone.shell("pidof app_process").split()
    assert len(pid) == 1
    assert any(
        line.split()[1:2] == pid and line.endswith("app_process") for line in sim_phone.shell("ps -A").splitlines()
    )
    sim_phone.shell(f"kill {pid[0]}")
    s.out.rest()  # the shell stream ends with the process
    assert str(s.display_id) not in state(sim_phone)["foreground"]
    assert sim_phone.run_adb("shell", "pidof app_process", check=False).returncode == 1
    s.video.close()
    s.control.close()


def test_closing_the_video_socket_ends_the_server(sim_phone: SimPhone) -> None:
    s = open_session(sim_phone, *PRODUCT_OPTIONS)
    s.video.close()
    s.out.rest()  # the server exits: its shell stream ends
    assert str(s.display_id) not in state(sim_phone)["foreground"]
    s.control.close()


def test_the_socket_listens_only_until_video_and_control_are_connected(sim_phone: SimPhone) -> None:
    name = f"scrcpy_{SCID:08x}"
    with pytest.raises(adbutils.AdbError):
        sim_phone.adb.create_connection(Network.LOCAL_ABSTRACT, name)  # nobody listens yet
    s = open_session(sim_phone, *PRODUCT_OPTIONS)
    with pytest.raises(adbutils.AdbError):
        sim_phone.adb.create_connection(Network.LOCAL_ABSTRACT, name)
    for sock in (s.video, s.control, s.out.conn.conn):
        sock.close()


def test_new_display_without_size_takes_the_main_display_size_and_density(sim_phone: SimPhone) -> None:
    options = [o for o in PRODUCT_OPTIONS if not o.startswith("new_display=")] + ["new_display="]
    s = open_session(sim_phone, *options)
    assert "New display: 1080x2400/440 (id=" in s.out.text
    assert (s.width, s.height) == (1080, 2400)
    for sock in (s.video, s.control, s.out.conn.conn):
        sock.close()


def test_max_size_limits_the_video_and_touches_map_back(sim_phone: SimPhone) -> None:
    options = [o for o in PRODUCT_OPTIONS if not o.startswith("max_size=")] + ["max_size=640"]
    s = open_session(sim_phone, *options)
    assert (s.width, s.height) == (360, 640)  # 720x1280 capped at 640 on the long side
    picture, _ = decode_first_picture(s)
    assert (picture.width, picture.height) == (360, 640)
    n = s.display_id
    s.control.sendall(start_app("com.android.settings"))
    sync_control(s)
    from mika.sim.apps.frame import build_frame

    world = sim_phone.device.world  # type: ignore[attr-defined]
    row = next(node for win in build_frame(world, n) for node in win.root.walk() if node.on_tap)
    x, y = row.center
    screen = state(sim_phone)["screen"][str(n)]
    # A touch sent for a wrong video size is ignored, as PositionMapper does.
    s.control.sendall(touch(0, x, y, 720, 1280) + touch(1, x, y, 720, 1280))
    sync_control(s)
    assert state(sim_phone)["screen"][str(n)] == screen
    s.control.sendall(touch(0, x // 2, y // 2, 360, 640) + touch(1, x // 2, y // 2, 360, 640))
    sync_control(s)
    assert state(sim_phone)["screen"][str(n)] != screen
    for sock in (s.video, s.control, s.out.conn.conn):
        sock.close()


def test_clipboard_set_with_ack_and_read_back(session: Session) -> None:
    text = "héllo 剪贴板".encode()
    session.control.sendall(struct.pack(">BqB", 9, 77, 0) + struct.pack(">I", len(text)) + text)
    assert recv_exact(session.control, 9) == struct.pack(">Bq", 1, 77)  # ACK_CLIPBOARD
    session.control.sendall(bytes([8, 0]))
    kind, length = struct.unpack(">BI", recv_exact(session.control, 5))
    assert kind == 0 and recv_exact(session.control, length) == text


def test_wrong_version_answers_as_the_real_server(sim_phone: SimPhone) -> None:
    sim_phone.adb.sync.push(b"PK\x03\x04 stand-in", JAR)
    done = sim_phone.run_adb("shell", server_command("3.3.3", *PRODUCT_OPTIONS), check=False)
    assert done.returncode == 1
    text = (done.stdout + done.stderr).decode()
    assert "[server] ERROR: The server version (3.3.4) does not match the client (3.3.3)\n" in text
    assert "java.lang.IllegalArgumentException: The server version (3.3.4) does not match" in text
    assert len(state(sim_phone)["foreground"]) == 1, "no display was made"


def test_a_bad_pair_and_a_bad_value_fail_like_options_parse(sim_phone: SimPhone) -> None:
    sim_phone.adb.sync.push(b"PK\x03\x04 stand-in", JAR)
    done = sim_phone.run_adb("shell", server_command("3.3.4", "tunnel_forward"), check=False)
    assert done.returncode == 1
    assert '[server] ERROR: Invalid key=value pair: "tunnel_forward"' in (done.stdout + done.stderr).decode()
    done = sim_phone.run_adb("shell", server_command("3.3.4", "new_display=0x100/1"), check=False)
    assert done.returncode == 1
    assert '[server] ERROR: Invalid non-positive size dimension: "0x100"' in (done.stdout + done.stderr).decode()


def test_unknown_option_is_warned_about_and_the_server_runs_on(sim_phone: SimPhone) -> None:
    s = open_session(sim_phone, *PRODUCT_OPTIONS, "no_such_option=1")
    assert "[server] WARN: Unknown server option: no_such_option\n" in s.out.text
    for sock in (s.video, s.control, s.out.conn.conn):
        sock.close()


def test_before_android_10_a_new_display_is_refused(sim_phone_factory) -> None:
    phone = sim_phone_factory()
    props = phone.device.world.props  # an Android 9 phone (set before anything runs)
    props["ro.build.version.sdk"], props["ro.build.version.release"] = "28", "9"
    phone.adb.sync.push(b"PK\x03\x04 stand-in", JAR)
    done = phone.run_adb("shell", server_command("3.3.4", *PRODUCT_OPTIONS), check=False)
    text = (done.stdout + done.stderr).decode()
    assert "[server] ERROR: New virtual display is not supported before Android 10\n" in text
    assert "(Android 9)" in text
    assert done.returncode == 0  # a ConfigurationException: logged, normal exit
    assert len(state(phone)["foreground"]) == 1


def test_missing_jar_is_a_class_not_found(sim_phone: SimPhone) -> None:
    done = sim_phone.run_adb("shell", server_command("3.3.4", *PRODUCT_OPTIONS), check=False)
    assert done.returncode == 1
    assert "ClassNotFoundException: com.genymobile.scrcpy.Server" in (done.stdout + done.stderr).decode()


def test_down_moves_up_is_a_swipe_that_scrolls_display_n(sim_phone: SimPhone, session: Session) -> None:
    session.control.sendall(start_app("com.android.settings"))
    sync_control(session)
    world = sim_phone.device.world  # type: ignore[attr-defined]
    n = session.display_id
    from mika.sim.apps.frame import build_frame

    listed = next(node for win in build_frame(world, n) for node in win.root.walk() if node.list_id)
    x, y = listed.center
    moves = b"".join(touch(2, x, y - step, 720, 1280) for step in range(40, 401, 40))
    session.control.sendall(touch(0, x, y, 720, 1280) + moves + touch(1, x, y - 400, 720, 1280))
    sync_control(session)
    activity = world.top_activity(n)
    assert activity.scroll.get(listed.list_id, 0) > 0, "dragged up: the list scrolled down"
    assert world.top_activity(0).package != "com.android.settings"


def test_a_second_server_on_a_listening_scid_fails_to_bind(sim_phone: SimPhone) -> None:
    device = sim_phone.adb
    device.sync.push(b"PK\x03\x04 stand-in", JAR)
    first = Output(device.shell(server_command("3.3.4", *PRODUCT_OPTIONS), stream=True))
    first.wait_for(r"INFO: Device: ")  # up and listening, no client yet
    done = sim_phone.run_adb("shell", server_command("3.3.4", *PRODUCT_OPTIONS), check=False)
    assert done.returncode == 1
    assert "[server] ERROR: Address already in use" in (done.stdout + done.stderr).decode()
    first.conn.conn.close()


@pytest.mark.parametrize(
    "garbage",
    [bytes([99]), struct.pack(">BI", 1, 0x7FFFFFFF) + b"x" * 100],
    ids=["unknown-type", "huge-text-length"],
)
def test_control_garbage_ends_the_server_and_its_display(sim_phone: SimPhone, garbage: bytes) -> None:
    s = open_session(sim_phone, *PRODUCT_OPTIONS)
    s.control.sendall(garbage)
    s.out.rest()  # the controller stops, so does the server: its shell stream ends
    assert str(s.display_id) not in state(sim_phone)["foreground"]
    s.video.close()
    s.control.close()


def test_cleanup_true_deletes_the_pushed_jar(sim_phone: SimPhone) -> None:
    options = [o for o in PRODUCT_OPTIONS if not o.startswith("cleanup=")] + ["cleanup=true"]
    s = open_session(sim_phone, *options)
    assert "No such file" in sim_phone.run_adb("shell", f"ls {JAR}", check=False).stdout.decode() + (
        sim_phone.run_adb("shell", f"ls {JAR}", check=False).stderr.decode()
    )
    for sock in (s.video, s.control, s.out.conn.conn):
        sock.close()


def test_two_servers_at_once_each_drive_their_own_display(sim_phone: SimPhone) -> None:
    a = open_session(sim_phone, *PRODUCT_OPTIONS, scid=0x11)
    b = open_session(sim_phone, *PRODUCT_OPTIONS, scid=0x7FFFFFFF)
    assert len({0, a.display_id, b.display_id}) == 3
    home = state(sim_phone)["foreground"]["0"]
    a.control.sendall(start_app("com.android.settings"))
    sync_control(a)
    b.control.sendall(start_app("?Not"))  # by label, as scrcpy's --start-app=?name
    sync_control(b)
    fg = state(sim_phone)["foreground"]
    assert fg[str(a.display_id)].startswith("com.android.settings/")
    assert fg[str(b.display_id)].startswith("com.mika.notes/")
    assert fg["0"] == home
    for s in (a, b):
        decode_first_picture(s)
        for sock in (s.video, s.control, s.out.conn.conn):
            sock.close()


def test_text_goes_to_the_focused_field_of_display_n_and_cjk_is_dropped(sim_phone: SimPhone, session: Session) -> None:
    session.control.sendall(start_app("com.android.contacts"))
    sync_control(session)
    world = sim_phone.device.world  # type: ignore[attr-defined]
    n = session.display_id
    from mika.sim.apps.frame import build_frame

    field = next(node for win in build_frame(world, n) for node in win.root.walk() if node.role == "field")
    x, y = field.center
    session.control.sendall(touch(0, x, y, 720, 1280) + touch(1, x, y, 720, 1280))
    text = "Ann 安".encode()
    session.control.sendall(struct.pack(">BI", 1, len(text)) + text)
    sync_control(session)
    assert world.top_activity(n).fields[field.field] == "Ann "  # no key types 安 (as on a phone)
    assert "[server] WARN: Could not inject char u+5b89" in session.out.wait_for(r"u\+5b89\n").string


def test_reset_video_sends_a_new_config_packet_and_a_key_frame(session: Session) -> None:
    decode_first_picture(session)
    session.control.sendall(bytes([17]))  # RESET_VIDEO
    seen = [read_packet(session.video)[0] for _ in range(3)]
    config_at = next(i for i, flags in enumerate(seen) if flags == 1 << 63)
    assert seen[config_at + 1] & (1 << 62), "a key frame follows the new config"
