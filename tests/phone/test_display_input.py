"""The takeover's input over the display helper's control socket (ControlDisplayInput),
read back from the other end of a real socket pair with a parser written from scrcpy
3.3.4's ControlMessageReader.java (big-endian, fields in the order it reads them) — not
with the encoder under test.
"""

from __future__ import annotations

import socket
import struct

import pytest

from mika.cap.phone.display.input import ControlDisplayInput, DisplayInputError
from mika.cap.phone.scrcpy_control import ControlChannel

SIZE = (1080, 2400)


class Wire:
    """The server's side: reads whole messages as ControlMessageReader does."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def _take(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            assert chunk, f"socket closed with {n - len(out)} bytes missing"
            out += chunk
        return out

    def message(self) -> tuple:
        kind = self._take(1)[0]
        if kind == 2:  # INJECT_TOUCH_EVENT
            action, pointer, x, y, w, h, pressure, button, buttons = struct.unpack(">BqiiHHHII", self._take(31))
            return ("touch", action, pointer, x, y, (w, h), pressure, button, buttons)
        if kind == 0:  # INJECT_KEYCODE
            action, code, repeat, meta = struct.unpack(">Biii", self._take(13))
            return ("key", action, code, repeat, meta)
        if kind == 9:  # SET_CLIPBOARD
            sequence, paste, length = struct.unpack(">qBI", self._take(13))
            return ("clipboard", sequence, paste, self._take(length).decode("utf-8"))
        raise AssertionError(f"unexpected control message type {kind}")

    def nothing_more(self) -> bool:
        self.sock.setblocking(False)
        try:
            return self.sock.recv(1) == b""
        except BlockingIOError:
            return True
        finally:
            self.sock.setblocking(True)


@pytest.fixture
def pair():
    ours, theirs = socket.socketpair()
    yield ControlDisplayInput(ControlChannel(ours, SIZE), display=7), Wire(theirs), ours
    ours.close()
    theirs.close()


def test_a_tap_is_a_finger_down_and_up_at_the_point(pair):
    hands, wire, _ = pair
    hands.tap(540, 1200)
    assert wire.message() == ("touch", 0, -2, 540, 1200, SIZE, 0xFFFF, 0, 0)
    assert wire.message() == ("touch", 1, -2, 540, 1200, SIZE, 0, 0, 0)
    assert wire.nothing_more()


def test_a_click_on_the_pictures_edge_lands_on_the_edge_pixel(pair):
    hands, wire, _ = pair
    hands.tap(1080, 2400)  # one past the last pixel (a rounding of the preview's mapping)
    assert wire.message()[3:5] == (1079, 2399)
    hands.tap(-3, -1)
    wire.message()
    assert wire.message()[3:5] == (0, 0)


def test_a_swipe_is_down_moves_up_from_start_to_end(pair):
    hands, wire, _ = pair
    hands.swipe(100, 2000, 100, 400, duration_ms=0)
    got = [wire.message() for _ in range(ControlDisplayInput.SWIPE_STEPS + 2)]
    assert got[0][:5] == ("touch", 0, -2, 100, 2000)
    moves = got[1:-1]
    assert all(m[1] == 2 for m in moves)
    ys = [m[4] for m in moves]
    assert ys == sorted(ys, reverse=True) and ys[-1] == 400
    assert got[-1][:5] == ("touch", 1, -2, 100, 400)
    assert wire.nothing_more()


@pytest.mark.parametrize("text", ["hello", "中文输入", "emoji 😀 and ‮rtl", "line\nbreak\x00nul"])
def test_text_of_any_unicode_goes_by_clipboard_and_paste(pair, text):
    hands, wire, _ = pair
    hands.text(text)
    assert wire.message() == ("clipboard", 0, 1, text)
    assert wire.nothing_more()


def test_empty_text_sends_nothing(pair):
    hands, wire, _ = pair
    hands.text("")
    assert wire.nothing_more()


def test_keys_and_back_are_key_down_and_up(pair):
    hands, wire, _ = pair
    hands.key("enter")
    assert wire.message() == ("key", 0, 66, 0, 0)
    assert wire.message() == ("key", 1, 66, 0, 0)
    hands.back()
    assert wire.message() == ("key", 0, 4, 0, 0)
    assert wire.message() == ("key", 1, 4, 0, 0)


def test_an_unknown_key_is_refused_with_the_known_ones_named(pair):
    hands, wire, _ = pair
    with pytest.raises(DisplayInputError, match=r"unknown key 'POWER'.*BACK"):
        hands.key("POWER")  # not a key the user may press on the agent's display
    assert wire.nothing_more()


def test_a_closed_control_socket_is_one_sentence_not_a_traceback(pair):
    hands, wire, _ = pair
    wire.sock.close()  # the helper died: its end of the control socket is gone
    with pytest.raises(DisplayInputError, match="display 7's control socket is closed"):
        hands.tap(1, 1)
