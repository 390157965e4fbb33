"""The `sync:` service, protocol v1 (adb's docs/dev/sync.md and file_sync_protocol.h) and
the v2 requests STA2 / LST2 / LIS2 / SND2 / RCV2 (their records: sync_v2.py).

Requests are 8 bytes (4-byte ASCII id, u32 LE length) followed by `length` bytes of path.
The host packs requests and DATA chunks across WRTEs as it likes, so the service reads
the stream as one byte stream. As in adbd, any FAIL ends the sync session.
"""

from __future__ import annotations

import errno
import os
import struct

from mika.sim.device import SimFiles, SimStream

from . import sync_v2

SYNC_DATA_MAX = 64 * 1024
MAX_PATH = 1024

_ID = struct.Struct("<4sI")
_STAT = struct.Struct("<4sIII")
_DENT = struct.Struct("<4sIIII")


class _EndOfSync(Exception):
    """The host closed the stream or asked to QUIT."""


class _ByteReader:
    """Reads exact byte counts out of a stream whose WRTE boundaries mean nothing."""

    def __init__(self, stream: SimStream) -> None:
        self._stream = stream
        self._buf = bytearray()
        self._pos = 0

    async def exactly(self, n: int) -> bytes:
        while len(self._buf) - self._pos < n:
            chunk = await self._stream.read()
            if not chunk:
                raise _EndOfSync()
            if self._pos:
                del self._buf[: self._pos]
                self._pos = 0
            self._buf += chunk
        out = bytes(self._buf[self._pos : self._pos + n])
        self._pos += n
        return out


def _fail(message: str) -> bytes:
    data = message.encode()
    return _ID.pack(b"FAIL", len(data)) + data


def _parse_mode(text: str) -> int | None:
    # adbd uses strtoul(…, 0): 0x… is hex, a leading 0 octal, else decimal.
    try:
        if text.lower().startswith("0x"):
            return int(text[2:], 16)
        if len(text) > 1 and text.startswith("0"):
            return int(text[1:], 8)
        return int(text, 10)
    except ValueError:
        return None


def _os_reason(exc: OSError) -> str:
    if exc.strerror:
        return exc.strerror
    if exc.errno:
        return os.strerror(exc.errno)
    return str(exc) or "I/O error"


class _Batcher:
    """Collects answer bytes and writes them in whole multiples of the WRTE size.

    The adb server relays each WRTE to its client as one socket write without
    TCP_NODELAY, so a small WRTE right after another (a file's tail, then DONE) sits in
    Nagle's queue until the client's delayed ACK, ~40 ms. Writing only full WRTEs and
    then the tail together with DONE avoids that stall.
    """

    def __init__(self, stream: SimStream, unit: int) -> None:
        self._stream = stream
        self._unit = unit
        self._buf = bytearray()

    async def add(self, data: bytes | memoryview) -> None:
        self._buf += data
        if len(self._buf) >= 4 * self._unit:
            cut = len(self._buf) - len(self._buf) % self._unit
            await self._stream.write(bytes(self._buf[:cut]))
            del self._buf[:cut]

    async def finish(self, data: bytes = b"") -> None:
        self._buf += data
        if self._buf:
            await self._stream.write(bytes(self._buf))
            self._buf.clear()


async def serve_sync(stream: SimStream, files: SimFiles, write_unit: int = SYNC_DATA_MAX) -> None:
    """Serve sync requests until QUIT, a FAIL or the host closing. `write_unit` is the
    transport's WRTE size, so answers can be cut into full WRTEs."""
    reader = _ByteReader(stream)
    try:
        while await _one_request(reader, stream, files, write_unit):
            pass
    except _EndOfSync:
        return


