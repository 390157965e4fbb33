"""The video socket: the display's rendered screen as real H.264 (PyAV + libx264), framed
as scrcpy's Streamer writes it: a 12-byte header per packet (u64 pts with bit 63 = config
and bit 62 = key frame, then u32 size, big-endian) followed by the Annex-B bytes.

The config packet (SPS/PPS) goes first, as MediaCodec's CODEC_CONFIG buffer does. A new
frame is encoded when the display's picture changes, the last one is repeated at least
once a second, never more than 30 a second (or `max_fps`). Rendering and encoding run in
a worker thread so the phone's event loop keeps serving other streams.
"""

from __future__ import annotations

import asyncio
import struct
import time
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from mika.sim.apps.frame import build_frame
from mika.sim.device import SimStream
from mika.sim.render.screen import render

if TYPE_CHECKING:
    from mika.sim.world.world import World

FLAG_CONFIG = 1 << 63
FLAG_KEY_FRAME = 1 << 62
MAX_FPS = 30.0
REPEAT_AFTER = 1.0  # seconds without a change before the last picture is sent again


def limit_size(width: int, height: int, max_size: int) -> tuple[int, int]:
    """The video size for a display: its size, capped at max_size on the long side and
    rounded to a multiple of 8 when needed (Size.limit / Size.round8 in scrcpy)."""
    if width % 8 == 0 and height % 8 == 0 and (max_size == 0 or max(width, height) <= max_size):
        return width, height
    portrait = height > width
    major, minor = (height, width) if portrait else (width, height)
    if max_size and major > max_size:
        major, minor = max_size, max_size * minor // major
    if major % 8 or minor % 8:
        major &= ~7
        minor = min((minor + 4) & ~7, major)
    return (minor, major) if portrait else (major, minor)


def frame_header(pts: int, size: int, *, config: bool = False, key_frame: bool = False) -> bytes:
    flags = FLAG_CONFIG if config else pts | (FLAG_KEY_FRAME if key_frame else 0)
    return struct.pack(">QI", flags, size)


class Encoder:
    """One libx264 encoder for one video size; used from one worker thread at a time."""

    def __init__(self, width: int, height: int, fps: float) -> None:
        # PyAV (~60 ms to import) loads with the first encoder, in the worker thread that
        # encodes: the simulated phone starts with every run, its video only with a preview.
        import av

        self.size = (width, height)
        ctx: Any = av.CodecContext.create("libx264", "w")
        ctx.width, ctx.height, ctx.pix_fmt = width, height, "yuv420p"
        ctx.time_base = Fraction(1, 1_000_000)
        ctx.framerate = Fraction(round(fps), 1)
        # SPS/PPS apart (extradata), as the config packet MediaCodec gives first.
        ctx.flags |= av.codec.context.Flags.global_header
        # A key frame every 10 s as scrcpy asks MediaCodec (KEY_I_FRAME_INTERVAL); one
        # thread and the cheapest preset keep the shared machine's CPU for the rest.
        ctx.options = {
            "preset": "ultrafast",
            "tune": "zerolatency",
            "g": str(int(fps * 10)),
            "threads": "1",
        }
        ctx.open()
        self._ctx = ctx

    @property
    def config(self) -> bytes:
        return bytes(self._ctx.extradata or b"")

    def encode(
        self, windows: list[Any], display_size: tuple[int, int], screen_on: bool, pts: int
    ) -> list[tuple[bytes, bool]]:
        import av

        image = render(windows, display_size, screen_on)
        frame = av.VideoFrame.from_image(image).reformat(format="yuv420p", width=self.size[0], height=self.size[1])
        frame.pts = pts
        frame.time_base = Fraction(1, 1_000_000)
        return [(bytes(p), bool(p.is_keyframe)) for p in self._ctx.encode(frame)]


class VideoStream:
    """Streams one display to one socket until the socket closes or the display goes."""

    def __init__(
        self, world: World, display_id: int, stream: SimStream, *, max_size: int, max_fps: float, frame_meta: bool
    ) -> None:
        self.world = world
        self.display_id = display_id
        self.stream = stream
        self.max_size = max_size
        self.fps = min(max_fps, MAX_FPS) if max_fps > 0 else MAX_FPS
        self.frame_meta = frame_meta
        self._reset = asyncio.Event()
        self.frames_sent = 0

    @property
    def video_size(self) -> tuple[int, int]:
        display = self.world.displays[self.display_id]
        return limit_size(*display.size, self.max_size)

    def reset(self) -> None:
        """RESET_VIDEO: a new encoder, hence a new config packet and a key frame."""
        self._reset.set()

    async def _send(self, data: bytes, pts: int, *, config: bool = False, key_frame: bool = False) -> None:
        head = frame_header(pts, len(data), config=config, key_frame=key_frame) if self.frame_meta else b""
        await self.stream.write(head + data)

    async def run(self) -> None:
        interval = 1.0 / self.fps
        start = time.monotonic()
        encoder: Encoder | None = None
        last: tuple[object, ...] | None = None
        last_windows: list[Any] | None = None  # held so its identity can't be reused
        last_sent = 0.0
        while self.display_id in self.world.displays:
            display = self.world.displays[self.display_id]
            size = self.video_size
            if encoder is None or encoder.size != size or self._reset.is_set():
                self._reset.clear()
                encoder = await asyncio.to_thread(Encoder, size[0], size[1], self.fps)
                await self._send(encoder.config, 0, config=True)
                last = None
            windows = build_frame(self.world, self.display_id)
            # A display the framework powered off is encoded as black frames, as on a phone.
            lit = display.lit(self.world.screen_on)
            state = (display.size, lit)
            now = time.monotonic()
            tick = now
            if windows is not last_windows or state != last or now - last_sent >= REPEAT_AFTER:
                last_windows, last = windows, state
                pts = int((now - start) * 1_000_000)
                packets = await asyncio.to_thread(encoder.encode, windows, display.size, lit, pts)
                for data, key_frame in packets:
                    await self._send(data, pts, key_frame=key_frame)
                    self.frames_sent += 1
                last_sent = now
            # Pacing, not synchronisation: the next look at the display is one frame away
            # (or at once when the client asks for a reset).
            try:
                await asyncio.wait_for(self._reset.wait(), timeout=max(0.0, tick + interval - time.monotonic()))
            except TimeoutError:
                pass
