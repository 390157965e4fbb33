"""The control socket: scrcpy 3.3.4's control messages (ControlMessageReader layouts,
big-endian), each acting on the server's display through the sim's input engine, and the
device messages it sends back (clipboard, clipboard acknowledgement)."""

from __future__ import annotations

import struct
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from mika.sim.apps import engine, gestures
from mika.sim.device import SimStream, StreamClosed
from mika.sim.keycodes import BY_CODE, key_char

if TYPE_CHECKING:
    from mika.sim.world.world import World

INJECT_KEYCODE = 0
INJECT_TEXT = 1
INJECT_TOUCH_EVENT = 2
INJECT_SCROLL_EVENT = 3
BACK_OR_SCREEN_ON = 4
EXPAND_NOTIFICATION_PANEL = 5
EXPAND_SETTINGS_PANEL = 6
COLLAPSE_PANELS = 7
GET_CLIPBOARD = 8
SET_CLIPBOARD = 9
SET_DISPLAY_POWER = 10
ROTATE_DEVICE = 11
UHID_CREATE = 12
UHID_INPUT = 13
UHID_DESTROY = 14
OPEN_HARD_KEYBOARD_SETTINGS = 15
START_APP = 16
RESET_VIDEO = 17

ACTION_DOWN, ACTION_UP, ACTION_MOVE = 0, 1, 2
# MotionEvent's second-finger actions (with the pointer index in bits 8–15): scrcpy's server
# makes them itself from DOWN/UP, but a client may send them as they are.
ACTION_POINTER_DOWN, ACTION_POINTER_UP = 5, 6
ACTION_MASK = 0xFF
STROKE_POINTS_MAX = 400  # per finger kept in `last_stroke`
DEVICE_CLIPBOARD, DEVICE_ACK_CLIPBOARD = 0, 1
CLIPBOARD_TEXT_MAX_LENGTH = (1 << 18) - 14  # DeviceMessage's limit (bytes)
SCROLL_STEP = 120  # display pixels one wheel notch scrolls
MAX_STRING = 1 << 20  # bytes; scrcpy's client sends at most 256 KiB (clipboard)

Log = Callable[[str, str], Awaitable[None]]


class ProtocolError(Exception):
    """A message the real server can't parse: its controller stops, and so does the server."""


class _Reader:
    def __init__(self, stream: SimStream) -> None:
        self._stream = stream
        self._buf = bytearray()

    async def take(self, n: int) -> bytes:
        while len(self._buf) < n:
            data = await self._stream.read()
            if not data:
                raise EOFError
            self._buf += data
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    async def u8(self) -> int:
        return (await self.take(1))[0]

    async def unpack(self, fmt: str) -> tuple[int, ...]:
        return struct.unpack(">" + fmt, await self.take(struct.calcsize(">" + fmt)))

    async def string(self, size_bytes: int = 4) -> str:
        length = int.from_bytes(await self.take(size_bytes), "big")
        if length > MAX_STRING:
            # The real server would try to allocate it and die of OutOfMemoryError; the
            # simulated one stops the same way instead of buffering without bound.
            raise ProtocolError(f"string of {length} bytes is too long")
        return (await self.take(length)).decode("utf-8", errors="replace")