async def _one_request(reader: _ByteReader, stream: SimStream, files: SimFiles, unit: int) -> bool:
    ident, length = _ID.unpack(await reader.exactly(8))
    if ident == b"QUIT":
        return False
    if length > MAX_PATH:
        await stream.write(_fail("path too long"))
        return False
    name = (await reader.exactly(length)).decode("utf-8", "surrogateescape")
    if ident == b"STAT":
        st = files.stat(name)
        if st is None:
            await stream.write(_STAT.pack(b"STAT", 0, 0, 0))
        else:
            await stream.write(_STAT.pack(b"STAT", st.mode, st.size & 0xFFFFFFFF, st.mtime))
        return True
    if ident in (b"STA2", b"LST2"):
        # No symlinks in the sim's file system, so lstat and stat agree.
        await stream.write(sync_v2.stat_v2(ident, _join(name), files.stat(name)))
        return True
    if ident == b"LIST":
        await _list(_Batcher(stream, unit), files, name)
        return True
    if ident == b"LIS2":
        await _list_v2(_Batcher(stream, unit), files, name)
        return True
    if ident == b"RECV":
        return await _recv(stream, _Batcher(stream, unit), files, name)
    if ident == b"RCV2":
        setup, flags = sync_v2.RECV_SETUP.unpack(await reader.exactly(sync_v2.RECV_SETUP.size))
        if setup != b"RCV2":
            await stream.write(_fail("received invalid recv_v2 setup id"))
            return False
        if flags & sync_v2.COMPRESSED:
            await stream.write(_fail(f"unsupported compression flags {flags:#x}"))
            return False
        return await _recv(stream, _Batcher(stream, unit), files, name)
    if ident == b"SEND":
        path, comma, mode_text = name.rpartition(",")
        if not comma:
            await stream.write(_fail("missing , in ID_SEND_V1"))
            return False
        mode = _parse_mode(mode_text)
        if mode is None:
            await stream.write(_fail("bad mode"))
            return False
        return await _send(reader, stream, files, path, mode)
    if ident == b"SND2":
        setup, mode, flags = sync_v2.SEND_SETUP.unpack(await reader.exactly(sync_v2.SEND_SETUP.size))
        if setup != b"SND2":
            await stream.write(_fail("received invalid send_v2 setup id"))
            return False
        if flags & sync_v2.COMPRESSED:
            await stream.write(_fail(f"unsupported compression flags {flags:#x}"))
            return False
        return await _send(reader, stream, files, name, mode, dry_run=bool(flags & sync_v2.FLAG_DRY_RUN))
    await stream.write(_fail(f"unknown command {int.from_bytes(ident, 'little'):08x}"))
    return False


async def _list(out: _Batcher, files: SimFiles, path: str) -> None:
    for entry, st in files.list(path):
        raw = entry.encode("utf-8", "surrogateescape")
        await out.add(_DENT.pack(b"DENT", st.mode, st.size & 0xFFFFFFFF, st.mtime, len(raw)) + raw)
    await out.finish(_DENT.pack(b"DONE", 0, 0, 0, 0))


def _join(path: str, name: str = "") -> str:
    base = path if path.startswith("/") else "/" + path
    return (base.rstrip("/") + "/" + name) if name else base


async def _list_v2(out: _Batcher, files: SimFiles, path: str) -> None:
    for entry, st in files.list(path):
        await out.add(sync_v2.dent_v2(entry, _join(path, entry), st))
    await out.finish(sync_v2.DENT_V2_DONE)


async def _recv(stream: SimStream, out: _Batcher, files: SimFiles, path: str) -> bool:
    data = files.read(path)
    if data is None:
        st = files.stat(path)
        is_dir = st is not None and (st.mode & 0o170000) == 0o040000
        reason = os.strerror(errno.EISDIR if is_dir else errno.ENOENT)
        await stream.write(_fail(f"open failed: {reason}"))
        return False
    view = memoryview(data)
    for start in range(0, len(view), SYNC_DATA_MAX):
        piece = view[start : start + SYNC_DATA_MAX]
        await out.add(_ID.pack(b"DATA", len(piece)))
        await out.add(piece)
    await out.finish(_ID.pack(b"DONE", 0))
    return True


async def _send(
    reader: _ByteReader, stream: SimStream, files: SimFiles, path: str, mode: int, *, dry_run: bool = False
) -> bool:
    chunks: list[bytes] = []
    while True:
        ident, length = _ID.unpack(await reader.exactly(8))
        if ident == b"DONE":
            mtime = length
            break
        if ident != b"DATA":
            await stream.write(_fail("invalid data message"))
            return False
        if length > SYNC_DATA_MAX:
            await stream.write(_fail("oversize data message"))
            return False
        chunks.append(await reader.exactly(length))
    # A bare permission mode from the host means a regular file.
    if mode & 0o170000 == 0:
        mode |= 0o100000
    if dry_run:  # `adb push --dry-run`: the data is read and thrown away
        await stream.write(_ID.pack(b"OKAY", 0))
        return True
    try:
        files.write(path, b"".join(chunks), mode, mtime)
    except OSError as exc:
        await stream.write(_fail(f"couldn't create file: {_os_reason(exc)}"))
        return False
    await stream.write(_ID.pack(b"OKAY", 0))
    return True
