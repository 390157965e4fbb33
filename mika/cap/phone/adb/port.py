"""`AdbPort`: the AndroidPort over a real adb server (adbutils), uiautomator2 when it can.

Blocking adb calls run in threads. A call that fails because the phone went away
(cable, Wi-Fi) waits for it with capped exponential backoff for a bounded time, then
is tried once more; if the phone does not come back the call raises DeviceUnavailable
and the run ends saying so.

Hierarchy: uiautomator2's `dumpWindowHierarchy` JSON-RPC when its on-device server can be
started (all windows, `display-id`), else `uiautomator dump`. Both are retried a bounded
number of times on the answers real phones give while busy (uiautomator dump: "null root
node", "could not get idle state"; uiautomator2: an empty `<hierarchy/>`, a
TimeoutException waiting for idle). A uiautomator2 server that keeps failing (its client
already restarts it once) hands this read to `uiautomator dump`; actions through it
(set-text, clipboard, clear) say which call failed.

Display N (the agent's own, `mika.cap.phone.display`): when the run's DisplayKeeper has a
running helper for that display, taps, swipes, keys, app starts and pasted text go
through its control socket (touch coordinates in the video's size, which is the
display's); otherwise `input -d N` and `am start --display N`. uiautomator2's own
click/swipe are never used: they only reach display 0. Text goes in by uiautomator2
set-text on the focused field, but only when that field is the one display N's dump
shows focused (else it could be a field on the user's screen); otherwise by paste.

Shell: over shell protocol v2 when the phone announces `shell_v2` (the exit code and
stderr come framed), else v1 with an `; echo $?` trailer — both through our own small
client (`shell_client.py`), which does not pay adbutils' sleeps on every close.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import functools
import logging
import shlex
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import adbutils

from mika.cap.phone.adb.devices import transport_of
from mika.cap.phone.adb.nodelay import NoDelayDevice
from mika.cap.phone.adb.parse import parse_getprop, parse_window_focus, parse_wm_size, sdk_level
from mika.cap.phone.adb.reconnect import ReconnectPolicy, wait_until
from mika.cap.phone.adb.shell_client import ShellClient
from mika.cap.phone.adb.text_input import (
    ADB_KEYBOARD,
    ADB_KEYBOARD_CLEAR,
    adb_keyboard_command,
    input_text_command,
    is_plain_ascii,
)
from mika.cap.phone.picture import Picture
from mika.cap.phone.port import DeviceInfo, Foreground, LongExtra, PullError, ShellResult
from mika.cap.phone.scrcpy_control import KEYCODES, ControlChannel, ControlError
from mika.cap.phone.screenshot import CorruptedScreenshot, frame_picture, jpeg_picture, screen_picture
from mika.tool.errors import DeviceUnavailable, ToolFault

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

log = logging.getLogger(__name__)
T = TypeVar("T")

DUMP_PATH = "/sdcard/window_dump.xml"
DUMP_RETRIES = 4
_BUSY_DUMP = ("null root node", "could not get idle state")
# The phone's own JPEG of a small capture (uiautomator2's takeScreenshot) is encoded again
# for the model: at 90 its artefacts stay below what that second encoding keeps.
SMALL_CAPTURE_QUALITY = 90
U2_START_TIMEOUT = 10.0
GESTURE_STEP_MS = 16  # one finger move per frame of a swipe on the control socket
U2_MAX_ERRORS = 2
U2_RETRIES = 3
# uiautomator2's message when UiAutomation waited for an idle app in vain: nothing was done.
_U2_BUSY = ("TimeoutException", "could not get idle state", "No idle state")


def _move(channel: ControlChannel, *, x: int, y: int) -> None:
    from mika.cap.phone.scrcpy_control import TOUCH_MOVE

    channel.touch(TOUCH_MOVE, x, y)


def _quietly(task: asyncio.Future[Any]) -> None:
    """A side read nobody waits for any more: its failure is not worth a warning."""
    if not task.cancelled():
        task.exception()


def _u2_busy(exc: BaseException) -> bool:
    return any(b in str(exc) for b in _U2_BUSY)


def _u2_reason(exc: BaseException) -> str:
    """One line for a uiautomator2 error (its args carry params and Java stack traces)."""
    first = exc.args[0] if exc.args else exc
    text = str(first).strip().splitlines()[0] if str(first).strip() else type(exc).__name__
    return text.removeprefix("Unknown RPC error: ")[:200]


class PortError(ToolFault):
    code = "device_error"


class TextInputUnavailable(ToolFault):
    code = "text_input_unavailable"


class GestureUnavailable(ToolFault):
    """Two fingers at once need the agent's display: `input` draws one straight finger only."""

    code = "gesture_unavailable"


STROKE_POINTERS_MAX = 10  # scrcpy's PointersState holds at most ten pointers
# Pointer ids on the control socket: the first finger is scrcpy's generic finger, the
# second its virtual finger (what its own pinch uses), more get their index.
_POINTER_IDS = (-2, -3)


def _pointer_id(index: int) -> int:
    return _POINTER_IDS[index] if index < len(_POINTER_IDS) else index


