"""Pictures → scrcpy-shaped H.264 packets with PyAV's libx264 (tests, benchmarks).

Only for feeding the decoder real streams off the phone; the simulated phone has its
own server. Each key frame's parameter sets become a config packet before it.
"""

from __future__ import annotations

import fractions
from collections.abc import Iterable, Iterator

from mika.cap.phone.display.packets import VideoPacket, split_config


class H264Encoder:
    def __init__(self, width: int, height: int, fps: int = 30, gop: int = 60) -> None:
        import av

        self._ctx = av.CodecContext.create("libx264", "w")
        self._ctx.width, self._ctx.height, self._ctx.pix_fmt = width, height, "yuv420p"
        self._ctx.time_base = fractions.Fraction(1, 1_000_000)
        self._ctx.gop_size = gop
        self._ctx.options = {"tune": "zerolatency", "preset": "ultrafast"}
        self._step = 1_000_000 // fps
        self._n = 0

    def encode(self, image) -> list[VideoPacket]:
        import av

        frame = av.VideoFrame.from_image(image.convert("RGB"))
        frame.pts = self._n * self._step
        self._n += 1
        return self._packets(self._ctx.encode(frame))

    def flush(self) -> list[VideoPacket]:
        return self._packets(self._ctx.encode(None))

    def _packets(self, packets) -> list[VideoPacket]:
        out: list[VideoPacket] = []
        for p in packets:
            data = bytes(p)
            pts = int(p.pts or 0)
            if p.is_keyframe:
                config, data = split_config(data)
                if config:
                    out.append(VideoPacket(-1, True, False, config))
            out.append(VideoPacket(pts, False, bool(p.is_keyframe), data))
        return out


def encode_all(images: Iterable, fps: int = 30) -> Iterator[VideoPacket]:
    encoder: H264Encoder | None = None
    for image in images:
        if encoder is None:
            width, height = image.size
            encoder = H264Encoder(width, height, fps=fps)
        yield from encoder.encode(image)
    if encoder is not None:
        yield from encoder.flush()
