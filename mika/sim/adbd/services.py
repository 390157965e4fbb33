"""What an OPEN's destination means inside the simulated phone.

The services the host uses with the features we announce (shell_v2, no abb_exec):
`shell:CMD`, `shell,v2,raw:CMD` / `shell,v2,pty:` (mika/sim/adbd/shell_v2.py),
`exec:CMD`, `sync:`, `tcp:PORT`, `localabstract:NAME`, `reverse:…` (the transport's,
mika/sim/adbd/reverse.py). Anything else is refused with
CLSE, as adbd does for a service it can't create.
"""

from __future__ import annotations

from dataclasses import dataclass

from mika.sim.device import SimDevice

from .shell_v2 import ShellV2Stream
from .stream import AdbStream
from .sync import serve_sync

# What a user build's adbd (ro.debuggable=0, as the simulated phone is) says to `adb root`
# and `adb unroot`, and nothing else: it stays the shell user and keeps the connection.
PRODUCTION_ANSWERS = {
    "root": "adbd cannot run as root in production builds\n",
    "unroot": "adbd not running as root\n",
}


@dataclass(frozen=True)
class Service:
    kind: str  # "shell", "shell_v2", "shell_v2_pty", "exec", "sync", "socket", "reverse", "answer", "reboot"
    argument: str  # the command, the normalised socket name, or (answer) the text adbd sends

    async def serve(self, device: SimDevice, stream: AdbStream) -> None:
        if self.kind in ("shell_v2", "shell_v2_pty"):
            await stream.accept()
            framed = ShellV2Stream(stream, pty=self.kind == "shell_v2_pty")
            code = await device.run_shell(self.argument, framed)
            await framed.exit(code)
        elif self.kind in ("shell", "exec"):
            await stream.accept()
            await device.run_shell(self.argument, stream)
        elif self.kind == "sync":
            await stream.accept()
            await serve_sync(stream, device.files, stream.max_payload)
        elif self.kind == "answer":
            await stream.accept()
            await stream.write(self.argument.encode())
        else:
            listened = await device.open_service(self.argument, stream)
            if not listened:
                await stream.refuse()
            elif not stream.accepted:
                # It listened but said nothing and read nothing: still a connection.
                await stream.accept()


def parse_destination(destination: str) -> Service | None:
    """The service an OPEN asks for, or None when this phone has no such service."""
    name, colon, rest = destination.partition(":")
    if not colon:
        return None
    if name == "shell" or name.startswith("shell,"):
        # Options: v2, raw / pty, TERM=… (adb's shell service string, services.cpp).
        options = name.split(",")[1:]
        if "v2" in options:
            # Without raw/pty adbd picks a pty for an interactive shell, raw for a command.
            pty = "pty" in options or ("raw" not in options and not rest)
            return Service("shell_v2_pty" if pty else "shell_v2", rest)
        return Service("shell", rest)
    if name == "reboot" and rest == "":
        # Only a plain restart: the sim has no bootloader, recovery or sideload to go to.
        return Service("reboot", "")
    if name in PRODUCTION_ANSWERS and rest == "":
        return Service("answer", PRODUCTION_ANSWERS[name])
    if name == "exec":
        return Service("exec", rest)
    if name == "reverse" and rest:
        return Service("reverse", rest)  # served by the transport's ReverseTable
    if name == "sync" and rest == "":
        return Service("sync", "")
    if name == "tcp":
        port = rest.rpartition(":")[2]
        host = rest.rpartition(":")[0]
        if host not in ("", "localhost", "127.0.0.1") or not port.isdigit():
            return None
        if not 0 < int(port) < 65536:
            return None
        return Service("socket", f"tcp:{int(port)}")
    if name == "localabstract" and rest:
        return Service("socket", f"localabstract:{rest}")
    return None
