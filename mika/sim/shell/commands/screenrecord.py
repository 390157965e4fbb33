"""`screenrecord [--time-limit S] [--size WxH] [--bit-rate N] FILE`: an H.264 MP4 of display 0.

Like the real one it records until its time limit (default and most 180 s) or until it is
interrupted (the host closing `adb shell screenrecord …` hangs it up), and then finishes
the file so it plays. Frames are taken when the screen changed, at most ten a second (a
real recording is variable-rate too: SurfaceFlinger sends a frame when something is drawn).
"""

from __future__ import annotations

import asyncio
import io
from fractions import Fraction
from typing import Any

import av

from mika.sim.apps.frame import build_frame
from mika.sim.render.screen import render
from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command

MAX_SECONDS = 180
FPS = 10
_USAGE = (
    "Usage: screenrecord [options] <filename>\n\nAndroid screenrecord v1.3.  Records the device's display to a .mp4 file.\n\n"
    'Options:\n--size WIDTHxHEIGHT\n    Set the video size, e.g. "1280x720".  Default is the device\'s main\n    display resolution.\n'
    "--bit-rate RATE\n    Set the video bit rate, in bits per second.  Value may be specified as\n    bits or megabits, e.g. '4000000' is equivalent to '4M'.  Default 20Mbps.\n"
    "--time-limit TIME\n    Set the maximum recording time, in seconds.  Default / maximum is 180.\n"
)


class _Recording:
    """The MP4 being written: frames in, the finished file's bytes out."""

    def __init__(self, size: tuple[int, int], bit_rate: int) -> None:
        self.size = size
        self._buf = io.BytesIO()
        self._box: Any = av.open(self._buf, mode="w", format="mp4")
        stream: Any = self._box.add_stream("libx264", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = size[0], size[1], "yuv420p"
        stream.bit_rate = bit_rate
        stream.codec_context.time_base = Fraction(1, 1000)
        stream.codec_context.options = {"preset": "ultrafast", "threads": "1"}
        self._stream = stream
        self.frames = 0

    def add(self, image: Any, millis: int) -> None:
        frame = av.VideoFrame.from_image(image).reformat(format="yuv420p", width=self.size[0], height=self.size[1])
        frame.pts = millis
        frame.time_base = Fraction(1, 1000)
        for packet in self._stream.encode(frame):
            self._box.mux(packet)
        self.frames += 1

    def finish(self) -> bytes:
        for packet in self._stream.encode(None):
            self._box.mux(packet)
        self._box.close()
        return self._buf.getvalue()


def _options(ctx: Ctx) -> tuple[dict[str, str], str | None] | None:
    opts: dict[str, str] = {}
    path = None
    args = ctx.args[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--time-limit", "--size", "--bit-rate") and i + 1 < len(args):
            opts[a] = args[i + 1]
            i += 2
            continue
        if a in ("--verbose", "--bugreport", "--rotate"):
            opts[a] = ""
        elif a == "--help":
            return None
        elif a.startswith("-"):
            ctx.error(f"screenrecord: unrecognized option '{a}'")
            return None
        else:
            path = a
        i += 1
    return opts, path


def _bit_rate(text: str) -> int | None:
    scale = 1_000_000 if text[-1:] in ("m", "M") else 1
    number = text[:-1] if scale > 1 else text
    return int(number) * scale if number.isdigit() and int(number) > 0 else None


@command("screenrecord")
async def screenrecord(ctx: Ctx) -> int:
    parsed = _options(ctx)
    if parsed is None:
        ctx.error(_USAGE)
        return 2
    opts, path = parsed
    if path is None:
        ctx.error("Must specify output file (see --help).")
        return 2
    limit_text = opts.get("--time-limit", str(MAX_SECONDS))
    if not limit_text.isdigit() or not 0 < int(limit_text) <= MAX_SECONDS:
        ctx.error(f"Time limit {limit_text}s outside acceptable range [1,{MAX_SECONDS}]")
        return 2
    bit_rate = _bit_rate(opts.get("--bit-rate", "20M"))
    if bit_rate is None:
        ctx.error(f"Invalid bit rate '{opts['--bit-rate']}'")
        return 2
    world = ctx.phone.world
    size = world.displays[0].size
    if "--size" in opts:
        w, _, h = opts["--size"].partition("x")
        if not (w.isdigit() and h.isdigit()) or int(w) % 2 or int(h) % 2:
            ctx.error(f"Invalid size '{opts['--size']}', must be width x height")
            return 2
        size = (int(w), int(h))
    recording = _Recording(size, bit_rate)
    loop = asyncio.get_running_loop()
    start = loop.time()
    seen = -1
    encoding: asyncio.Future[None] | None = None
    try:
        while loop.time() - start < int(limit_text):
            world.tick()
            if world.version != seen:
                seen = world.version
                display = world.displays[0]
                image = render(build_frame(world, 0), display.size, world.screen_on)
                encoding = asyncio.ensure_future(
                    asyncio.to_thread(recording.add, image, int((loop.time() - start) * 1000))
                )
                await asyncio.shield(encoding)
            await asyncio.sleep(1 / FPS)
    finally:
        # Interrupted or done, the file is finished and kept, as the real one's is; a frame
        # still in the encoder's thread goes in first.
        if encoding is not None and not encoding.done():
            await asyncio.wait({encoding})
        data = recording.finish()
        ctx.phone.files.write(path, data, 0o100660, int(world.clock.now()))
    if "--verbose" in opts:
        ctx.print(f"Wrote {recording.frames} frames to {path}\n")
    return 0
