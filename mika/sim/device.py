"""The seam between the simulated phone's wire (mika/sim/adbd) and its world.

The adbd side speaks the ADB transport and turns each host stream into one of these
calls; the world side (shell, files, services inside the phone) implements `SimDevice`.
Neither side knows how the other works.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol


class StreamClosed(Exception):
    """The host closed the stream; writers stop quietly (not an error for the phone)."""


class SimStream(Protocol):
    """One open ADB stream as seen from inside the phone."""

    async def read(self) -> bytes:
        """Next bytes the host sent; b"" once the host closed the stream."""
        ...

    async def write(self, data: bytes) -> None:
        """Send bytes to the host (flow control is the adbd's job); raises StreamClosed."""
        ...

    @property
    def closed(self) -> bool: ...


@dataclass(frozen=True)
class FileStat:
    mode: int  # st_mode, e.g. 0o100644 for a regular file, 0o040755 for a directory
    size: int
    mtime: int  # seconds since the epoch


class SimFiles(Protocol):
    """The phone's file system as sync: sees it."""

    def stat(self, path: str) -> FileStat | None: ...

    def list(self, path: str) -> list[tuple[str, FileStat]]: ...

    def read(self, path: str) -> bytes | None: ...

    def write(self, path: str, data: bytes, mode: int, mtime: int) -> None: ...


class HostStream(SimStream, Protocol):
    """A stream the phone opened toward the host (`adb reverse`); its opener closes it."""

    async def close(self) -> None: ...


ReverseConnect = Callable[[], Awaitable["HostStream | None"]]


class SimDevice(Protocol):
    serial: str

    def banner(self) -> str:
        """The CNXN banner: "device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=…"."""
        ...

    @property
    def files(self) -> SimFiles: ...

    async def run_shell(self, command: str, stream: SimStream) -> int:
        """Run `command` (from `shell:` or `exec:`), writing its output to `stream` as
        it is produced; returns the exit code. An empty command means an interactive
        shell (read commands from the stream). Long-running commands (app_process) run
        until the host closes the stream."""
        ...

    async def open_service(self, service: str, stream: SimStream) -> bool:
        """Serve `tcp:PORT` or `localabstract:NAME` on `stream` until either side closes;
        returns False at once if nothing listens there (the adbd then refuses the OPEN)."""
        ...

    def listen_reverse(self, local: str, connect: ReverseConnect | None) -> bool:
        """`adb reverse`: from now on a connection made inside the phone to `local`
        (tcp:PORT, localabstract:NAME) is `await connect()`, a stream the adbd opened to
        the host (None when the host refused it); `connect=None` stops listening. Returns
        False when something in the phone already listens on `local`."""
        ...

    def reboot(self) -> None:
        """`adb reboot`: the phone restarts (what survives is the device's to say); the
        adbd then drops its connections, as a restarting adbd does."""
        ...

    def before_command(self) -> None:
        """Called by the adbd for every OPEN; raises ConnectionDrop to simulate a cable
        pulled (faults: drop after N commands)."""
        ...

    def command_delay(self) -> float:
        """Seconds the adbd waits before answering each OPEN (faults: slow_ms / 1000);
        0.0 normally. Read on every OPEN, so a fault set at run time applies at once.
        (Added by SIM-WIRE: the adbd sleeps asynchronously, which a sync hook can't.)"""
        ...


class ConnectionDrop(Exception):
    """Raised by the world to make the adbd drop the whole transport."""


# `mika sim tasks [--json]` (mika/commands/sim.py) lists `mika.sim.tasks.list_tasks()`:
# dicts or objects with `id`, `goal`, `scenario` (`to_json()` is used when present).
