"""`DisplayServer`: scrcpy-server 3.3.4 on the phone, giving the agent a display of its own.

Blocking (adbutils); the display's keeper calls it from a worker thread. Start-up, as
the real scrcpy client does it with tunnel_forward:

1. push the verified jar to /data/local/tmp (adb sync);
2. start `app_process … Server 3.3.4 key=value…` as a streamed shell (its stdout is
   drained by a thread, which keeps the last lines and notices when the process ends);
3. connect `localabstract:scrcpy_<scid>` until the server answers with the dummy byte
   (video socket), then once more (control socket) — the server accepts them in that order;
4. wait for the stdout line `New display: WxH/dpi (id=N)`, then read the device name and
   the codec meta from the video socket.

The video socket is handed, once, to whoever decodes frames (`video_stream()`); the
control socket stays here (`control`). Stopping closes both sockets and the shell
stream, which ends the server, so the display is released. It was made with
vd_destroy_content=false, so tasks still on it would move to the main screen: the keeper
(life.py) finishes or moves the run's tasks itself before it stops the server.
"""

from __future__ import annotations

import collections
import logging
import re
import secrets
import shlex
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import adbutils
from adbutils import Network

from mika.cap.phone.display.jar import DEVICE_PATH, SERVER_VERSION, ServerJar
from mika.cap.phone.display.packets import (
    StreamHead,
    VideoPacket,
    VideoStreamError,
    read_exact,
    read_head,
    read_packets,
)
from mika.cap.phone.scrcpy_control import ControlChannel

log = logging.getLogger(__name__)

START_TIMEOUT = 15.0
CONNECT_RETRY_S = 0.1
LAST_LINES = 12
_NEW_DISPLAY = re.compile(r"New display: (\d+)x(\d+)/(\d+) \(id=(-?\d+)\)")


class DisplayServerError(Exception):
    """The helper could not be started; the message names the step and the server's words."""


@dataclass(frozen=True)
class DisplaySpec:
    width: int
    height: int
    dpi: int

    def __str__(self) -> str:
        return f"{self.width}x{self.height}/{self.dpi}"


def server_command(scid: str, spec: DisplaySpec) -> str:
    options = {
        "scid": scid,
        "log_level": "info",
        "tunnel_forward": "true",
        "video": "true",
        "audio": "false",
        "control": "true",
        "cleanup": "false",
        "new_display": str(spec),
        "vd_destroy_content": "false",
        # The keyboard of the agent's display shows there, never on the user's screen.
        "display_ime_policy": "local",
        "send_device_meta": "true",
        "send_frame_meta": "true",
        "send_codec_meta": "true",
        "send_dummy_byte": "true",
        "video_codec": "h264",
        # Nobody reads device messages: the phone's clipboard is not mirrored here.
        "clipboard_autosync": "false",
    }
    args = " ".join(f"{k}={v}" for k, v in options.items())
    return f"CLASSPATH={shlex.quote(DEVICE_PATH)} app_process / com.genymobile.scrcpy.Server {SERVER_VERSION} {args}"


def push_jar(device: adbutils.AdbDevice, jar: ServerJar) -> None:
    """The verified jar to /data/local/tmp over adb sync (the only copy the server runs)."""
    try:
        device.sync.push(jar.data, DEVICE_PATH, mode=0o644)
    except (adbutils.AdbError, OSError) as exc:
        raise DisplayServerError(f"The display helper could not be copied to the phone ({exc}).") from None


def new_scid() -> str:
    # scrcpy's scid is a 31-bit number written as 8 hex digits.
    return f"{secrets.randbits(31):08x}"


