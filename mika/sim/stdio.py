"""Where a process in the phone writes: its stdout or stderr, sent on to the host stream.

Below the shell: a shell command writes through one (`ctx.out`, `ctx.err`), and so does a
program the shell starts, such as the scrcpy server, which must not import the shell.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable


class Output:
    """Collects a command's bytes; when `sink` is set (last command of a pipeline that
    goes to the host), `flush` sends them on so long-running commands stream."""

    def __init__(self, sink: Callable[[bytes], Awaitable[None]] | None = None) -> None:
        self.buf = bytearray()
        self.sink = sink
        self.discard = False

    def write(self, data: bytes | str) -> None:
        if self.discard:
            return
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.buf += data

    async def flush(self) -> None:
        if self.sink is not None and self.buf:
            data = bytes(self.buf)
            self.buf.clear()
            await self.sink(data)
