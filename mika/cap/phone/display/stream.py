"""The scrcpy 3.3.4 video socket, read into packets.

With tunnel_forward the first socket opened starts with one dummy byte; with
send_device_meta it then carries the device name (64 bytes, NUL-padded UTF-8). The video
socket then has its codec meta (codec id, width, height: u32 BE each) and every packet
a 12-byte header — pts and flags (u64 BE: bit 63 config packet, bit 62 key frame) and
the payload size (u32 BE) — followed by the payload.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

DEVICE_NAME_LENGTH = 64
FLAG_CONFIG = 1 << 63
FLAG_KEY_FRAME = 1 << 62
PTS_MASK = FLAG_KEY_FRAME - 1
CODECS = {0x68323634: "h264", 0x68323635: "h265", 0x00617631: "av1"}
MAX_PACKET = 1 << 26  # 64 MiB: anything larger is a broken stream, not a frame


class StreamError(Exception):
    """The video socket did not speak scrcpy's format (closed early, bad header)."""


class _Source(Protocol):
    def recv(self, n: int, /) -> bytes: ...


def read_exact(source: _Source, n: int, what: str) -> bytes:
    out = bytearray()
    while len(out) < n:
        chunk = source.recv(n - len(out))
        if not chunk:
            raise StreamError(f"The video stream ended while reading {what} ({len(out)} of {n} bytes).")
        out += chunk
    return bytes(out)


@dataclass(frozen=True)
class StreamHeader:
    device_name: str
    codec: str
    width: int
    height: int


@dataclass(frozen=True)
class Packet:
    pts: int | None  # microseconds; None for a config packet
    flags: int  # FLAG_CONFIG | FLAG_KEY_FRAME bits as sent
    data: bytes

    @property
    def config(self) -> bool:
        return bool(self.flags & FLAG_CONFIG)

    @property
    def key_frame(self) -> bool:
        return bool(self.flags & FLAG_KEY_FRAME)


def read_header(source: _Source, *, dummy_byte: bool = True, device_meta: bool = True) -> StreamHeader:
    if dummy_byte:
        read_exact(source, 1, "the dummy byte")
    name = ""
    if device_meta:
        raw = read_exact(source, DEVICE_NAME_LENGTH, "the device name")
        name = raw.split(b"\0", 1)[0].decode("utf-8", errors="replace")
    codec_id, width, height = struct.unpack(">III", read_exact(source, 12, "the codec meta"))
    codec = CODECS.get(codec_id)
    if codec is None:
        raise StreamError(f"The video stream announced an unknown codec id 0x{codec_id:08x}.")
    return StreamHeader(name, codec, width, height)


def _packet(head: bytes, source: _Source) -> Packet:
    pts_flags, size = struct.unpack(">QI", head)
    if size > MAX_PACKET:
        raise StreamError(f"A frame header announced {size} bytes; the stream is broken.")
    flags = pts_flags & (FLAG_CONFIG | FLAG_KEY_FRAME)
    pts = None if flags & FLAG_CONFIG else pts_flags & PTS_MASK
    return Packet(pts, flags, read_exact(source, size, "a frame"))


def packets(source: _Source) -> Iterator[Packet]:
    """Packets until the socket closes cleanly between two of them."""
    while True:
        first = source.recv(1)
        if not first:
            return
        yield _packet(first + read_exact(source, 11, "a frame header"), source)