class _ServerOutput:
    """Drains the server's stdout: keeps the last lines, finds the display line."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.lines: collections.deque[str] = collections.deque(maxlen=LAST_LINES)
        self.display: tuple[int, int, int, int] | None = None  # w, h, dpi, id
        self.changed = threading.Condition()
        self.ended = False
        self._thread = threading.Thread(target=self._drain, daemon=True, name="scrcpy-stdout")
        self._thread.start()

    def _drain(self) -> None:
        buf = b""
        try:
            while True:
                chunk = self.conn.conn.recv(4096)
                if not chunk:
                    break
                buf += chunk
                while b"\n" in buf:
                    raw, buf = buf.split(b"\n", 1)
                    self._line(raw.decode("utf-8", errors="replace").rstrip("\r"))
        except OSError:
            pass
        finally:
            if buf:
                self._line(buf.decode("utf-8", errors="replace"))
            with self.changed:
                self.ended = True
                self.changed.notify_all()

    def _line(self, line: str) -> None:
        with self.changed:
            self.lines.append(line)
            found = _NEW_DISPLAY.search(line)
            if found and self.display is None:
                w, h, dpi, did = (int(g) for g in found.groups())
                self.display = (w, h, dpi, did)
            self.changed.notify_all()

    def wait(self, until: Callable[[], bool], timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: until() or self.ended, timeout)

    def last(self) -> str:
        lines = [ln for ln in self.lines if ln.strip()]
        return " | ".join(lines[-5:]) or "no output"


class DisplayServer:
    """One running scrcpy server and its virtual display."""

    def __init__(self, device: adbutils.AdbDevice, jar: ServerJar, spec: DisplaySpec) -> None:
        self.device = device
        self.jar = jar
        self.spec = spec
        self.scid = new_scid()
        self.display_id: int | None = None
        self.size: tuple[int, int] = (spec.width, spec.height)  # the video's size
        self.header: StreamHead | None = None
        self.control: ControlChannel | None = None
        self._video: socket.socket | None = None
        self._control_sock: socket.socket | None = None
        self._output: _ServerOutput | None = None
        self._video_taken = False

    # -- start ------------------------------------------------------------------------

    def start(self, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        push_jar(self.device, self.jar)
        conn = self.device.shell(server_command(self.scid, self.spec), stream=True)
        self._output = output = _ServerOutput(conn)
        try:
            self._video = self._connect(deadline, first=True)
            self._control_sock = self._connect(deadline, first=False)
            if not output.wait(lambda: output.display is not None, max(0.0, deadline - time.monotonic())):
                raise DisplayServerError(
                    f"The display helper did not report a new display within {timeout:g} s (it said: {output.last()})."
                )
            if output.display is None:
                raise DisplayServerError(
                    f"The display helper stopped before making a display (it said: {output.last()})."
                )
            w, h, _dpi, did = output.display
            self.display_id = did
            self._video.settimeout(max(0.5, deadline - time.monotonic()))
            self.header = read_head(self._video.recv, dummy_byte=False, device_meta=True)
            self._video.settimeout(None)
            self.size = (self.header.width or w, self.header.height or h)
            self.control = ControlChannel(self._control_sock, self.size)
        except (DisplayServerError, VideoStreamError, OSError, adbutils.AdbError) as exc:
            self.stop()
            if isinstance(exc, DisplayServerError):
                raise
            raise DisplayServerError(f"The display helper's stream failed ({exc}; it said: {output.last()}).") from None

    def _connect(self, deadline: float, *, first: bool) -> socket.socket:
        """The server's local socket; the first one proves itself with the dummy byte."""
        assert self._output is not None
        name = f"scrcpy_{self.scid}"
        last = ""
        while True:
            if self._output.ended:
                raise DisplayServerError(f"The display helper stopped at start (it said: {self._output.last()}).")
            try:
                sock = self.device.create_connection(Network.LOCAL_ABSTRACT, name)
                if not first:
                    return sock
                sock.settimeout(max(0.2, deadline - time.monotonic()))
                try:
                    read_exact(sock, 1, "the dummy byte")
                    return sock
                except (VideoStreamError, OSError) as exc:
                    sock.close()
                    last = str(exc)
            except (adbutils.AdbError, OSError) as exc:
                last = str(exc)  # not listening yet
            left = deadline - time.monotonic()
            if left <= 0:
                raise DisplayServerError(
                    f"The display helper's socket {name} did not answer ({last}; it said: {self._output.last()})."
                )
            # Wait for the next line of output or a short while, whichever comes first.
            self._output.wait(lambda: False, min(CONNECT_RETRY_S, left))

    # -- running ----------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self._output is not None and not self._output.ended and self.control is not None

    def wait_ended(self, timeout: float) -> bool:
        """True once the server process has ended (its stdout closed)."""
        return self._output is None or self._output.wait(lambda: False, timeout)

    def last_output(self) -> str:
        return self._output.last() if self._output else "no output"

    def video_stream(self) -> Iterator[VideoPacket]:
        """The video packets after the stream's header (`header` has the codec and size).
        Given once: the socket has one reader (the preview's decoder)."""
        if self._video is None or self._video_taken:
            raise DisplayServerError("The display's video stream is not available (taken already, or not started).")
        self._video_taken = True
        return read_packets(self._video.recv)

    # -- stop -------------------------------------------------------------------------

    def stop(self) -> None:
        for sock in (self._control_sock, self._video):
            if sock is not None:
                try:
                    sock.close()
                except OSError:
                    pass
        self._control_sock = self._video = None
        self.control = None
        out = self._output
        if out is not None:
            # The server ends when its sockets close (its controller reads the end of the
            # control stream); closing its shell stream too ends it if it was still starting.
            try:
                out.conn.close()
            except OSError:
                pass