class Controller:
    def __init__(
        self,
        world: World,
        display_id: int,
        stream: SimStream,
        video_size: Callable[[], tuple[int, int] | None],
        log: Log,
        reset_video: Callable[[], None],
    ) -> None:
        self.world = world
        self.display_id = display_id
        self.stream = stream
        self._video_size = video_size
        self._log = log
        self._reset_video = reset_video
        self._pointers: dict[int, tuple[int, int, float, int, int]] = {}  # id -> x0, y0, t0, x, y
        # The touch being drawn: every finger's points (ms from the first down, x, y) in the
        # order the fingers went down; kept as `last_stroke` in the world when all lift.
        self._stroke: dict[int, list[list[int]]] = {}
        self._stroke_t0 = 0.0
        # Two fingers at once: their positions when the second went down (a pinch/twist).
        self._multi: tuple[int, int, tuple[int, int], tuple[int, int]] | None = None

    async def run(self) -> None:
        reader = _Reader(self.stream)
        try:
            while True:
                await self._one(reader)
        except (EOFError, StreamClosed):
            return  # "this is expected on close"
        except ProtocolError as exc:
            await self._log("ERROR", f"Controller error: {exc}")

    # -- parsing (ControlMessageReader) --------------------------------------------------
    async def _position(self, r: _Reader) -> tuple[int, int, int, int]:
        x, y, w, h = await r.unpack("iiHH")
        return x, y, w, h

    async def _one(self, r: _Reader) -> None:
        kind = await r.u8()
        if kind == INJECT_KEYCODE:
            action, keycode, repeat, _meta = await r.unpack("Biii")
            self._key(action, keycode, repeat)
        elif kind == INJECT_TEXT:
            await self._text(await r.string())
        elif kind == INJECT_TOUCH_EVENT:
            action = await r.u8()
            (pointer_id,) = await r.unpack("q")
            position = await self._position(r)
            await r.unpack("Hii")  # pressure (u16 fixed point), action button, buttons
            self._touch(action, pointer_id, position)
        elif kind == INJECT_SCROLL_EVENT:
            position = await self._position(r)
            h_scroll, v_scroll, _buttons = await r.unpack("hhi")
            self._scroll(position, h_scroll / 0x8000 * 16, v_scroll / 0x8000 * 16)
        elif kind == BACK_OR_SCREEN_ON:
            action = await r.u8()
            self._back_or_screen_on(action)
        elif kind == GET_CLIPBOARD:
            await r.u8()  # copy key
            await self._send_clipboard()
        elif kind == SET_CLIPBOARD:
            (sequence,) = await r.unpack("q")
            paste = (await r.u8()) != 0
            text = await r.string()
            await self._set_clipboard(sequence, paste, text)
        elif kind == SET_DISPLAY_POWER:
            await r.u8()
        elif kind in (EXPAND_NOTIFICATION_PANEL, EXPAND_SETTINGS_PANEL, COLLAPSE_PANELS):
            self.world.shade_open = kind != COLLAPSE_PANELS
            self.world.changed()
        elif kind in (ROTATE_DEVICE, OPEN_HARD_KEYBOARD_SETTINGS):
            pass
        elif kind == RESET_VIDEO:
            self._reset_video()
        elif kind == UHID_CREATE:
            await r.take(6)
            await r.string(1)
            await r.string(2)
        elif kind == UHID_INPUT:
            await r.take(2)
            await r.string(2)
        elif kind == UHID_DESTROY:
            await r.take(2)
        elif kind == START_APP:
            await self._start_app(await r.string(1))
        else:
            raise ProtocolError(f"Unknown event type: {kind}")

    # -- acting on the display ---------------------------------------------------------
    def _alive(self) -> bool:
        return self.display_id in self.world.displays

    def _key(self, action: int, keycode: int, repeat: int) -> None:
        # The sim's keys act once per press: on the down event, not its repeats or its up.
        if action != ACTION_DOWN or repeat or not self._alive():
            return
        name = BY_CODE.get(keycode)
        if name is None:
            return
        ch = key_char(name)
        if ch is not None:
            engine.type_text(self.world, self.display_id, ch)
        elif name == "PASTE":
            self._paste()
        else:
            engine.key(self.world, self.display_id, name)

    async def _text(self, text: str) -> None:
        typed = []
        for ch in text:
            if 32 <= ord(ch) < 127:
                typed.append(ch)
            else:
                # The virtual key map has no key for it (Controller.injectText says so too).
                await self._log("WARN", f"Could not inject char u+{ord(ch):04x}")
        if typed and self._alive():
            engine.type_text(self.world, self.display_id, "".join(typed))

    def _to_display(self, position: tuple[int, int, int, int]) -> tuple[int, int] | None:
        """A point in video coordinates on the display, or None when the client's video size
        is not the current one (PositionMapper ignores such events)."""
        x, y, w, h = position
        size = self._video_size()
        if size is None or (w, h) != size or not self._alive():
            return None
        dw, dh = self.world.displays[self.display_id].size
        return x * dw // w, y * dh // h

    def _touch(self, action: int, pointer_id: int, position: tuple[int, int, int, int]) -> None:
        point = self._to_display(position)
        if point is None:
            return
        x, y = point
        now = self.world.clock.now()
        action &= ACTION_MASK
        if action == ACTION_POINTER_DOWN:
            action = ACTION_DOWN
        elif action == ACTION_POINTER_UP:
            action = ACTION_UP
        if action == ACTION_DOWN:
            if not self._pointers:
                self._stroke, self._stroke_t0, self._multi = {}, now, None
            self._pointers[pointer_id] = (x, y, now, x, y)
            self._stroke[pointer_id] = []
            if len(self._pointers) == 2 and self._multi is None:
                (ia, pa), (ib, pb) = self._pointers.items()
                self._multi = (ia, ib, (pa[3], pa[4]), (pb[3], pb[4]))
        elif action == ACTION_MOVE and pointer_id in self._pointers:
            x0, y0, t0, _, _ = self._pointers[pointer_id]
            self._pointers[pointer_id] = (x0, y0, t0, x, y)
        elif action == ACTION_UP and pointer_id in self._pointers:
            if self._stroke.get(pointer_id, [[0, -1, -1]])[-1][1:] != [x, y]:
                self._note(pointer_id, now, x, y)  # lifted away from the last move
            x0, y0, t0, _, _ = self._pointers[pointer_id]
            self._pointers[pointer_id] = (x0, y0, t0, x, y)
            if self._multi is not None:
                self._two_fingers()
            elif len(self._pointers) == 1:
                # Down … up where it started is a tap (or a long press); elsewhere a swipe.
                engine.swipe(self.world, self.display_id, x0, y0, x, y, int((now - t0) * 1000))
            self._pointers.pop(pointer_id)
            if not self._pointers:
                self._keep_stroke()
            return
        else:
            return
        self._note(pointer_id, now, x, y)

    def _note(self, pointer_id: int, now: float, x: int, y: int) -> None:
        points = self._stroke.setdefault(pointer_id, [])
        if len(points) < STROKE_POINTS_MAX:
            points.append([round((now - self._stroke_t0) * 1000), x, y])

    def _two_fingers(self) -> None:
        """The first finger of a pair to lift ends the pinch/twist; the other lifting later
        does nothing more (it is not a swipe)."""
        assert self._multi is not None
        ia, ib, a0, b0 = self._multi
        self._multi = (ia, ib, (-1, -1), (-1, -1))
        if a0 == (-1, -1) or ia not in self._pointers or ib not in self._pointers:
            return
        pa, pb = self._pointers[ia], self._pointers[ib]
        gestures.two_fingers(self.world, self.display_id, (a0, b0), ((pa[3], pa[4]), (pb[3], pb[4])))

    def _keep_stroke(self) -> None:
        # What the last touch drew, for tests and `simctl state`: a swipe's path, a pinch's
        # two fingers.
        self.world.data["last_stroke"] = {
            "display": self.display_id,
            "pointers": [points for points in self._stroke.values() if points],
        }
        self._multi = None
        self.world.changed()

    def _scroll(self, position: tuple[int, int, int, int], h_scroll: float, v_scroll: float) -> None:
        point = self._to_display(position)
        if point is None:
            return
        x, y = point
        # Wheel up (positive) shows what is above: like a finger dragging down.
        dx, dy = int(h_scroll * SCROLL_STEP), int(v_scroll * SCROLL_STEP)
        if dx or dy:
            engine.swipe(self.world, self.display_id, x, y, x + dx, y + dy, 100)

    def _back_or_screen_on(self, action: int) -> None:
        if action != ACTION_DOWN or not self._alive():
            return
        if self.world.screen_on:
            engine.key(self.world, self.display_id, "BACK")
        else:
            engine.key(self.world, self.display_id, "POWER")

    def _paste(self) -> None:
        text = str(self.world.data.get("clipboard") or "")
        if text:
            engine.type_text(self.world, self.display_id, text)

    async def _send_clipboard(self) -> None:
        raw = str(self.world.data.get("clipboard") or "").encode("utf-8")[:CLIPBOARD_TEXT_MAX_LENGTH]
        await self.stream.write(bytes([DEVICE_CLIPBOARD]) + struct.pack(">I", len(raw)) + raw)

    async def _set_clipboard(self, sequence: int, paste: bool, text: str) -> None:
        self.world.data["clipboard"] = text
        self.world.changed()
        await self._log("INFO", "Device clipboard set")
        if paste and self._alive():
            self._paste()
        if sequence != 0:
            await self.stream.write(bytes([DEVICE_ACK_CLIPBOARD]) + struct.pack(">q", sequence))

    async def _start_app(self, name: str) -> None:
        force_stop = name.startswith("+")
        if force_stop:
            name = name[1:]
        apps = self.world.apps
        if name.startswith("?"):
            name = name[1:]
            await self._log("INFO", "Processing Android apps... (this may take some time)")
            found = [a for a in apps.values() if a.launcher and a.label.lower().startswith(name.lower())]
            if not found:
                await self._log("WARN", f'No app found for name "{name}"')
                return
            if len(found) > 1:
                listing = "".join(f"\n    - {a.label:<25} {a.package}" for a in found)
                await self._log("WARN", f'No unique app found for name "{name}":{listing}')
                return
            app = found[0]
        else:
            by_package = apps.get(name)
            if by_package is None or not by_package.launcher:
                await self._log("WARN", f'No app found for package "{name}"')
                return
            app = by_package
        if not self._alive():
            await self._log("ERROR", f'No known display id to start app "{name}"')
            return
        await self._log("INFO", f'Starting app "{app.label}" [{app.package}] on display {self.display_id}...')
        if force_stop:
            self.world.force_stop(app.package)
        self.world.launch(app.package, self.display_id)
