"""A display recorded to an MP4 file (H.264 in an ISO BMFF container, PyAV + libx264), as
`screenrecord` writes one: frames only when the picture changes (and once a second
otherwise), each stamped with the time it was shown, and the `moov` index written when
the recording ends, so the file plays only once it is finished.

Rendering and encoding run in a worker thread (`asyncio.to_thread` at the caller) so the
phone's event loop keeps serving other streams.
"""

from __future__ import annotations

import io
from fractions import Fraction
from typing import Any

from mika.sim.render.screen import render

TIME_BASE = Fraction(1, 1000)  # milliseconds


class Mp4Recorder:
    def __init__(self, width: int, height: int) -> None:
        # PyAV (~60 ms to import) loads with the first recording (in the worker thread
        # that makes it), not with the simulated phone every run starts.
        import av

        self.size = (width, height)
        self._buf = io.BytesIO()
        self._box: Any = av.open(self._buf, mode="w", format="mp4")
        stream: Any = self._box.add_stream("libx264", rate=30)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.time_base = TIME_BASE
        # The cheapest preset and one thread keep the shared machine's CPU for the rest.
        stream.options = {"preset": "ultrafast", "threads": "1"}
        self._stream = stream
        self._last_pts = -1
        self.frames = 0

    def add(self, windows: list[Any], display_size: tuple[int, int], lit: bool, at_ms: int) -> None:
        pts = max(at_ms, self._last_pts + 1)  # strictly increasing, as the muxer wants
        image = render(windows, display_size, lit)
        import av

        frame = av.VideoFrame.from_image(image).reformat(format="yuv420p", width=self.size[0], height=self.size[1])
        frame.pts, frame.time_base = pts, TIME_BASE
        for packet in self._stream.encode(frame):
            self._box.mux(packet)
        self._last_pts = pts
        self.frames += 1

    def finish(self) -> bytes:
        for packet in self._stream.encode(None):
            self._box.mux(packet)
        self._box.close()
        return self._buf.getvalue()