def _check_stroke(pointers: list[list[tuple[int, int, int]]]) -> None:
    if not pointers or len(pointers) > STROKE_POINTERS_MAX:
        raise ValueError(f"a stroke needs 1 to {STROKE_POINTERS_MAX} fingers, got {len(pointers)}")
    for i, path in enumerate(pointers):
        if not path:
            raise ValueError(f"finger {i + 1} of the stroke has no points")
        times = [t for t, _, _ in path]
        if any(t < 0 for t in times) or times != sorted(times):
            raise ValueError(f"finger {i + 1}'s times must start at 0 or later and never go back: {times[:8]}")


class DeviceReconnected(PortError):
    """The phone dropped in the middle of an action and came back: look before acting again."""

    code = "device_reconnected"


class DumpFailed(PortError):
    code = "dump_failed"


class Borrower:
    """What the port tells when it takes something of the user's (the IME) and gives it back.

    The capability wires this to the run's BorrowedLedger so a crash still gives it back."""

    def borrow(self, kind: str, key: str, restore: dict[str, Any]) -> str:
        return ""

    def give_back(self, item_id: str) -> None:
        return None


class AdbPort:
    def __init__(
        self,
        serial: str,
        client: adbutils.AdbClient,
        *,
        backend: str = "auto",  # auto | u2 | dump
        reconnect: ReconnectPolicy | None = None,
        borrower: Borrower | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if backend not in ("auto", "u2", "dump"):
            raise ValueError(f"unknown hierarchy backend {backend!r}")
        self.serial = serial
        self.client = client
        self.backend = backend
        self.reconnect = reconnect or ReconnectPolicy()
        self.borrower = borrower or Borrower()
        self._sleep = sleep
        self._info: DeviceInfo | None = None
        self._u2: Any = None
        self._u2_failed = backend == "dump"
        self.last_dump_via = ""  # "uiautomator2" or "uiautomator dump": what gave the last screen
        self._u2_errors = 0  # uiautomator2 failures in a row (auto backend gives up at U2_MAX_ERRORS)
        self._lock = threading.Lock()
        self._borrowed_ime: tuple[str, str] | None = None  # (ledger id, previous ime)
        self._borrowed_clip: tuple[str, str] | None = None  # (ledger id, the user's clipboard text)
        self.reconnects = 0
        self.wire = ShellClient(client.host, client.port, serial)
        # (display, task) of the `dumpsys window` read alongside the last dump.
        self._focus_read: tuple[int, asyncio.Future[ShellResult]] | None = None
        # The run's DisplayKeeper (mika.cap.phone.display.life) when it has a display of
        # its own; `channel(display)` finds its control socket.
        self.displays: Any = None
        # Set by whoever decodes the display's video (the preview): display id → the
        # latest decoded frame (a PIL image, never re-encoded), or None when it has none yet.
        self.frame_source: Callable[[int], PILImage | None] | None = None

    def channel(self, display: int) -> ControlChannel | None:
        keeper = self.displays
        server = getattr(keeper, "server", None)
        if display == 0 or server is None or not server.alive or server.display_id != display:
            return None
        channel: ControlChannel | None = server.control
        return channel

    async def _send(self, channel: ControlChannel, fn: Callable[[ControlChannel], None], what: str) -> None:
        self._drop_focus()
        try:
            await asyncio.to_thread(fn, channel)
        except ControlError as exc:
            raise PortError(f"Could not {what} on the agent's display: {exc}") from None
        except OSError as exc:
            raise PortError(
                f"The agent's display stopped answering while trying to {what} ({exc}); read the screen "
                "(phone_observe) before trying again."
            ) from None

    # -- plumbing -------------------------------------------------------------------

    @property
    def device(self) -> adbutils.AdbDevice:
        return self.client.device(self.serial)

    def _online(self) -> bool:
        try:
            for info in self.client.list():
                if info.serial == self.serial and info.state == "device":
                    return True
            if transport_of(self.serial) != "usb":
                # The server forgets a dropped tcp device; ask it to connect again.
                self.client.connect(self.serial, timeout=3)
        except (adbutils.AdbError, OSError):
            return False
        return False

    def _with_reconnect(self, fn: Callable[[], T], *, repeat: bool = True) -> T:
        """Run `fn`; if the phone dropped, wait for it and run `fn` again — only when
        `repeat` (reads). An action may have reached the phone before the drop, so it is
        not repeated blindly: DeviceReconnected says to look at the screen first."""
        try:
            return fn()
        except (adbutils.AdbError, OSError, EOFError) as first:
            log.info("adb call on %s failed (%s); waiting for the phone", self.serial, first)
            if not wait_until(self._online, self.reconnect, self._sleep):
                raise DeviceUnavailable(
                    f"The phone {self.serial} stopped answering ({first}) and did not come back within "
                    f"{self.reconnect.total:g} s. Check the cable or Wi-Fi and `mika devices`, then start again."
                ) from None
            self.reconnects += 1
            self._drop_u2()  # its stream died with the connection
            if not repeat:
                raise DeviceReconnected(
                    f"The phone {self.serial} dropped during this action and is back now; the action may or may "
                    "not have happened. Read the screen (phone_observe) before doing it again."
                ) from None
            try:
                return fn()
            except (adbutils.AdbError, OSError, EOFError) as second:
                raise DeviceUnavailable(
                    f"The phone {self.serial} came back but still fails ({second}). Reconnect it and start again."
                ) from None

    async def _run(self, fn: Callable[[], T], *, repeat: bool = True) -> T:
        if not repeat:
            self._drop_focus()  # an action: the foreground read with the last dump may be old now
        return await asyncio.to_thread(lambda: self._with_reconnect(fn, repeat=repeat))

    async def _act(self, command: str, timeout: float = 20.0) -> ShellResult:
        """A shell command that changes the phone: not repeated after a reconnect."""
        return await self._run(lambda: self._shell_sync(command, timeout), repeat=False)

    def _shell_sync(self, command: str, timeout: float = 20.0) -> ShellResult:
        # Our own client (shell_client.py): adbutils pays two 10 ms sleeps per call.
        if self._info is not None and "shell_v2" in self._info.features:
            code, output = self.wire.shell_v2(command, timeout)
        else:
            code, output = self.wire.shell_v1(command, timeout)
        return ShellResult(code, output)

    def _exec_out(self, command: str, timeout: float = 20.0) -> bytes:
        """`exec:` gives the command's bytes untouched (no pty, no CR LF)."""
        return self.wire.exec_out(command, timeout)

    def _display_args(self, display: int) -> str:
        if display == 0:
            return ""
        if self._info is not None and not self._info.input_takes_display:
            raise PortError(f"Android {self._info.release} cannot send input to display {display}.")
        return f" -d {int(display)}"

    # -- AndroidPort ----------------------------------------------------------------

    async def info(self) -> DeviceInfo:
        if self._info is None:
            self._info = await self._run(self._read_info)
        return self._info

    def _read_info(self) -> DeviceInfo:
        props = parse_getprop(self._shell_sync("getprop").output)
        size = parse_wm_size(self._shell_sync("wm size").output).effective
        try:
            features = frozenset(f for f in self.device.get_features().split(",") if f)
        except adbutils.AdbError:
            features = frozenset()
        return DeviceInfo(
            serial=self.serial,
            model=props.get("ro.product.model", ""),
            release=props.get("ro.build.version.release", ""),
            sdk=sdk_level(props) or 0,
            transport=transport_of(self.serial),
            size=size,
            features=features,
        )

    async def shell(self, command: str, timeout: float = 20.0) -> ShellResult:
        return await self._run(lambda: self._shell_sync(command, timeout))

    # hierarchy

    async def dump_hierarchy(self, display: int) -> str:
        """The screen's hierarchy. The foreground (`dumpsys window`, which the reader asks
        for right after every dump) is read at the same time, over a connection of its
        own, so its round trip hides behind the dump's instead of following it."""
        await self.info()
        self._drop_focus()
        focus = asyncio.ensure_future(asyncio.to_thread(self._shell_sync, "dumpsys window", 20))
        try:
            xml = await self._run(lambda: self._dump(display))
        except BaseException:
            focus.cancel()
            focus.add_done_callback(_quietly)
            raise
        self._focus_read = (display, focus)
        return xml

    def _drop_focus(self) -> None:
        """Forget the foreground read with the last dump: something may have moved since."""
        if self._focus_read is not None:
            self._focus_read[1].add_done_callback(_quietly)
            self._focus_read = None

    def _dump(self, display: int) -> str:
        if not self._u2_failed:
            xml = self._u2_dump()
            if xml is not None:
                self.last_dump_via = "uiautomator2"
                return xml
        if display != 0:
            raise PortError(
                f"Display {display} can only be read through uiautomator2, which could not be started on this phone."
            )
        xml = self._plain_dump()
        self.last_dump_via = "uiautomator dump"
        return xml

    def _u2_device(self) -> Any:
        """The uiautomator2 device, started on first use; None once it proved unavailable."""
        if self._u2_failed:
            return None
        try:
            if self._u2 is None:
                self._u2 = self._start_u2()
            return self._u2
        except Exception as exc:  # u2 raises many kinds; any of them means "use the fallback"
            if self.backend == "u2":
                raise PortError(f"uiautomator2 could not be started on the phone: {exc}") from None
            log.info("uiautomator2 unavailable on %s (%s); using uiautomator dump", self.serial, exc)
            self._u2_failed = True
            self._drop_u2()
            return None

    def _drop_u2(self) -> None:
        """Forget the uiautomator2 device, closing its kept stream (started afresh on next use)."""
        u2, self._u2 = self._u2, None
        rpc = getattr(u2, "rpc", None)
        if rpc is not None:
            rpc.close()

    def _u2_dump(self) -> str | None:
        """The all-windows dump over uiautomator2's JSON-RPC, with the same bounded retries
        as `uiautomator dump` on the answers a busy phone gives (an empty hierarchy when the
        accessibility bridge has no root, a TimeoutException waiting for idle). None means
        "use uiautomator dump" (auto backend, uiautomator2 broken)."""
        u2 = self._u2_device()
        if u2 is None:
            return None
        last = ""
        for attempt in range(DUMP_RETRIES):
            try:
                # Straight to the RPC: uiautomator2's dump_hierarchy() retries an empty dump
                # with 1 s sleeps of its own and then hands back an empty screen as if real.
                xml = u2.jsonrpc.dumpWindowHierarchy(False, 50)
            except (adbutils.AdbError, OSError, EOFError):
                raise  # the phone went away: the reconnect logic waits for it
            except Exception as exc:
                if not _u2_busy(exc):
                    self._u2_broke("read the screen", exc)
                    return None
                last = _u2_reason(exc)
            else:
                if isinstance(xml, str) and "<node" in xml:
                    self._u2_errors = 0
                    return xml
                last = "an empty hierarchy (null root node)"
            self._sleep(0.3 * (attempt + 1))
        raise DumpFailed(
            f"The phone could not dump its screen after {DUMP_RETRIES} tries ({last or 'no answer'}). "
            "An animation or a busy app can cause this; wait a moment and read the screen again."
        )

    def _u2_broke(self, doing: str, exc: BaseException) -> None:
        """uiautomator2 failed in a way retrying here won't mend (its client already
        restarted its server once). With backend u2 that is the answer; with auto this read
        uses `uiautomator dump`, and after U2_MAX_ERRORS such failures in a row we stop
        asking uiautomator2."""
        reason = _u2_reason(exc)
        if self.backend == "u2":
            raise PortError(
                f"uiautomator2 could not {doing} on the phone ({reason}). "
                "Try again; if it keeps failing, reconnect the phone."
            ) from None
        self._u2_errors += 1
        log.info("uiautomator2 could not %s on %s (%s); using uiautomator dump", doing, self.serial, reason)
        self._drop_u2()
        if self._u2_errors >= U2_MAX_ERRORS:
            self._u2_failed = True
        return None

    def _start_u2(self) -> Any:
        from mika.cap.phone.adb.u2_transport import KeptDevice

        box: dict[str, Any] = {}

        def start() -> None:
            try:
                # Every JSON-RPC call over one kept `tcp:` stream (u2_transport.py);
                # uiautomator2's own start-up and restart still use its NoDelay sockets.
                d = KeptDevice(NoDelayDevice(self.client, serial=self.serial), self.wire)
                # Any call starts the on-device server; deviceInfo touches no node, so a
                # busy screen (pending dump faults) can't fail the start.
                d.jsonrpc.deviceInfo()
                box["device"] = d
            except Exception as exc:
                box["error"] = exc

        worker = threading.Thread(target=start, daemon=True, name="u2-start")
        worker.start()
        worker.join(U2_START_TIMEOUT)
        if "device" in box:
            return box["device"]
        raise RuntimeError(box.get("error") or f"its server did not start within {U2_START_TIMEOUT:g} s")

    def _u2_small_capture(self, scale: float) -> bytes | None:
        """uiautomator2's JPEG of display 0 at `scale`, or None when it has none to give
        (not running, or its answer is not a picture): then screencap it is."""
        u2 = self._u2_device()
        if u2 is None:
            return None
        try:
            encoded = u2.jsonrpc.takeScreenshot(scale, SMALL_CAPTURE_QUALITY)
        except (adbutils.AdbError, OSError, EOFError):
            raise  # the phone went away: the reconnect logic waits for it
        except Exception as exc:  # u2 raises many kinds; the full capture still works
            log.info("uiautomator2 could not take a screenshot on %s (%s)", self.serial, _u2_reason(exc))
            return None
        if not isinstance(encoded, str) or not encoded:
            return None
        try:
            return base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            return None

    def _plain_dump(self) -> str:
        last = ""
        for attempt in range(DUMP_RETRIES):
            out = self._shell_sync(f"uiautomator dump {DUMP_PATH}", timeout=30).output
            if any(b in out for b in _BUSY_DUMP) or "dumped to" not in out:
                last = out.strip()
                self._sleep(0.3 * (attempt + 1))
                continue
            data = self._exec_out(f"cat {DUMP_PATH}", timeout=30)
            return data.decode("utf-8", errors="replace")
        raise DumpFailed(
            f"The phone could not dump its screen after {DUMP_RETRIES} tries ({last or 'no answer'}). "
            "An animation or a busy app can cause this; wait a moment and read the screen again."
        )

    # screenshot

    async def screenshot(self, display: int, max_side: int | None = None) -> Picture:
        info = await self.info()
        if display != 0 and self.frame_source is not None:
            frame = self.frame_source(display)
            if frame is not None:
                return await asyncio.to_thread(frame_picture, frame)
        if display == 0 and max_side is not None and info.size is not None and max_side < max(info.size):
            # A picture for a model only: the phone scales and encodes it itself (uiautomator2's
            # takeScreenshot), a fraction of the bytes and the time of a full PNG that Mika
            # would decode and shrink anyway. Without uiautomator2, the PNG below.
            scale = (max_side + 0.5) / max(info.size)  # the phone truncates: land on max_side
            data = await self._run(lambda: self._u2_small_capture(scale))
            if data is not None:
                try:
                    return await asyncio.to_thread(jpeg_picture, data)
                except CorruptedScreenshot as exc:
                    log.info("uiautomator2's screenshot was unusable (%s); capturing with screencap", exc)
        if display != 0 and info.sdk and info.sdk < 34:
            raise PortError(
                f"Android {info.release or info.sdk} cannot capture display {display} with screencap "
                "(Android 14 or newer can) and no video frame of it is available; read the screen instead."
            )
        cmd = "screencap -p" if display == 0 else f"screencap -d {int(display)} -p"
        data = await self._run(lambda: self._exec_out(cmd, timeout=30))
        # Checked and decoded in the worker thread: a decode is CPU the event loop can't spare.
        try:
            return await asyncio.to_thread(screen_picture, data)
        except CorruptedScreenshot:
            # One more capture: a corrupted one is usually a one-off transfer fault.
            data = await self._run(lambda: self._exec_out(cmd, timeout=30))
            return await asyncio.to_thread(screen_picture, data)

    # foreground

    async def foreground(self, display: int) -> Foreground:
        out = await self._focus_with_dump(display)
        if out is None:
            out = await self.shell("dumpsys window", timeout=20)
        focus = parse_window_focus(out.output).for_display(display)
        if focus is None:
            return Foreground()
        component = focus.focus or focus.focused_app
        activity = str(component) if component is not None and component.activity else ""
        return Foreground(focus.package, activity)

    async def _focus_with_dump(self, display: int) -> ShellResult | None:
        """The `dumpsys window` read alongside the last dump of this display, once; None
        when there is none (another display, an action since, or it failed: then it is
        asked afresh, with the reconnect rules)."""
        pending, self._focus_read = self._focus_read, None
        if pending is None or pending[0] != display:
            if pending is not None:
                pending[1].add_done_callback(_quietly)
            return None
        try:
            return await pending[1]
        except Exception:
            return None

    # input

    async def _input(self, display: int, args: str) -> None:
        await self.info()
        result = await self._act(f"input{self._display_args(display)} {args}")
        if result.exit_code != 0:
            raise PortError(f"The phone refused `input {args}`: {result.output.strip()[:200]}")

    async def tap(self, display: int, x: int, y: int) -> None:
        channel = self.channel(display)
        if channel is not None:
            await self._send(channel, lambda c: c.tap(int(x), int(y)), f"tap at ({x}, {y})")
            return
        await self._input(display, f"tap {int(x)} {int(y)}")

    async def long_press(self, display: int, x: int, y: int, ms: int = 800) -> None:
        channel = self.channel(display)
        if channel is not None:
            await self._gesture(channel, [(int(x), int(y))], ms)
            return
        await self._input(display, f"swipe {int(x)} {int(y)} {int(x)} {int(y)} {int(ms)}")

    async def swipe(self, display: int, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        channel = self.channel(display)
        if channel is not None:
            steps = max(2, int(ms) // GESTURE_STEP_MS)
            path = [(round(x1 + (x2 - x1) * i / steps), round(y1 + (y2 - y1) * i / steps)) for i in range(steps + 1)]
            await self._gesture(channel, path, ms)
            return
        await self._input(display, f"swipe {int(x1)} {int(y1)} {int(x2)} {int(y2)} {int(ms)}")

    async def _gesture(self, channel: ControlChannel, path: list[tuple[int, int]], ms: int) -> None:
        """Finger down at the path's start, moved along it over `ms`, lifted at its end.
        The pauses are the gesture's own timing (a long press is a held finger), not a
        wait for anything."""
        from mika.cap.phone.scrcpy_control import TOUCH_DOWN, TOUCH_UP

        pause = max(0, int(ms)) / 1000 / max(1, len(path) - 1)
        await self._send(channel, lambda c: c.touch(TOUCH_DOWN, *path[0]), "press the screen")
        for x, y in path[1:]:
            await asyncio.sleep(pause)
            await self._send(channel, functools.partial(_move, x=x, y=y), "move on the screen")
        if len(path) == 1:
            await asyncio.sleep(pause)
        await self._send(channel, lambda c: c.touch(TOUCH_UP, *path[-1]), "lift from the screen")

    async def stroke(self, display: int, pointers: list[list[tuple[int, int, int]]]) -> str:
        _check_stroke(pointers)
        channel = self.channel(display)
        if channel is None:
            if len(pointers) > 1:
                raise GestureUnavailable(
                    f"A {len(pointers)}-finger gesture needs the agent's display (its control channel); display "
                    f"{display} has none, and `input` draws only one straight finger. Use one finger "
                    "(phone_swipe), or run with the agent's display."
                )
            (t0, x1, y1), (t1, x2, y2) = pointers[0][0], pointers[0][-1]
            await self._input(display, f"swipe {int(x1)} {int(y1)} {int(x2)} {int(y2)} {max(1, int(t1 - t0))}")
            return "input_swipe"
        await self._stroke_on(channel, pointers)
        return "control"

    async def _stroke_on(self, channel: ControlChannel, pointers: list[list[tuple[int, int, int]]]) -> None:
        """Each finger down at its first point, moved through the rest, lifted at its last;
        the events of all fingers in time order, each sent at its time (the phone reads
        speed and fling from the events' times). Pauses are the gesture's own timing."""
        from mika.cap.phone.scrcpy_control import TOUCH_DOWN, TOUCH_MOVE, TOUCH_UP, touch

        events: list[tuple[int, int, int, int, int, int]] = []  # t, order, action, id, x, y
        for i, path in enumerate(pointers):
            pid = _pointer_id(i)
            last = len(path) - 1
            for j, (t, x, y) in enumerate(path):
                action = TOUCH_DOWN if j == 0 else TOUCH_MOVE
                # Downs before moves before ups at the same instant: a finger is down before
                # another's move, and both are down before the first lifts.
                events.append((int(t), 0 if j == 0 else 1, action, pid, int(x), int(y)))
            t, x, y = path[last]
            events.append((int(t), 2, TOUCH_UP, pid, int(x), int(y)))
        events.sort(key=lambda e: (e[0], e[1]))
        # Everything encoded before the first finger goes down: a point off the display is
        # refused up front, never with a finger left pressed on the phone.
        batches: list[tuple[int, bytes, list[tuple[int, int, int, int]]]] = []  # t, bytes, (action, id, x, y)
        for t, _, action, pid, x, y in events:
            try:
                message = touch(action, x, y, channel.size, pointer=pid)
            except ControlError as exc:
                raise PortError(f"Could not draw the gesture on the agent's display: {exc}") from None
            if batches and batches[-1][0] == t:
                batches[-1][2].append((action, pid, x, y))
                batches[-1] = (t, batches[-1][1] + message, batches[-1][2])
            else:
                batches.append((t, message, [(action, pid, x, y)]))
        loop = asyncio.get_running_loop()
        start = loop.time()
        down: dict[int, tuple[int, int]] = {}  # fingers on the glass: id → last point sent
        try:
            for t, batch, sent in batches:
                delay = start + t / 1000 - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                await self._send(channel, functools.partial(ControlChannel.send, message=batch), "move on the screen")
                for action, pid, x, y in sent:
                    if action == TOUCH_UP:
                        down.pop(pid, None)
                    else:
                        down[pid] = (x, y)
        finally:
            if down:
                # Stopped half way (the run was stopped, the socket failed): every finger
                # still down is lifted where it is, so the phone is never left pressed.
                lift = b"".join(touch(TOUCH_UP, x, y, channel.size, pointer=pid) for pid, (x, y) in down.items())
                with contextlib.suppress(OSError):
                    await asyncio.shield(asyncio.to_thread(channel.send, lift))

    async def key(self, display: int, key: str) -> None:
        name = key.upper().removeprefix("KEYCODE_")
        if not name.replace("_", "").isalnum():
            raise PortError(f"{key!r} is not an Android key name.")
        channel = self.channel(display)
        if channel is not None and (name in KEYCODES or name.isdigit()):
            await self._send(channel, lambda c: c.press(name), f"press {name}")
            return
        await self._input(display, f"keyevent KEYCODE_{name}" if not name.isdigit() else f"keyevent {name}")

    async def type_text(self, display: int, text: str, *, existing: str = "") -> str:
        await self.info()
        if display != 0:
            return await self._type_on(display, text, existing)
        if is_plain_ascii(text):
            self._check(await self._act(input_text_command(text, self._display_args(display))))
            return "input_text"
        method = await self._run(lambda: self._u2_type(text, existing), repeat=False)
        if method:
            return method
        await self._run(self._use_adb_keyboard)
        self._check(await self._act(adb_keyboard_command(text)))
        return "adb_keyboard"

    def _u2_type(self, text: str, existing: str) -> str:
        """ACTION_SET_TEXT on the focused field (the whole new value: what it held plus the
        text, so a hint is never kept); without a focused field, paste via the clipboard."""
        u2 = self._u2_device()
        if u2 is None:
            return ""
        field = u2(focused=True)
        if self._u2_call("find the focused field", lambda: bool(field.exists)):
            self._u2_call("set the field's text", lambda: field.set_text(existing + text))
            return "set_text"
        with self._lock:
            if self._borrowed_clip is None:
                previous = self._u2_call("read the clipboard", lambda: u2.clipboard) or ""
                self._borrowed_clip = (self.borrower.borrow("clipboard", self.serial, {"text": previous}), previous)
        self._u2_call("set the clipboard", lambda: u2.set_clipboard(text))
        self._u2_call("paste the clipboard", u2.jsonrpc.pasteClipboard)
        return "clipboard"

    async def _type_on(self, display: int, text: str, existing: str) -> str:
        """Text on the agent's display: set-text on the focused field when that field is
        display N's; else paste (the control socket pastes on display N; the user's
        clipboard is written down first and given back at the end); else `input -d N text`."""
        focused = await self._focused_on(display)
        if focused is not None:
            done = await self._run(lambda: self._u2_set_focused(focused, existing + text), repeat=False)
            if done:
                return "set_text"
        channel = self.channel(display)
        if channel is not None:
            await self._run(self._borrow_clipboard)
            await self._send(channel, lambda c: c.paste(text), "paste the text")
            return "clipboard"
        if is_plain_ascii(text):
            self._check(await self._act(input_text_command(text, self._display_args(display))))
            return "input_text"
        raise TextInputUnavailable(
            f"This text cannot be typed on display {display}: no field there has the focus, the display helper "
            "is not running and `input text` types plain ASCII only. Tap the field first."
        )

    async def _focused_on(self, display: int) -> tuple[str, tuple[int, int, int, int]] | None:
        """(package, bounds) of the focused field in display N's dump, if there is one."""
        from mika.uistate import HierarchyError, parse_hierarchy
        from mika.uistate.screen import only_display

        try:
            tree = only_display(parse_hierarchy(await self.dump_hierarchy(display)), display)
        except (HierarchyError, ToolFault):
            return None
        for node in tree.nodes():
            if node.focused and node.editable:
                b = node.bounds
                return node.package, (b.left, b.top, b.right, b.bottom)
        return None

    def _u2_set_focused(self, focused: tuple[str, tuple[int, int, int, int]], value: str) -> bool:
        """set_text on uiautomator2's focused field when it is the one display N shows
        focused (same app, same bounds); False when it is not (the user's screen has it)."""
        u2 = self._u2_device()
        if u2 is None:
            return False
        field = u2(focused=True)
        if not self._u2_call("find the focused field", lambda: bool(field.exists)):
            return False
        info = self._u2_call("read the focused field", lambda: field.info)
        b = info.get("bounds") or {}
        bounds = (b.get("left"), b.get("top"), b.get("right"), b.get("bottom"))
        if info.get("packageName") != focused[0] or bounds != focused[1]:
            return False
        self._u2_call("set the field's text", lambda: field.set_text(value))
        return True

    def _borrow_clipboard(self) -> None:
        u2 = self._u2_device()
        with self._lock:
            if self._borrowed_clip is not None or u2 is None:
                return
            previous = self._u2_call("read the clipboard", lambda: u2.clipboard) or ""
            self._borrowed_clip = (self.borrower.borrow("clipboard", self.serial, {"text": previous}), previous)

    def _u2_call(self, doing: str, fn: Callable[[], T]) -> T:
        """One uiautomator2 call of an action. A wait for idle that timed out did nothing,
        so it is tried again (U2_RETRIES in all); any other failure is a PortError naming
        what was being done. A phone that went away is left to the reconnect logic."""
        for attempt in range(U2_RETRIES):
            try:
                return fn()
            except (adbutils.AdbError, OSError, EOFError):
                raise
            except ToolFault:
                raise
            except Exception as exc:
                if _u2_busy(exc) and attempt + 1 < U2_RETRIES:
                    self._sleep(0.3 * (attempt + 1))
                    continue
                self._drop_u2()  # start it afresh next time
                tries = f" after {attempt + 1} tries" if attempt else ""
                raise PortError(
                    f"uiautomator2 could not {doing} on the phone{tries} ({_u2_reason(exc)}). "
                    "Read the screen (phone_observe) to see what happened, then try again."
                ) from None
        raise AssertionError("unreachable")  # the loop returns or raises

    async def clear_text(self, display: int, length: int = 0) -> None:
        await self.info()
        u2 = await asyncio.to_thread(self._u2_device)
        if u2 is not None:
            await self._run(lambda: self._u2_call("clear the field", u2.clear_text), repeat=False)
            return
        if self._borrowed_ime is not None:
            await self._run(lambda: self._check(self._shell_sync(ADB_KEYBOARD_CLEAR)))
            return
        # Without a helper: jump to the end and delete back over what the field holds.
        count = max(1, min(int(length) or 60, 400))
        keys = " ".join(["KEYCODE_DEL"] * count)
        await self._input(display, f"keyevent KEYCODE_MOVE_END {keys}")

    @staticmethod
    def _check(result: ShellResult) -> None:
        if result.exit_code != 0:
            raise PortError(f"Typing failed on the phone: {result.output.strip()[:200]}")

    def _use_adb_keyboard(self) -> None:
        """Switch to the ADB Keyboard, writing down the user's IME first."""
        with self._lock:
            if self._borrowed_ime is not None:
                return
            listed = self._shell_sync("ime list -a -s").output.split()
            if ADB_KEYBOARD not in listed:
                raise TextInputUnavailable(
                    "This text has characters `input text` cannot type, uiautomator2 could not be started, "
                    "and the ADB Keyboard (com.android.adbkeyboard) is not installed. Install one of them, "
                    "or type only plain ASCII."
                )
            previous = self._shell_sync("settings get secure default_input_method").output.strip()
            item = self.borrower.borrow("ime", self.serial, {"ime": previous})
            self._shell_sync(f"ime enable {ADB_KEYBOARD}")
            self._check(self._shell_sync(f"ime set {ADB_KEYBOARD}"))
            self._borrowed_ime = (item, previous)

    def _give_back_ime(self) -> None:
        if self._borrowed_ime is None:
            return
        item, previous = self._borrowed_ime
        if previous and previous != "null":
            self._shell_sync(f"ime set {shlex.quote(previous)}")
        self._borrowed_ime = None
        self.borrower.give_back(item)

    # apps and intents

    async def start_activity(
        self,
        display: int,
        *,
        action: str | None = None,
        data: str | None = None,
        mime: str | None = None,
        component: str | None = None,
        package: str | None = None,
        extras: dict[str, object] | None = None,
    ) -> ShellResult:
        parts = ["am", "start"]
        if display:
            parts += ["--display", str(int(display))]
        for flag, value in (("-a", action), ("-d", data), ("-t", mime), ("-n", component)):
            if value:
                parts += [flag, value]
        for key, extra in (extras or {}).items():
            if isinstance(extra, bool):
                parts += ["--ez", key, "true" if extra else "false"]
            elif isinstance(extra, int):
                parts += ["--el" if isinstance(extra, LongExtra) else "--ei", key, str(int(extra))]
            elif isinstance(extra, float):
                parts += ["--ef", key, str(extra)]
            elif isinstance(extra, (list, tuple)):
                parts += ["--eial", key, ",".join(str(int(v)) for v in extra)]
            else:
                parts += ["--es", key, str(extra)]
        if package:
            parts.append(package)
        target = package or (component or "").partition("/")[0]
        if display:
            await self._before_app_start(target)
        result = await self._act(" ".join(shlex.quote(p) for p in parts))
        failed = result.exit_code != 0 or "Error:" in result.output or "Exception" in result.output
        return ShellResult(1 if failed else 0, result.output)

    async def _before_app_start(self, package: str) -> None:
        # The run's display keeper mutes the app there and notes its tasks (display/life.py).
        hook = getattr(self.displays, "before_app_start", None)
        if hook is not None:
            await hook(package)

    async def launch_app(self, display: int, package: str) -> ShellResult:
        channel = self.channel(display)
        if display and channel is not None:
            await self._before_app_start(package)
        if channel is not None:
            # scrcpy's START_APP launches the app's launcher activity on its display,
            # from the shell-uid server (allowed to launch on any display).
            await self._send(channel, lambda c: c.start_app(package), f"start {package}")
            return ShellResult(0, f"started {package} on display {display}")
        resolved = await self.shell(f"cmd package resolve-activity --brief {shlex.quote(package)}")
        lines = [ln.strip() for ln in resolved.output.splitlines() if "/" in ln and " " not in ln.strip()]
        if resolved.exit_code == 0 and lines:
            return await self.start_activity(display, component=lines[-1])
        out = await self._act(f"monkey -p {shlex.quote(package)} -c android.intent.category.LAUNCHER 1")
        ok = out.exit_code == 0 and "Events injected: 1" in out.output
        return ShellResult(0 if ok else 1, out.output)

    async def launchable_apps(self) -> dict[str, str]:
        from mika.cap.phone.adb.labels import is_background_package, label_for
        from mika.cap.phone.adb.parse import parse_packages

        query = await self.shell(
            "cmd package query-activities --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER"
        )
        launchable = {
            ln.strip().split("/")[0]
            for ln in query.output.splitlines()
            if query.exit_code == 0 and "/" in ln and " " not in ln.strip()
        }
        if launchable:
            return {pkg: label_for(pkg) for pkg in sorted(launchable)}
        out = await self.shell("pm list packages")
        return {pkg: label_for(pkg) for pkg in parse_packages(out.output) if not is_background_package(pkg)}

    async def pull(self, path: str, dest: Path, max_bytes: int) -> int:
        return await self._run(lambda: self._pull_sync(path, dest, max_bytes))

    def _pull_sync(self, path: str, dest: Path, max_bytes: int) -> int:
        info = self.device.sync.stat(path)
        kind = info.mode & 0o170000
        if info.mode == 0:
            raise PullError(f"there is no file {path} on the phone")
        if kind != 0o100000:
            raise PullError(
                f"{path} on the phone is not a plain file ({'a folder' if kind == 0o040000 else 'special'})"
            )
        if info.size > max_bytes:
            raise PullError(f"{path} is {info.size} bytes; at most {max_bytes} are pulled")
        total = 0
        try:
            with open(dest, "xb") as out:
                for chunk in self.device.sync.iter_content(path):
                    total += len(chunk)
                    if total > max_bytes:  # it grew since the stat
                        raise PullError(f"{path} is over {max_bytes} bytes; at most that is pulled")
                    out.write(chunk)
        except BaseException:
            dest.unlink(missing_ok=True)
            raise
        return total

    def _give_back_clipboard(self) -> None:
        if self._borrowed_clip is None:
            return
        item, previous = self._borrowed_clip
        u2 = self._u2_device()
        if u2 is not None:
            u2.clipboard = previous
            self._borrowed_clip = None
            self.borrower.give_back(item)

    async def close(self) -> None:
        for give_back in (self._give_back_ime, self._give_back_clipboard):
            try:
                await asyncio.to_thread(give_back)
            except Exception as exc:  # the ledger keeps it; the next start gives it back
                log.warning("could not give back what was borrowed on %s: %s", self.serial, exc)
        rpc = getattr(self._u2, "rpc", None)
        if rpc is not None:
            rpc.close()  # the kept stream; the on-device server stays for the next run
