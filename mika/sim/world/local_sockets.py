"""Abstract local sockets inside the simulated phone (LocalServerSocket / LocalSocket).

A server listens on a name; each `localabstract:NAME` stream the adbd opens while it
listens is queued for `accept`. The connection lives until the server closes it (the
adbd then sends CLSE) or the host does (reads see b"", writes raise StreamClosed).
Once the server stops listening, new connections to the name are refused, as adbd
refuses a socket nobody listens on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol

from mika.sim.device import SimStream

Handler = Callable[[SimStream], Awaitable[None]]


class HasSockets(Protocol):
    local_sockets: dict[str, Handler]


class Connection:
    """One accepted socket: the stream plus the signal that the server is done with it."""

    def __init__(self, stream: SimStream) -> None:
        self.stream = stream
        self._done = asyncio.Event()

    def close(self) -> None:
        self._done.set()

    async def wait_closed(self) -> None:
        await self._done.wait()


class Listener:
    def __init__(self, owner: HasSockets, name: str) -> None:
        self._owner = owner
        self.name = f"localabstract:{name}"
        self._queue: asyncio.Queue[Connection] = asyncio.Queue()
        if self.name in owner.local_sockets:
            # LocalServerSocket's bind fails the same way on a real phone.
            raise OSError("Address already in use")
        owner.local_sockets[self.name] = self._connect

    async def _connect(self, stream: SimStream) -> None:
        conn = Connection(stream)
        await self._queue.put(conn)
        await conn.wait_closed()

    async def accept(self) -> Connection:
        return await self._queue.get()

    def close(self) -> None:
        """Stop listening; connections queued but never accepted are dropped."""
        if self._owner.local_sockets.get(self.name) == self._connect:
            del self._owner.local_sockets[self.name]
        while not self._queue.empty():
            self._queue.get_nowait().close()
