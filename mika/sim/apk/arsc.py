"""One string resource out of resources.arsc: what a manifest's @string/app_name means.

Only the default configuration's value is read (the first type chunk that holds the
entry), as the launcher of a phone in an English locale would show it when the APK has
no better match; references to other resources are followed a few steps.
"""

from __future__ import annotations

import struct

from .chunks import TYPE_REFERENCE, TYPE_STRING, Chunk, ChunkError, chunks, string_pool

TABLE = 0x0002
PACKAGE = 0x0200
TYPE = 0x0201
_NO_ENTRY = 0xFFFFFFFF
_FLAG_SPARSE = 0x01
_FLAG_OFFSET16 = 0x02
_ENTRY_COMPLEX = 0x0001


def resolve_string(data: bytes, resource_id: int) -> str | None:
    """The string `resource_id` (0xPPTTEEEE) names, or None when the table doesn't hold it."""
    try:
        return _resolve(data, resource_id, hops=4)
    except (ChunkError, struct.error, IndexError):
        return None


def _resolve(data: bytes, resource_id: int, hops: int) -> str | None:
    if len(data) < 12 or struct.unpack_from("<H", data, 0)[0] != TABLE:
        return None
    pkg_id, type_id, entry_id = resource_id >> 24, (resource_id >> 16) & 0xFF, resource_id & 0xFFFF
    (_, header_size, total) = struct.unpack_from("<HHI", data, 0)
    values: list[str] = []
    for chunk in chunks(data, header_size, min(total, len(data))):
        if chunk.type == 0x0001:
            values = string_pool(data, chunk)
        elif chunk.type == PACKAGE and struct.unpack_from("<I", data, chunk.start + 8)[0] == pkg_id:
            found = _in_package(data, chunk, type_id, entry_id)
            if found is None:
                return None
            vtype, vdata = found
            if vtype == TYPE_STRING and vdata < len(values):
                return values[vdata]
            if vtype == TYPE_REFERENCE and hops > 0:
                return _resolve(data, vdata, hops - 1)
            return None
    return None


def _in_package(data: bytes, package: Chunk, type_id: int, entry_id: int) -> tuple[int, int] | None:
    for chunk in chunks(data, package.start + package.header_size, package.end):
        if chunk.type != TYPE or data[chunk.start + 8] != type_id:
            continue
        flags = data[chunk.start + 9]
        count, entries_start = struct.unpack_from("<II", data, chunk.start + 12)
        table = chunk.start + chunk.header_size
        offset = _entry_offset(data, table, flags, count, entry_id)
        if offset is None:
            continue
        entry = chunk.start + entries_start + offset
        size, eflags = struct.unpack_from("<HH", data, entry)
        if eflags & _ENTRY_COMPLEX:
            continue  # a bag (style, plural): not a plain string
        _vsize, _res0, vtype, vdata = struct.unpack_from("<HBBI", data, entry + size)
        return vtype, vdata
    return None


def _entry_offset(data: bytes, table: int, flags: int, count: int, entry_id: int) -> int | None:
    if flags & _FLAG_SPARSE:
        for i in range(count):
            idx, off = struct.unpack_from("<HH", data, table + 4 * i)
            if idx == entry_id:
                return off * 4
        return None
    if entry_id >= count:
        return None
    if flags & _FLAG_OFFSET16:
        (off16,) = struct.unpack_from("<H", data, table + 2 * entry_id)
        return None if off16 == 0xFFFF else off16 * 4
    (off,) = struct.unpack_from("<I", data, table + 4 * entry_id)
    return None if off == _NO_ENTRY else off
