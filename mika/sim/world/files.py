"""The phone's file system: in memory, shared by sync:, the shell and the world.

Directories are explicit entries so `ls` and sync LIST see empty ones; writing a file
creates its parents, as adbd's sync SEND does.
"""

from __future__ import annotations

import posixpath
import time
from dataclasses import dataclass

from mika.sim.device import FileStat

_DIR_MODE = 0o040771
_FILE_MODE = 0o100644

_INITIAL_DIRS = (
    "/",
    "/data",
    "/data/local",
    "/data/local/tmp",
    "/sdcard",
    "/sdcard/Download",
    "/sdcard/DCIM",
    "/sdcard/Pictures",
    "/storage",
    "/storage/emulated",
    "/storage/emulated/0",
    "/system",
    "/system/bin",
    "/proc",
)


@dataclass
class _Entry:
    mode: int
    mtime: int
    data: bytes = b""


def normalize(path: str, cwd: str = "/") -> str:
    if not path.startswith("/"):
        path = posixpath.join(cwd, path)
    path = posixpath.normpath(path)
    # /sdcard is a link to the primary storage on real phones; keep one copy.
    if path == "/storage/emulated/0" or path.startswith("/storage/emulated/0/"):
        path = "/sdcard" + path[len("/storage/emulated/0") :]
    return "/" if path in ("", "//") else path


class MemFiles:
    def __init__(self, now: int | None = None) -> None:
        stamp = int(time.time()) if now is None else now
        self._entries: dict[str, _Entry] = {d: _Entry(_DIR_MODE, stamp) for d in _INITIAL_DIRS}

    # -- the SimFiles protocol (sync:) --------------------------------------------
    def stat(self, path: str) -> FileStat | None:
        entry = self._entries.get(normalize(path))
        if entry is None:
            return None
        return FileStat(mode=entry.mode, size=len(entry.data), mtime=entry.mtime)

    def list(self, path: str) -> list[tuple[str, FileStat]]:
        base = normalize(path)
        if not self.is_dir(base):
            return []
        prefix = base.rstrip("/") + "/"
        out: list[tuple[str, FileStat]] = []
        for name in sorted(self._entries):
            if name != base and name.startswith(prefix) and "/" not in name[len(prefix) :]:
                st = self.stat(name)
                assert st is not None
                out.append((name[len(prefix) :], st))
        return out

    def read(self, path: str) -> bytes | None:
        entry = self._entries.get(normalize(path))
        if entry is None or self._is_dir_mode(entry.mode):
            return None
        return entry.data

    def write(self, path: str, data: bytes, mode: int, mtime: int) -> None:
        path = normalize(path)
        self._make_parents(path, mtime)
        if mode & 0o170000 == 0:
            mode |= 0o100000
        self._entries[path] = _Entry(mode=mode, mtime=mtime, data=bytes(data))

    # -- what the shell needs beyond sync ------------------------------------------
    def is_dir(self, path: str) -> bool:
        entry = self._entries.get(normalize(path))
        return entry is not None and self._is_dir_mode(entry.mode)

    def exists(self, path: str) -> bool:
        return normalize(path) in self._entries

    def mkdir(self, path: str, parents: bool = False) -> str | None:
        """Returns None on success, else the error text a real mkdir prints."""
        path = normalize(path)
        if path in self._entries:
            return None if parents else f"mkdir: '{path}': File exists"
        parent = posixpath.dirname(path)
        if not self.is_dir(parent) and not parents:
            return f"mkdir: '{path}': No such file or directory"
        self._make_parents(path + "/x", int(time.time()))
        return None

    def remove(self, path: str, recursive: bool = False) -> str | None:
        path = normalize(path)
        entry = self._entries.get(path)
        if entry is None:
            return f"rm: {path}: No such file or directory"
        if self._is_dir_mode(entry.mode):
            if not recursive:
                return f"rm: {path}: is a directory"
            prefix = path.rstrip("/") + "/"
            for name in [n for n in self._entries if n.startswith(prefix)]:
                del self._entries[name]
        del self._entries[path]
        return None

    def put(self, path: str, data: bytes) -> None:
        self.write(path, data, _FILE_MODE, int(time.time()))

    def _make_parents(self, path: str, mtime: int) -> None:
        parent = posixpath.dirname(path)
        missing: list[str] = []
        while parent not in self._entries:
            missing.append(parent)
            parent = posixpath.dirname(parent)
        for d in reversed(missing):
            self._entries[d] = _Entry(_DIR_MODE, mtime)

    @staticmethod
    def _is_dir_mode(mode: int) -> bool:
        return mode & 0o170000 == 0o040000
