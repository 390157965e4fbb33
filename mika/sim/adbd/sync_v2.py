"""The sync v2 records (adb's file_sync_protocol.h) that the host uses once the device
lists stat_v2, ls_v2 and sendrecv_v2, as every phone since Android 11 does.

STA2 / LST2 answer a full `struct stat` with an errno in place of v1's all-zero reply;
LIS2 lists DNT2 entries of the same shape and ends with a DONE record of that size;
SND2 / RCV2 are SEND / RECV whose mode and flags come in a setup record after the path.
Only uncompressed transfers are spoken (no sendrecv_v2_brotli/lz4/zstd is listed), so a
host never asks for a compressed one; one that does anyway gets a FAIL.

The in-memory file system keeps mode, size and mtime only; the rest of `struct stat` is
what a phone would show for it: the shell user owns what is under /data/local/tmp and
/sdcard, root the system's own directories, one inode per path, one device.
"""

from __future__ import annotations

import errno
import struct
import zlib

from mika.sim.device import FileStat

STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")  # id, error, dev, ino, mode, nlink, uid, gid, size, atime, mtime, ctime
DENT_V2 = struct.Struct("<4sIQQIIIIQqqqI")  # … and the name's length, then the name
SEND_SETUP = struct.Struct("<4sII")  # SND2, mode, flags
RECV_SETUP = struct.Struct("<4sI")  # RCV2, flags

FLAG_BROTLI = 0x1
FLAG_LZ4 = 0x2
FLAG_ZSTD = 0x4
FLAG_DRY_RUN = 0x8000_0000
COMPRESSED = FLAG_BROTLI | FLAG_LZ4 | FLAG_ZSTD

_DEV = 0xFD05  # the userdata partition's st_dev on a phone (dm-5)
_SHELL = 2000
_ROOT = 0
_SHELL_OWNED = ("/data/local/tmp", "/sdcard", "/storage/emulated")


def _owner(path: str) -> int:
    if any(path == top or path.startswith(top + "/") for top in _SHELL_OWNED):
        return _SHELL
    return _ROOT


def stat_v2(ident: bytes, path: str, st: FileStat | None) -> bytes:
    if st is None:
        return STAT_V2.pack(ident, errno.ENOENT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    return STAT_V2.pack(ident, 0, *_fields(path, st))


def dent_v2(name: str, path: str, st: FileStat) -> bytes:
    raw = name.encode("utf-8", "surrogateescape")
    return DENT_V2.pack(b"DNT2", 0, *_fields(path, st), len(raw)) + raw


DENT_V2_DONE = DENT_V2.pack(b"DONE", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)


def _fields(path: str, st: FileStat) -> tuple[int, ...]:
    is_dir = st.mode & 0o170000 == 0o040000
    owner = _owner(path)
    ino = zlib.crc32(path.encode("utf-8", "surrogateescape")) | 1
    return (_DEV, ino, st.mode, 2 if is_dir else 1, owner, owner, st.size, st.mtime, st.mtime, st.mtime)
