"""Where the live preview's pictures come from: a small port, and its ADB implementation.

The preview needs "the PNG of display N now" (screencap: a few frames a second), or,
when the run has its own virtual display, the newest picture decoded from its H.264
stream (`VideoFrameSource`, fed by the decoder the assembly keeps for the run:
`Assembly.display_video(run_id)`). The screencap picture comes from `AdbFrameSource`
(`screencap -p` through adbutils on the serial); tests and benchmarks hand in
`StaticFrameSource` with PNGs the simulated phone rendered. Calls block: the preview makes them from a worker thread.
While a web step runs the picture is the run's browser page instead: `PageFrameSource`,
the newest JPEG of the port's screencast (`Assembly.page_frames(run_id, capabilities)`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class FrameError(Exception):
    """No picture could be taken; the message says why in one line."""


class FrameSource(Protocol):
    def grab(self, display: int = 0) -> bytes:
        """PNG bytes of the display, or FrameError."""
        ...


class StaticFrameSource:
    """Plays back fixed PNGs in a loop (tests, benchmarks, offline demos)."""

    def __init__(self, frames: Sequence[bytes]) -> None:
        if not frames:
            raise ValueError("StaticFrameSource needs at least one frame")
        self._frames = list(frames)
        self._next = 0
        self.grabs = 0

    def grab(self, display: int = 0) -> bytes:
        frame = self._frames[self._next % len(self._frames)]
        self._next += 1
        self.grabs += 1
        return frame


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class AdbFrameSource:
    """`exec-out screencap -p` through the adb server, on one serial."""

    def __init__(self, serial: str, timeout: float = 10.0) -> None:
        self.serial = serial
        self.timeout = timeout

    def grab(self, display: int = 0) -> bytes:
        import adbutils

        cmd = "screencap -p" if display == 0 else f"screencap -d {display} -p"
        try:
            device = adbutils.adb.device(self.serial)
            conn = device.shell(cmd, stream=True, timeout=self.timeout)
            try:
                data = conn.read_until_close(encoding=None)
            finally:
                conn.close()
        except (adbutils.AdbError, OSError) as exc:
            raise FrameError(f"{self.serial}: {exc}") from None
        if not data.startswith(PNG_MAGIC):
            raise FrameError(f"{self.serial} sent no PNG (got {len(data)} bytes)")
        return data


class ImageSource(Protocol):
    """Pictures pushed by a decoder: the preview waits for the next one in a worker."""

    def next_image(self, after: int, timeout: float) -> tuple[int, object] | None:
        """(number, PIL image) of the newest picture numbered above `after`, or None."""
        ...


class VideoFrameSource:
    """The agent's display from its video: the newest decoded frame wins."""

    def __init__(self, decoder, display: int) -> None:  # decoder: mika.cap.phone.display.video.VideoDecoder
        self.decoder = decoder
        self.display = display

    def next_image(self, after: int, timeout: float) -> tuple[int, object] | None:
        frame = self.decoder.wait_newer(after, timeout)
        if frame is None:
            if self.decoder.error:
                raise FrameError(self.decoder.error)
            return None
        return frame.number, frame.image


class PageFrameSource:
    """The run's browser page from its screencast (`mika.assembly.live_page.LivePage`):
    the newest JPEG frame, decoded with Pillow in the preview's worker, ≤5 a second."""

    def __init__(self, page) -> None:  # page: mika.assembly.live_page.LivePage
        self.page = page
        self.fps = page.max_fps  # the preview's frame-rate cap for this feed

    def next_image(self, after: int, timeout: float) -> tuple[int, object] | None:
        import io

        from PIL import Image

        frame = self.page.wait_newer(after, timeout)
        if frame is None:
            if self.page.error:
                raise FrameError(self.page.error)
            return None
        image = Image.open(io.BytesIO(frame.jpeg))
        image.load()  # decoded here, in the worker, not when the UI draws it
        return frame.number, image
