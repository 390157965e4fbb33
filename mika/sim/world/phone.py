"""The simulated phone as the adbd sees it (the SimDevice of mika/sim/device.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from mika.sim.device import ConnectionDrop, SimStream, StreamClosed
from mika.sim.faults import FaultSpec
from mika.sim.world.files import MemFiles
from mika.sim.world.props import banner
from mika.sim.world.world import World


class Phone:
    def __init__(self, serial: str, scenario: str | None = None, faults: FaultSpec | None = None) -> None:
        self.serial = serial
        self.world = World(serial, scenario, faults)
        self._files = MemFiles(int(self.world.clock.now()))
        self.commands_seen = 0
        self.u2_servers = 0  # app_process instances serving uiautomator2 on tcp:9008
        self.u2_kill = False
        # `localabstract:NAME` sockets something inside the phone listens on (the scrcpy
        # server's, mika/sim/scrcpy/sockets.py): name -> what serves one connection.
        self.local_sockets: dict[str, Callable[[SimStream], Awaitable[None]]] = {}

    def banner(self) -> str:
        return banner(self.world.props)

    @property
    def files(self) -> MemFiles:
        return self._files

    @property
    def memfiles(self) -> MemFiles:
        return self._files

    def virtual_file(self, path: str) -> bytes | None:
        """Files computed from the world (/proc, /sys) rather than stored."""
        if path == "/proc/version":
            return b"Linux version 5.15.110-android14-11 (build@mika) #1 SMP PREEMPT\n"
        if path == "/sys/class/power_supply/battery/capacity":
            return b"100\n"
        return None

    def before_command(self) -> None:
        self.world.tick()
        self.commands_seen += 1
        limit = self.world.faults.drop_after
        if limit and self.commands_seen > limit:
            # One pulled cable: once dropped, the host may reconnect and carry on.
            self.world.faults = dataclasses.replace(self.world.faults, drop_after=None)
            self.commands_seen = 0
            raise ConnectionDrop(f"fault drop_after={limit}: dropping the connection")

    def command_delay(self) -> float:
        return self.world.faults.slow_ms / 1000

    async def run_shell(self, command: str, stream: SimStream) -> int:
        from mika.sim.shell.interp import Shell

        # A v2 shell stream (mika/sim/adbd/shell_v2.py) keeps stderr on its own channel.
        shell = Shell(self, stream, getattr(stream, "write_err", None))
        try:
            if command.strip():
                return await shell.run_command(command, stream.write)
            return await self._interactive(shell, stream)
        except StreamClosed:
            return 0

    async def _interactive(self, shell, stream: SimStream) -> int:
        # A v1 shell is a pty (prompt, echo, CR LF); a v2 raw shell is sh reading a pipe.
        tty = getattr(stream, "pty", True)
        prompt = f"{self.world.props['ro.product.device']}:/ $ ".encode() if tty else b""
        await stream.write(prompt)
        pending = b""
        while True:
            data = await stream.read()
            if not data:
                if pending.strip() and not tty:  # sh runs a last line without its newline
                    await shell.run_line(pending.decode("utf-8", errors="replace"), stream.write)
                return int(shell.env["?"])
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                text = line.decode("utf-8", errors="replace").rstrip("\r")
                if tty:
                    await stream.write(line + b"\r\n")  # a pty echoes what was typed
                await shell.run_line(text, stream.write)
                if shell.env.get("__exit__"):
                    return int(shell.env["?"])
                if prompt:
                    await stream.write(prompt)

    async def open_service(self, service: str, stream: SimStream) -> bool:
        if service in ("tcp:9008", "tcp:localhost:9008", "tcp:127.0.0.1:9008") and self.u2_servers > 0:
            from mika.sim.u2.server import serve_http

            await serve_http(self, stream)
            return True
        handler = self.local_sockets.get(service)
        if handler is not None:
            await handler(stream)
            return True
        return False
