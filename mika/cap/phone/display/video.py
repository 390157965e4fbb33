"""H.264 packets from the agent's display → the newest picture, decoded in a worker.

`VideoDecoder.feed` decodes one packet (a config packet — SPS/PPS — is held and put in
front of the next frame, as scrcpy's own client does). `VideoDecoder.start(packets)`
runs that in a daemon thread over any iterator of `VideoPacket`s; readers take
`latest()` or wait for a newer one with `wait_newer()`. Only the newest frame is kept:
a slow reader skips pictures, it never makes a queue grow. A broken packet is counted
and said in `error`; the stream goes on with the next key frame.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from mika.cap.phone.display.packets import VideoPacket, VideoStreamError


@dataclass(frozen=True)
class DecodedFrame:
    number: int  # 1, 2, 3… in decoding order; a reader compares it to see news
    pts: int
    image: object  # PIL.Image.Image, RGB
    decode_ms: float

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size  # type: ignore[attr-defined]


@dataclass(frozen=True)
class DecodeStats:
    frames: int
    dropped: int  # decoded but replaced before anyone read them
    bad_packets: int
    fps: float  # over the last few seconds of decoding
    decode_ms_median: float
    decode_ms_p95: float


class VideoDecoder:
    def __init__(
        self, codec: str = "h264", *, window: int = 120, on_frame: Callable[[DecodedFrame], None] | None = None
    ) -> None:
        import av

        # Called in the decoding thread with each new picture, a PIL image (the keeper's
        # black-frame watch).
        self.on_frame = on_frame
        self._codec: av.VideoCodecContext = av.CodecContext.create(codec, "r")  # type: ignore[assignment]
        self._config = b""
        self._lock = threading.Condition()
        self._latest: DecodedFrame | None = None
        self._read_number = 0
        self._frames = 0
        self._dropped = 0
        self._bad = 0
        self._times: deque[float] = deque(maxlen=window)
        self._stamps: deque[float] = deque(maxlen=window)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.error = ""
        self.ended = False

    # -- decoding --------------------------------------------------------------------------

    def feed(self, packet: VideoPacket) -> list[DecodedFrame]:
        """Decode one packet; returns the frames it completed (the newest is also kept)."""
        import av

        if packet.config:
            self._config = packet.data  # SPS/PPS: the next frame carries it into the decoder
            return []
        data = self._config + packet.data if self._config else packet.data
        self._config = b""
        started = time.perf_counter()
        try:
            frames = self._codec.decode(av.Packet(data))
            images = [(f.pts, f.to_image()) for f in frames]
        except (av.error.FFmpegError, ValueError) as exc:
            with self._lock:
                self._bad += 1
                self.error = f"undecodable video packet (pts {packet.pts}, {len(packet.data)} bytes): {exc}"
            return []
        elapsed = (time.perf_counter() - started) * 1000
        if images and self.on_frame is not None:
            # Before the picture is published: whoever waits for it sees the watcher's verdict.
            try:
                self.on_frame(images[-1][1])
            except Exception as exc:  # a watcher's fault never stops the pictures
                self.error = f"frame watcher failed: {exc}"
        out: list[DecodedFrame] = []
        with self._lock:
            for pts, image in images:
                self._frames += 1
                if self._latest is not None and self._latest.number > self._read_number:
                    self._dropped += 1
                frame = DecodedFrame(self._frames, packet.pts if pts is None else pts, image, elapsed / len(images))
                self._latest = frame
                self._times.append(frame.decode_ms)
                self._stamps.append(time.perf_counter())
                out.append(frame)
            if out:
                self._lock.notify_all()
        return out

    def start(self, packets: Iterable[VideoPacket]) -> None:
        """Decode `packets` in a daemon thread until they end, break, or `stop()`."""
        if self._thread is not None:
            raise RuntimeError("this decoder is already running")
        self._thread = threading.Thread(target=self._run, args=(packets,), name="mika-video-decode", daemon=True)
        self._thread.start()

    def _run(self, packets: Iterable[VideoPacket]) -> None:
        try:
            for packet in packets:
                if self._stop.is_set():
                    break
                self.feed(packet)
        except VideoStreamError as exc:
            self.error = str(exc)
        except OSError as exc:
            self.error = f"video socket closed: {exc}"
        finally:
            with self._lock:
                self.ended = True
                self._lock.notify_all()

    def wait_ended(self, timeout: float | None = None) -> bool:
        """True once the packets ran out or broke (then `error` says how)."""
        with self._lock:
            return self._lock.wait_for(lambda: self.ended, timeout)

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    # -- reading ---------------------------------------------------------------------------

    def latest(self) -> DecodedFrame | None:
        with self._lock:
            if self._latest is not None:
                self._read_number = max(self._read_number, self._latest.number)
            return self._latest

    def wait_newer(self, than: int, timeout: float | None = None) -> DecodedFrame | None:
        """The newest frame once its number is above `than`; None on timeout or stream end."""
        with self._lock:
            self._lock.wait_for(
                lambda: (self._latest is not None and self._latest.number > than) or self.ended, timeout
            )
            if self._latest is None or self._latest.number <= than:
                return None
            self._read_number = max(self._read_number, self._latest.number)
            return self._latest

    def stats(self) -> DecodeStats:
        with self._lock:
            times = sorted(self._times)
            stamps = list(self._stamps)
            fps = (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 and stamps[-1] > stamps[0] else 0.0
            return DecodeStats(
                self._frames,
                self._dropped,
                self._bad,
                fps,
                statistics.median(times) if times else 0.0,
                times[min(len(times) - 1, int(len(times) * 0.95))] if times else 0.0,
            )
