"""The line between the sandbox tools and the thing that runs commands (seed §6 sandbox).

The tools, the guard and the bridge speak `SandboxPort` only; `bwrap.py` holds the one
implementation (bubblewrap). A command always runs with the workspace at `/workspace`
(its working directory), read-only system folders, its own /tmp, no network unless the
user's `[sandbox] network` allows it, a wall-clock timeout, a CPU-time limit and capped
output. A caller may add read-only binds and environment variables for one command (the
phone bridge binds its socket folder and sets its token that way).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

# Bytes of each stream kept for the model: the head and the tail of a long output (an
# error is usually at the end, the shape of the data at the start); the middle is dropped
# and its size said.
OUTPUT_HEAD = 12_000
OUTPUT_TAIL = 4_000
TIMEOUT_DEFAULT = 60.0
# The fixed PATH inside (a command's environment is clean); the session puts Mika's own
# client folder (/opt/mika/bin) in front.
PATH_INSIDE = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
TIMEOUT_MAX = 600.0


class SandboxUnavailable(Exception):
    """No sandbox on this machine (not Linux, no bwrap, bwrap refused to start); the
    sentence says which and what to do."""


class SandboxError(Exception):
    """A command could not be started as asked (a bad extra bind, an unusable workspace)."""


@dataclass(frozen=True)
class Bind:
    """A host path seen read-only inside the sandbox at `inside` (an absolute path outside
    /workspace, /proc, /dev and /tmp; a folder under /opt or /run is the usual place)."""

    host: Path
    inside: str


@dataclass(frozen=True)
class Stream:
    """What a command printed on one stream: the kept text and how many bytes were cut."""

    text: str
    total_bytes: int
    cut_bytes: int = 0  # bytes dropped from the middle (0: all kept)


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None  # None: ended by a signal (timeout, CPU limit)
    stdout: Stream
    stderr: Stream
    wall_seconds: float
    # CPU time the command and the processes it waited for used (kernel's rusage); a
    # command killed at its timeout is charged its wall time when that is more.
    cpu_seconds: float
    timed_out: bool = False
    cpu_limited: bool = False  # killed by its CPU-time limit (SIGXCPU / SIGKILL at the limit)
    signal: int | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


@dataclass(frozen=True)
class Extras:
    """What one command gets beyond the standard sandbox: read-only binds and environment
    variables (the bridge's socket folder and token)."""

    ro_binds: tuple[Bind, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


class SandboxPort(Protocol):
    @property
    def network(self) -> bool:
        """Whether commands may reach the network (the user's `[sandbox] network`)."""
        ...

    async def run(
        self,
        command: str | Sequence[str],
        *,
        workspace: Path,
        extra_ro_binds: Sequence[Bind | tuple[Path | str, str]] = (),
        env: Mapping[str, str] | None = None,
        timeout: float = TIMEOUT_DEFAULT,
        cpu_seconds: float | None = None,
        stdin: bytes | None = None,
    ) -> CommandResult:
        """Run `command` (a shell line for /bin/sh, or an argv) inside the sandbox with
        `workspace` at /workspace. `cpu_seconds` caps the CPU time of each of its
        processes; `timeout` the wall time of the whole command. Raises SandboxError
        when it cannot be started as asked."""
        ...
