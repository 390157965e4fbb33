"""The scrcpy 3.3.4 video socket, as data: packets and the bytes that carry them.

Shared by the helper that reads the socket (`display.video_stream()` yields
`VideoPacket`s) and the decoder that turns them into pictures. The layout is the real
server's (DesktopConnection / Streamer): on the first socket one dummy byte (forward
tunnel only), the device name in 64 NUL-padded bytes, then per video stream the codec
meta (codec id, width, height: three big-endian u32), then frames, each a 12-byte header
— u64 pts with flag bits (63: config, 62: key frame) and u32 size — and the payload.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

FLAG_CONFIG = 1 << 63
FLAG_KEY_FRAME = 1 << 62
PTS_MASK = FLAG_KEY_FRAME - 1
DEVICE_NAME_BYTES = 64
HEADER = struct.Struct(">QI")  # 12 bytes
CODEC_META = struct.Struct(">III")  # 12 bytes
# A frame larger than this is a broken stream, not a picture (a 4K key frame is a few MB).
MAX_PACKET_BYTES = 64 * 1024 * 1024

CODEC_NAMES = {0x68323634: "h264", 0x68323635: "h265", 0x00617631: "av1"}


class VideoStreamError(Exception):
    """The video socket's bytes are not a scrcpy stream; the message says where it broke."""


@dataclass(frozen=True)
class VideoPacket:
    pts: int
    config: bool
    key: bool
    data: bytes

    def header(self) -> bytes:
        """The 12 bytes the server puts before this packet (tests and the sim's encoder)."""
        word = (FLAG_CONFIG if self.config else (self.pts & PTS_MASK)) | (FLAG_KEY_FRAME if self.key else 0)
        return HEADER.pack(word, len(self.data))


@dataclass(frozen=True)
class StreamHead:
    device_name: str
    codec: str
    width: int
    height: int


class Readable(Protocol):
    def recv(self, n: int, /) -> bytes: ...


def read_exact(source, n: int, what: str) -> bytes:
    """Exactly `n` bytes from a socket, a file or a read function; VideoStreamError naming
    `what` when the stream ends first (the server's dummy byte, say)."""
    return _read_exact(_reader(source), n, what)


def _read_exact(read, n: int, what: str) -> bytes:
    chunks: list[bytes] = []
    got = 0
    while got < n:
        chunk = read(n - got)
        if not chunk:
            if got == 0 and what == "frame header":
                raise EOFError  # a clean end between frames
            raise VideoStreamError(f"video stream ended inside the {what}: expected {n} bytes, got {got}")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _reader(source):
    """A socket (recv), a file (read) or a bytes-like object, as `read(n) -> bytes`."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        import io

        return io.BytesIO(bytes(source)).read
    if hasattr(source, "recv"):
        return source.recv
    if hasattr(source, "read"):
        return source.read
    return source  # already a read(n) function


def read_head(read, *, dummy_byte: bool = True, device_meta: bool = True) -> StreamHead:
    if dummy_byte:
        first = _read_exact(read, 1, "dummy byte")
        if first != b"\x00":
            raise VideoStreamError(f"video socket began with {first!r}, not scrcpy's dummy byte 0x00")
    name = ""
    if device_meta:
        raw = _read_exact(read, DEVICE_NAME_BYTES, "device name")
        name = raw.split(b"\x00", 1)[0].decode("utf-8", "replace")
    codec_id, width, height = CODEC_META.unpack(_read_exact(read, CODEC_META.size, "codec meta"))
    codec = CODEC_NAMES.get(codec_id)
    if codec is None:
        raise VideoStreamError(f"unknown video codec id 0x{codec_id:08x} in the codec meta")
    return StreamHead(name, codec, width, height)


def read_packets(read) -> Iterator[VideoPacket]:
    """Frames until the stream ends cleanly between two frames."""
    while True:
        try:
            word, size = HEADER.unpack(_read_exact(read, HEADER.size, "frame header"))
        except EOFError:
            return
        if size > MAX_PACKET_BYTES:
            raise VideoStreamError(f"frame header announces {size} bytes; the stream is out of step")
        data = _read_exact(read, size, "frame payload")
        config = bool(word & FLAG_CONFIG)
        yield VideoPacket(-1 if config else word & PTS_MASK, config, bool(word & FLAG_KEY_FRAME), data)


def parse_stream(
    source, *, dummy_byte: bool = True, device_meta: bool = True
) -> tuple[StreamHead, Iterator[VideoPacket]]:
    """The raw video socket (or its bytes) → its head and its packets."""
    read = _reader(source)
    head = read_head(read, dummy_byte=dummy_byte, device_meta=device_meta)
    return head, read_packets(read)


def encode_stream(head: StreamHead, packets, *, dummy_byte: bool = True) -> bytes:
    """The bytes a server would send for these packets (tests, benchmarks)."""
    codec_id = next(k for k, v in CODEC_NAMES.items() if v == head.codec)
    out = [b"\x00"] if dummy_byte else []
    out.append(head.device_name.encode()[:DEVICE_NAME_BYTES].ljust(DEVICE_NAME_BYTES, b"\x00"))
    out.append(CODEC_META.pack(codec_id, head.width, head.height))
    for p in packets:
        out += [p.header(), p.data]
    return b"".join(out)


def split_config(data: bytes) -> tuple[bytes, bytes]:
    """An Annex-B access unit → (its SPS/PPS NAL units, the rest).

    Android's encoder hands the parameter sets over as a separate config buffer; an
    encoder that puts them in-band (libx264) is split here so tests and benchmarks
    send what a real server sends.
    """
    starts = []
    i = 0
    while True:
        j = data.find(b"\x00\x00\x01", i)
        if j < 0:
            break
        begin = j - 1 if j > 0 and data[j - 1] == 0 else j
        starts.append((begin, j + 3))
        i = j + 3
    if not starts:
        return b"", data
    config: list[bytes] = []
    rest: list[bytes] = []
    for n, (begin, payload) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(data)
        unit = data[begin:end]
        nal_type = data[payload] & 0x1F if payload < len(data) else 0
        (config if nal_type in (7, 8) else rest).append(unit)
    return b"".join(config), b"".join(rest)
