"""What a shell command sees while it runs: arguments, stdin, where output goes, the world."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mika.sim.device import SimStream
from mika.sim.stdio import Output

if TYPE_CHECKING:
    from mika.sim.world.phone_state import PhoneState


@dataclass
class Ctx:
    phone: PhoneState
    args: list[str]
    # What was piped or redirected in. A command that reads its input awaits
    # `read_stdin()` instead, which also takes the host's stdin when that is the input.
    stdin: bytes
    out: Output
    err: Output
    env: dict[str, str]
    stream: SimStream | None = None
    extra: dict[str, object] = field(default_factory=dict)
    # Set for the first command of a line the host sent over a v2 shell, with no `<`:
    # reads the host's stdin to its end (close-stdin). Only awaited by a command that
    # reads its input, so `adb shell input tap …` never waits on an open stdin.
    host_stdin: Callable[[], Awaitable[bytes]] | None = None

    @property
    def name(self) -> str:
        return self.args[0]

    async def read_stdin(self) -> bytes:
        """All of the command's input, as `cat` with no file reads it."""
        if self.host_stdin is not None:
            return await self.host_stdin()
        return self.stdin

    def print(self, text: str) -> None:
        self.out.write(text)

    def error(self, text: str) -> None:
        self.err.write(text if text.endswith("\n") else text + "\n")


Command = Callable[[Ctx], Awaitable[int]]
