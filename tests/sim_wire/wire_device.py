"""A tiny SimDevice for testing the wire alone.

This is an honest double of a part we own (the simulated world, built by SIM-WORLD in
mika/sim/world) with just enough behaviour to exercise every path of the adbd: output
of any size, stdin echo, a command that never ends, a socket service, a file system,
connection drops and slow commands. It implements the same SimDevice protocol the real
world does; the wire can't tell the difference.
"""

from __future__ import annotations

import asyncio
import posixpath
import shlex
import time

from mika.sim.device import ConnectionDrop, FileStat, SimStream, StreamClosed

DIR = 0o040755


class DictFiles:
    def __init__(self) -> None:
        now = int(time.time())
        self.entries: dict[str, tuple[int, int, bytes]] = {
            "/": (DIR, now, b""),
            "/sdcard": (DIR, now, b""),
            "/data": (DIR, now, b""),
            "/data/local": (DIR, now, b""),
            "/data/local/tmp": (DIR, now, b""),
        }

    def stat(self, path: str) -> FileStat | None:
        e = self.entries.get(posixpath.normpath(path))
        return None if e is None else FileStat(e[0], len(e[2]), e[1])

    def list(self, path: str) -> list[tuple[str, FileStat]]:
        base = posixpath.normpath(path).rstrip("/") + "/"
        out = []
        for name in sorted(self.entries):
            rest = name[len(base) :]
            if name.startswith(base) and rest and "/" not in rest:
                st = self.stat(name)
                assert st is not None
                out.append((rest, st))
        return out

    def read(self, path: str) -> bytes | None:
        e = self.entries.get(posixpath.normpath(path))
        if e is None or e[0] & 0o170000 == 0o040000:
            return None
        return e[2]

    def write(self, path: str, data: bytes, mode: int, mtime: int) -> None:
        path = posixpath.normpath(path)
        parent = posixpath.dirname(path)
        if parent.startswith("/system"):
            raise PermissionError(13, "Read-only file system")
        while parent not in self.entries:
            self.entries[parent] = (DIR, mtime, b"")
            parent = posixpath.dirname(parent)
        self.entries[path] = (mode, mtime, bytes(data))


class WireDevice:
    def __init__(self, serial: str = "wire-double", drop_after: int | None = None, slow_ms: int = 0):
        self.serial = serial
        self._files = DictFiles()
        self.drop_after = drop_after
        self.slow_ms = slow_ms
        self.opens = 0
        self.commands: list[str] = []
        self.cancelled: list[str] = []
        self.reverse_targets: dict[str, object] = {}

    def banner(self) -> str:
        # abb_exec is listed on purpose: the adbd must strip what it does not speak. No
        # stat_v2 / ls_v2 / sendrecv_v2: the double is a phone of sync v1 (Android 10 and
        # older), the world's phone one of sync v2.
        return (
            "device::ro.product.name=wire;ro.product.model=Wire_Double;"
            "ro.product.device=wire;features=shell_v2,cmd,abb_exec,fixed_push_mkdir"
        )

    @property
    def files(self) -> DictFiles:
        return self._files

    def listen_reverse(self, local: str, connect: object | None) -> bool:
        if connect is None:
            self.reverse_targets.pop(local, None)
        else:
            self.reverse_targets[local] = connect
        return True

    def reboot(self) -> None:
        self.reboots = getattr(self, "reboots", 0) + 1

    def before_command(self) -> None:
        self.opens += 1
        if self.drop_after is not None and self.opens == self.drop_after:
            self.drop_after = None  # one pulled cable, then the phone is plugged back in
            raise ConnectionDrop()

    def command_delay(self) -> float:
        return self.slow_ms / 1000

    async def run_shell(self, command: str, stream: SimStream) -> int:
        self.commands.append(command)
        argv = shlex.split(command)
        try:
            return await self._run(argv, stream)
        except asyncio.CancelledError:
            self.cancelled.append(command)
            raise

    async def _run(self, argv: list[str], stream: SimStream) -> int:
        if not argv:
            return await self._cat_stdin(stream)
        name, args = argv[0], argv[1:]
        if name == "echo":
            await stream.write((" ".join(args) + "\n").encode())
            return 0
        if name == "spew":  # spew BYTES: that many bytes of a known pattern
            total = int(args[0])
            block = bytes(range(256)) * 1024
            sent = 0
            while sent < total:
                n = min(len(block), total - sent)
                await stream.write(block[:n])
                sent += n
            return 0
        if name == "forever":  # like app_process: runs until the host closes the stream
            while True:
                await stream.write(b"tick\n")
                await asyncio.sleep(0.01)
        if name == "cat" and not args:
            return await self._cat_stdin(stream)
        if name == "cat":
            data = self._files.read(args[0])
            if data is None:
                await stream.write(f"cat: {args[0]}: No such file or directory\n".encode())
                return 1
            await stream.write(data)
            return 0
        if name == "sleep":
            await asyncio.sleep(float(args[0]))
            return 0
        await stream.write(f"/system/bin/sh: {name}: inaccessible or not found\n".encode())
        return 127

    async def _cat_stdin(self, stream: SimStream) -> int:
        while True:
            data = await stream.read()
            if not data:
                return 0
            try:
                await stream.write(data)
            except StreamClosed:
                return 0

    async def open_service(self, service: str, stream: SimStream) -> bool:
        if service != "tcp:9008":
            return False
        # An upper-casing echo server, so a test can tell it really went through it.
        while True:
            data = await stream.read()
            if not data:
                return True
            await stream.write(data.upper())
