"""The simulated phone as the adbd sees it (the SimDevice of mika/sim/device.py): its
state (PhoneState, what the services inside see) plus what runs in it, the shell and the
uiautomator2 HTTP server (the scrcpy server is started from the shell). The top of
mika/sim: it builds the world with its apps and runs every service, and nothing in the
phone imports it back. `make_device` is what the adbd side calls."""

from __future__ import annotations

from mika.sim.apps.live_world import LiveWorld
from mika.sim.device import SimStream, StreamClosed
from mika.sim.faults import FaultSpec
from mika.sim.shell.interp import Shell
from mika.sim.u2.server import serve_http
from mika.sim.world.phone_state import PhoneState


class Phone(PhoneState):
    def __init__(self, serial: str, scenario: str | None = None, faults: FaultSpec | None = None) -> None:
        super().__init__(serial, LiveWorld(serial, scenario, faults))

    async def run_shell(self, command: str, stream: SimStream) -> int:
        # A v2 shell stream (mika/sim/adbd/shell_v2.py) keeps stderr on its own channel.
        shell = Shell(self, stream, getattr(stream, "write_err", None))
        try:
            if command.strip():
                return await shell.run_command(command, stream.write)
            return await self._interactive(shell, stream)
        except StreamClosed:
            return 0

    async def _interactive(self, shell: Shell, stream: SimStream) -> int:
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
            await serve_http(self, stream)
            return True
        handler = self.local_sockets.get(service)
        if handler is not None:
            await handler(stream)
            return True
        return False


def make_device(serial: str, scenario: str | None = None, faults: FaultSpec | None = None) -> Phone:
    """A fresh simulated phone in `scenario` (default: "default"); raises ScenarioError
    for an unknown scenario name, with the known names in the message."""
    return Phone(serial, scenario, faults)
