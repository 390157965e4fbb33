"""scrcpy 3.3.4 control messages, encoded as its server's ControlMessageReader reads them.

All integers are big-endian. Positions are (x, y) in the video's size plus that size
(u16 each); the server scales them to the display. Texts are UTF-8 with a length
prefix (4 bytes; START_APP's name has a 1-byte length).
"""

from __future__ import annotations

import struct
import threading
from typing import Protocol

# ControlMessage.TYPE_* (scrcpy 3.3.4)
INJECT_KEYCODE = 0
INJECT_TEXT = 1
INJECT_TOUCH_EVENT = 2
INJECT_SCROLL_EVENT = 3
BACK_OR_SCREEN_ON = 4
SET_CLIPBOARD = 9
START_APP = 16

# android.view.KeyEvent / MotionEvent actions
KEY_DOWN, KEY_UP = 0, 1
TOUCH_DOWN, TOUCH_UP, TOUCH_MOVE = 0, 1, 2
# scrcpy's POINTER_ID_GENERIC_FINGER (-2): a finger, not the mouse.
FINGER = -2
INJECT_TEXT_MAX = 300  # bytes; the server refuses longer texts
START_APP_NAME_MAX = 255  # 1-byte length

# Android key codes for the names the phone tools use (android.view.KeyEvent).
KEYCODES: dict[str, int] = {
    "HOME": 3,
    "BACK": 4,
    "DPAD_UP": 19,
    "DPAD_DOWN": 20,
    "DPAD_LEFT": 21,
    "DPAD_RIGHT": 22,
    "DPAD_CENTER": 23,
    "VOLUME_UP": 24,
    "VOLUME_DOWN": 25,
    "POWER": 26,
    "TAB": 61,
    "SPACE": 62,
    "ENTER": 66,
    "DEL": 67,
    "MENU": 82,
    "SEARCH": 84,
    "PAGE_UP": 92,
    "PAGE_DOWN": 93,
    "ESCAPE": 111,
    "FORWARD_DEL": 112,
    "MOVE_HOME": 122,
    "MOVE_END": 123,
    "NUMPAD_ENTER": 160,
    "APP_SWITCH": 187,
    "PASTE": 279,
}


class ControlError(ValueError):
    """A control message that cannot be encoded (too long, off the video, unknown key)."""


def _position(x: int, y: int, size: tuple[int, int]) -> bytes:
    w, h = size
    if not (0 <= x < w and 0 <= y < h):
        raise ControlError(f"({x}, {y}) is outside the display's {w}x{h}.")
    return struct.pack(">iiHH", int(x), int(y), w, h)


def touch(action: int, x: int, y: int, size: tuple[int, int], *, pointer: int = FINGER) -> bytes:
    # u16 fixed-point pressure: 0xffff is 1.0; lifting the finger sends 0.
    pressure = 0 if action == TOUCH_UP else 0xFFFF
    return (
        struct.pack(">BBq", INJECT_TOUCH_EVENT, action, pointer)
        + _position(x, y, size)
        + struct.pack(">HII", pressure, 0, 0)  # pressure, action button, buttons
    )


def key(action: int, keycode: int, *, repeat: int = 0, meta: int = 0) -> bytes:
    return struct.pack(">BBiii", INJECT_KEYCODE, action, keycode, repeat, meta)


def keycode_of(name: str) -> int:
    bare = name.upper().removeprefix("KEYCODE_")
    if bare.isdigit():
        return int(bare)
    if bare not in KEYCODES:
        raise ControlError(f"{name!r} has no key code here.")
    return KEYCODES[bare]


def text(value: str) -> bytes:
    data = value.encode("utf-8")
    if len(data) > INJECT_TEXT_MAX:
        raise ControlError(f"Text of {len(data)} bytes is over scrcpy's {INJECT_TEXT_MAX}.")
    return struct.pack(">BI", INJECT_TEXT, len(data)) + data


def back_or_screen_on(action: int) -> bytes:
    return struct.pack(">BB", BACK_OR_SCREEN_ON, action)


def set_clipboard(value: str, *, paste: bool, sequence: int = 0) -> bytes:
    data = value.encode("utf-8")
    return struct.pack(">BqBI", SET_CLIPBOARD, sequence, 1 if paste else 0, len(data)) + data


def start_app(package: str, *, force_stop: bool = False) -> bytes:
    # A leading "+" asks the server to force-stop the app first (scrcpy's --start-app=+pkg).
    name = ("+" if force_stop else "") + package
    data = name.encode("utf-8")
    if not data or len(data) > START_APP_NAME_MAX:
        raise ControlError(f"{package!r} is not a package name scrcpy can start.")
    return struct.pack(">BB", START_APP, len(data)) + data


class _Sink(Protocol):
    def sendall(self, data: bytes, /) -> None: ...


class ControlChannel:
    """Writes whole messages to the control socket; one writer at a time."""

    def __init__(self, sink: _Sink, size: tuple[int, int]) -> None:
        self.sink = sink
        self.size = size
        self._lock = threading.Lock()

    def send(self, message: bytes) -> None:
        with self._lock:
            self.sink.sendall(message)

    def tap(self, x: int, y: int) -> None:
        self.send(touch(TOUCH_DOWN, x, y, self.size) + touch(TOUCH_UP, x, y, self.size))

    def touch(self, action: int, x: int, y: int) -> None:
        self.send(touch(action, x, y, self.size))

    def press(self, name: str) -> None:
        code = keycode_of(name)
        self.send(key(KEY_DOWN, code) + key(KEY_UP, code))

    def type_text(self, value: str) -> None:
        self.send(text(value))

    def paste(self, value: str) -> None:
        self.send(set_clipboard(value, paste=True))

    def start_app(self, package: str) -> None:
        self.send(start_app(package))
