"""The chunk framing and string pools that binary XML and resources.arsc share
(ResourceTypes.h: ResChunk_header, ResStringPool_header, Res_value)."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

CHUNK = struct.Struct("<HHI")  # type, header size, total size
STRING_POOL = 0x0001
UTF8_FLAG = 0x100

# Res_value.dataType
TYPE_REFERENCE = 0x01
TYPE_STRING = 0x03
TYPE_INT_DEC = 0x10
TYPE_INT_HEX = 0x11
TYPE_INT_BOOLEAN = 0x12


class ChunkError(ValueError):
    """The bytes are not the resource format they claim to be."""


@dataclass(frozen=True)
class Chunk:
    type: int
    header_size: int
    start: int  # offset of the chunk header in the buffer
    end: int


def chunks(data: bytes, start: int, end: int) -> Iterator[Chunk]:
    pos = start
    while pos + CHUNK.size <= end:
        ctype, header_size, size = CHUNK.unpack_from(data, pos)
        if size < CHUNK.size or header_size < CHUNK.size or pos + size > end:
            raise ChunkError(f"bad chunk 0x{ctype:04x} at {pos}")
        yield Chunk(ctype, header_size, pos, pos + size)
        pos += size


def _length8(data: bytes, pos: int) -> tuple[int, int]:
    n = data[pos]
    if n & 0x80:
        return ((n & 0x7F) << 8) | data[pos + 1], pos + 2
    return n, pos + 1


def _length16(data: bytes, pos: int) -> tuple[int, int]:
    (n,) = struct.unpack_from("<H", data, pos)
    if n & 0x8000:
        (low,) = struct.unpack_from("<H", data, pos + 2)
        return ((n & 0x7FFF) << 16) | low, pos + 4
    return n, pos + 2


def string_pool(data: bytes, chunk: Chunk) -> list[str]:
    if chunk.type != STRING_POOL:
        raise ChunkError(f"expected a string pool at {chunk.start}")
    count, _styles, flags, strings_start, _styles_start = struct.unpack_from("<IIIII", data, chunk.start + 8)
    offsets = struct.unpack_from(f"<{count}I", data, chunk.start + chunk.header_size)
    base = chunk.start + strings_start
    out = []
    for off in offsets:
        pos = base + off
        if flags & UTF8_FLAG:
            _chars, pos = _length8(data, pos)  # length in UTF-16 units, then in bytes
            nbytes, pos = _length8(data, pos)
            out.append(data[pos : pos + nbytes].decode("utf-8", "replace"))
        else:
            nchars, pos = _length16(data, pos)
            out.append(data[pos : pos + 2 * nchars].decode("utf-16-le", "replace"))
    return out
