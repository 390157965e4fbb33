"""One ADB stream inside the simulated phone: the SimStream the world reads and writes.

Flow control, as protocol.md says without delayed_ack: after a WRTE we may not send
another on this stream until the host's OKAY. Inbound, the host waits for our OKAY after
each WRTE; we give it at once while little is queued and hold it back once the service
falls behind, so a fast push can't grow memory without bound.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Protocol

from mika.sim.device import StreamClosed

from .packet import A_CLSE, A_OKAY, A_WRTE, Packet

# Unread inbound bytes above which we stop acknowledging the host's WRTEs.
INBOUND_HIGH_WATER = 1024 * 1024


class PacketSink(Protocol):
    """The transport as a stream sees it."""

    @property
    def max_payload(self) -> int: ...

    async def send(self, packet: Packet) -> None: ...


class AdbStream:
    def __init__(self, local_id: int, remote_id: int, sink: PacketSink) -> None:
        self.local_id = local_id
        self.remote_id = remote_id
        self._sink = sink
        self._accepted = False
        self._closed = False
        self._inbox: deque[bytes] = deque()
        self._inbox_bytes = 0
        self._acks_owed = 0  # host WRTEs we have not OKAYed yet (backpressure)
        self._readable = asyncio.Event()
        self._can_write = asyncio.Event()  # set while no WRTE of ours awaits its OKAY
        self._write_lock = asyncio.Lock()

    # --- SimStream -------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    async def read(self) -> bytes:
        await self.accept()
        while not self._inbox:
            if self._closed:
                return b""
            self._readable.clear()
            await self._readable.wait()
        chunk = self._inbox.popleft()
        self._inbox_bytes -= len(chunk)
        await self._pay_owed_acks()
        return chunk

    async def write(self, data: bytes) -> None:
        await self.accept()
        view = memoryview(data)
        async with self._write_lock:
            step = self._sink.max_payload
            for start in range(0, len(view), step):
                await self._wait_writable()
                self._can_write.clear()
                await self._sink.send(Packet(A_WRTE, self.local_id, self.remote_id, bytes(view[start : start + step])))

    # --- driven by the adbd ----------------------------------------------------

    @property
    def max_payload(self) -> int:
        """Bytes per WRTE on this transport (what the host and we agreed in CNXN)."""
        return self._sink.max_payload

    @property
    def accepted(self) -> bool:
        return self._accepted

    async def accept(self) -> None:
        """Answer the host's OPEN with OKAY (once). Done lazily on first use, so a
        service that turns out not to listen can still be refused with CLSE."""
        if self._accepted:
            return
        if self._closed:
            raise StreamClosed()
        self._accepted = True
        self._can_write.set()
        await self._sink.send(Packet(A_OKAY, self.local_id, self.remote_id))

    async def on_write(self, data: bytes) -> None:
        """The host sent WRTE on this stream."""
        if self._closed:
            return
        if data:
            self._inbox.append(data)
            self._inbox_bytes += len(data)
            self._readable.set()
        if self._inbox_bytes > INBOUND_HIGH_WATER:
            self._acks_owed += 1
        else:
            await self._sink.send(Packet(A_OKAY, self.local_id, self.remote_id))

    def connected(self, remote_id: int) -> None:
        """A stream the adbd opened (OPEN to the host, for `adb reverse`) was accepted
        with the host's OKAY: from now on it is like any other."""
        self.remote_id = remote_id
        self._accepted = True
        self._can_write.set()

    def on_okay(self) -> None:
        self._can_write.set()

    def on_host_close(self) -> None:
        """The host sent CLSE (or the transport died): wake everybody, stop quietly."""
        self._closed = True
        self._readable.set()
        self._can_write.set()

    async def finish(self) -> None:
        """The service is done: let the last WRTE be acknowledged, then CLSE."""
        if self._closed:
            return
        if not self._accepted:
            # Nothing was ever served: refuse the OPEN (CLSE with local-id 0).
            self._closed = True
            await self._sink.send(Packet(A_CLSE, 0, self.remote_id))
            return
        async with self._write_lock:
            await self._can_write.wait()
        if self._closed:
            return
        self._closed = True
        await self._sink.send(Packet(A_CLSE, self.local_id, self.remote_id))

    async def close(self) -> None:
        """The phone side is done with a stream it opened (HostStream)."""
        await self.finish()

    async def refuse(self) -> None:
        if not self._closed and not self._accepted:
            self._closed = True
            await self._sink.send(Packet(A_CLSE, 0, self.remote_id))

    async def _wait_writable(self) -> None:
        while True:
            if self._closed:
                raise StreamClosed()
            if self._can_write.is_set():
                return
            await self._can_write.wait()

    async def _pay_owed_acks(self) -> None:
        while self._acks_owed and self._inbox_bytes <= INBOUND_HIGH_WATER and not self._closed:
            self._acks_owed -= 1
            await self._sink.send(Packet(A_OKAY, self.local_id, self.remote_id))
