"""`app_process / com.genymobile.scrcpy.Server 3.3.4 key=value…`: one server process.

As Server.java runs it: parse the options (a bad one: `[server] ERROR: …`, a Java stack
trace, exit 1), log the device, refuse a new display before Android 10, listen on
`localabstract:scrcpy_<scid>` and accept video (first, with the dummy byte), audio and
control in that order, send the device name, then create the display (printing
`New display: WxH/dpi (id=N)`) and stream it while the controller reads. The process ends
when a socket closes, when it is killed, or when its shell stream goes; the display it
made goes with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import struct
import weakref
from typing import TYPE_CHECKING

from mika.sim.device import StreamClosed
from mika.sim.scrcpy.control import Controller
from mika.sim.scrcpy.options import LEVELS, VIDEO_CODECS, OptionError, Options, parse
from mika.sim.scrcpy.video import VideoStream
from mika.sim.stdio import Output
from mika.sim.world.local_sockets import Connection, Listener

if TYPE_CHECKING:
    from mika.sim.world.phone_state import PhoneState

MAIN_CLASS = "com.genymobile.scrcpy.Server"
DEVICE_NAME_FIELD_LENGTH = 64
PROCESS_NAME = "app_process"
_pids = itertools.count(6101)
# Where each throw of Options.parse is in 3.3.4's sources, for a stack trace that reads true.
_TRACE = (
    "\tat com.genymobile.scrcpy.Options.parse(Options.java:{line})\n"
    "\tat com.genymobile.scrcpy.Server.internalMain(Server.java:238)\n"
    "\tat com.genymobile.scrcpy.Server.main(Server.java:215)\n"
    "\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)\n"
    "\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:355)\n"
)

_running: weakref.WeakKeyDictionary[PhoneState, dict[int, ScrcpyServer]] = weakref.WeakKeyDictionary()


def running(phone: PhoneState) -> dict[int, ScrcpyServer]:
    """The scrcpy server processes alive on this phone, by pid (for ps / pidof / kill)."""
    return _running.setdefault(phone, {})


class Log:
    """scrcpy's Ln: `[server] LEVEL: message`, INFO and below on stdout, WARN and ERROR on
    stderr, each line sent at once (the client reads them while the server runs)."""

    def __init__(self, out: Output, err: Output) -> None:
        self._out = out
        self._err = err
        self.threshold = "INFO"

    def trace(self, text: str) -> None:
        """A Java stack trace after an ERROR line (stderr; sent with the next flush)."""
        self._err.write(text)

    async def __call__(self, level: str, message: str) -> None:
        if LEVELS.index(level) < LEVELS.index(self.threshold):
            return
        line = f"[server] {level}: {message}\n"
        with contextlib.suppress(StreamClosed):
            if LEVELS.index(level) >= LEVELS.index("WARN"):
                self._err.write(line)
                await self._err.flush()
            else:
                self._out.write(line)
                await self._out.flush()


class ScrcpyServer:
    def __init__(self, phone: PhoneState, options: Options, log: Log) -> None:
        self.phone = phone
        self.options = options
        self.log = log
        self.pid = next(_pids)
        self.display_id: int | None = None
        self.killed = asyncio.Event()
        self._conns: list[Connection] = []

    def kill(self) -> None:
        self.killed.set()

    async def run(self) -> int:
        session = asyncio.ensure_future(self._session())
        killer = asyncio.ensure_future(self.killed.wait())
        try:
            await asyncio.wait({session, killer}, return_when=asyncio.FIRST_COMPLETED)
            if session.done():
                return session.result()
            return 143  # SIGTERM, as sh reports a process `kill` ended
        finally:
            for task in (session, killer):
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await session
            self.release()

    def release(self) -> None:
        for conn in self._conns:
            conn.close()
        self._conns.clear()
        if self.display_id is not None and self.options.new_display is not None:
            self.phone.world.remove_display(self.display_id)
        self.display_id = None

    async def _accept(self) -> tuple[Connection | None, Connection | None, Connection | None]:
        """DesktopConnection.open with tunnel_forward: video, audio, control, in order; the
        dummy byte on the first one. The socket stops listening once all are connected."""
        o = self.options
        listener = Listener(self.phone, o.socket_name)
        conns: list[Connection | None] = []
        dummy = o.send_dummy_byte
        try:
            for wanted in (o.video, o.audio, o.control):
                if not wanted:
                    conns.append(None)
                    continue
                conn = await listener.accept()
                self._conns.append(conn)
                if dummy:
                    await conn.stream.write(b"\x00")
                    dummy = False
                conns.append(conn)
        finally:
            listener.close()
        return conns[0], conns[1], conns[2]

    def _new_display(self) -> tuple[int, int, int]:
        nd = self.options.new_display
        assert nd is not None
        main = self.phone.world.displays[0]
        main_size, main_dpi = (main.width, main.height), main.density
        size = nd.size or main_size
        # NewDisplayCapture.scaleDpi: the main display's density, scaled by the long sides.
        dpi = nd.dpi or main_dpi * max(size) // max(main_size)
        return size[0], size[1], dpi

    async def _session(self) -> int:
        o = self.options
        world = self.phone.world
        if not o.tunnel_forward:
            # The simulated phone has no `adb reverse`: the connect to the client fails.
            await self.log("ERROR", "java.io.IOException: Connection refused")
            return 1
        try:
            video, audio, control = await self._accept()
        except OSError as exc:
            # LocalServerSocket could not bind: another server holds this scid's name.
            await self.log("ERROR", str(exc))
            self.log.trace(f"java.io.IOException: {exc}\n\tat android.net.LocalSocketImpl.bindLocal(Native Method)\n")
            return 1
        first = video or audio or control
        if first is not None and o.send_device_meta:
            name = world.props.get("ro.product.model", "").encode("utf-8")[: DEVICE_NAME_FIELD_LENGTH - 1]
            await first.stream.write(name.ljust(DEVICE_NAME_FIELD_LENGTH, b"\0"))
        if audio is not None:
            # No audio capture here: the stream is disabled (codec id 0), video goes on.
            await self.log("WARN", "Audio disabled: not supported by the simulated phone")
            await audio.stream.write(b"\0\0\0\0")
        streamer: VideoStream | None = None
        tasks: list[asyncio.Future[None]] = []
        if video is not None:
            if o.video_codec != "h264":
                await self.log(
                    "ERROR",
                    f"Could not create default video encoder for {o.video_codec}\n"
                    "List of video encoders:\n    --video-codec=h264 --video-encoder=c2.android.avc.encoder",
                )
                await video.stream.write(b"\0\0\0\1")  # disable stream: configuration error
                return 0
            if o.new_display is not None:
                w, h, dpi = self._new_display()
                display = world.add_display(
                    w, h, dpi, "scrcpy", owner="com.android.shell", destroy_content=o.vd_destroy_content
                )
                self.display_id = display.id
            elif o.display_id in world.displays:
                self.display_id = o.display_id
            else:
                await self.log("ERROR", f"Display {o.display_id} not found")
                return 1
            streamer = VideoStream(
                world,
                self.display_id,
                video.stream,
                max_size=o.max_size,
                max_fps=o.max_fps,
                frame_meta=o.send_frame_meta,
            )
            if o.send_codec_meta:
                vw, vh = streamer.video_size
                await video.stream.write(struct.pack(">III", VIDEO_CODECS["h264"], vw, vh))
            if o.new_display is not None:
                d = world.displays[self.display_id]
                await self.log("INFO", f"New display: {d.width}x{d.height}/{d.density} (id={d.id})")
            tasks.append(asyncio.ensure_future(streamer.run()))
        if control is not None:
            # With new_display the server has no display until video makes one
            # (DISPLAY_ID_NONE): without video, injected events land nowhere.
            target = self.display_id if self.display_id is not None else (-1 if o.new_display else o.display_id)

            def size_of() -> tuple[int, int] | None:
                # Touches are in video coordinates; none while there is no video.
                if streamer is None or streamer.display_id not in world.displays:
                    return None
                return streamer.video_size

            controller = Controller(
                world, target, control.stream, size_of, self.log, streamer.reset if streamer else (lambda: None)
            )
            tasks.append(asyncio.ensure_future(controller.run()))
        if not tasks:
            return 0
        try:
            # Any part ending (a socket closed by the client, the display gone) ends the
            # server, as scrcpy's Completion quits the main looper.
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                failure = task.exception()
                if failure is not None and not isinstance(failure, StreamClosed):
                    raise failure
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, StreamClosed, Exception):
                    await task
        return 0


async def main(phone: PhoneState, args: list[str], *, out: Output, err: Output, classpath: str) -> int:
    """Run the server as the shell's `app_process` starts it: `args` are those after the
    class name (version first), `classpath` the CLASSPATH it was started with."""
    log = Log(out, err)
    try:
        options = parse(args)
    except OptionError as exc:
        await log("ERROR", str(exc))
        err.write(f"{exc.java_class}: {exc}\n" + _TRACE.format(line=_line_of(str(exc))))
        await err.flush()
        return 1
    for key in options.unknown:
        await log("WARN", f"Unknown server option: {key}")
    log.threshold = options.log_level
    props = phone.world.props
    await log(
        "INFO",
        f"Device: [{props.get('ro.product.manufacturer', '')}] {props.get('ro.product.brand', '')} "
        f"{props.get('ro.product.model', '')} (Android {props.get('ro.build.version.release', '')})",
    )
    sdk = int(props.get("ro.build.version.sdk", "0") or 0)
    if sdk < 29:
        if options.new_display is not None:
            await log("ERROR", "New virtual display is not supported before Android 10")
            return 0  # a ConfigurationException: logged, no stack trace, normal exit
        if options.display_ime_policy is not None:
            await log("ERROR", "Display IME policy is not supported before Android 10")
            return 0
    if options.cleanup:
        # CleanUp.unlinkSelf: the pushed jar deletes itself once the server is up.
        for path in classpath.split(":"):
            if path:
                phone.memfiles.remove(path)
    server = ScrcpyServer(phone, options, log)
    table = running(phone)
    table[server.pid] = server
    try:
        return await server.run()
    finally:
        table.pop(server.pid, None)


def _line_of(message: str) -> int:
    if message.startswith("The server version"):
        return 300
    if message.startswith("Invalid key=value"):
        return 309
    return 420
