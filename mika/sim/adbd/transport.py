"""One host connection to the simulated adbd: the handshake and the stream table.

A reader loop turns messages into stream events; every OPEN becomes one task that runs
the service. The phone opens streams only for `adb reverse` (open_to_host); local ids are
ours alone either way and never collide with the host's.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging

from mika.sim.device import ConnectionDrop, SimDevice, StreamClosed

from .banner import wire_banner
from .packet import (
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_VERSION,
    A_VERSION_MIN,
    A_WRTE,
    MAX_PAYLOAD,
    Packet,
    ProtocolError,
    read_packet,
)
from .reverse import ReverseTable
from .services import Service, parse_destination
from .stream import AdbStream

log = logging.getLogger("mika.sim.adbd")


class Transport:
    def __init__(self, device: SimDevice, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.device = device
        self._reader = reader
        self._writer = writer
        self._online = False
        self._checksum = True  # until the host's version says it may be skipped
        self._max_payload = MAX_PAYLOAD
        self._ids = itertools.count(1)
        self._streams: dict[int, AdbStream] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._dead = False
        # Streams we OPENed toward the host, waiting for its OKAY (its id) or CLSE (None).
        self._pending: dict[int, asyncio.Future[int | None]] = {}
        self.reverses = ReverseTable(device, self.open_to_host)

    # --- PacketSink --------------------------------------------------------------

    @property
    def max_payload(self) -> int:
        return self._max_payload

    async def send(self, packet: Packet) -> None:
        if self._dead:
            raise StreamClosed()
        try:
            self._writer.write(packet.encode(checksum=self._checksum))
            await self._writer.drain()
        except (ConnectionError, RuntimeError) as exc:
            self._dead = True
            raise StreamClosed() from exc

    # --- the connection ------------------------------------------------------------

    async def run(self) -> None:
        try:
            while True:
                packet = await read_packet(self._reader, MAX_PAYLOAD)
                await self._handle(packet)
        except (asyncio.IncompleteReadError, ConnectionError, StreamClosed):
            pass  # the host went away, or we dropped it on purpose
        except ProtocolError as exc:
            log.warning("closing ADB connection: %s", exc)
        except Exception as exc:
            log.error(
                "simulated phone: closing the ADB connection after an internal fault: %s: %s",
                type(exc).__name__,
                exc,
                exc_info=log.isEnabledFor(logging.DEBUG),
            )
        finally:
            await self._shut_down()

    def drop(self) -> None:
        """Pull the cable: the socket goes without a goodbye."""
        self._dead = True
        transport = self._writer.transport
        if transport is not None:
            transport.abort()

    async def _handle(self, p: Packet) -> None:
        if p.command == A_CNXN:
            await self._on_connect(p)
        elif not self._online:
            return  # protocol.md: anything before CNXN is ignored
        elif p.command == A_OPEN:
            await self._on_open(p)
        elif p.command == A_OKAY and p.arg1 in self._pending:
            self._answer_pending(p.arg1, p.arg0)
        elif p.command == A_CLSE and p.arg1 in self._pending:
            self._answer_pending(p.arg1, None)
        elif p.command == A_OKAY:
            stream = self._streams.get(p.arg1)
            if stream is not None:
                stream.on_okay()
        elif p.command == A_WRTE:
            stream = self._streams.get(p.arg1)
            if stream is not None:
                await stream.on_write(p.payload)
        elif p.command == A_CLSE:
            self._on_host_close(p.arg1)
        else:
            raise ProtocolError(f"unexpected command {p.name!r}")

    async def _on_connect(self, p: Packet) -> None:
        version, maxdata = p.arg0, p.arg1
        if version < A_VERSION_MIN or maxdata < 4096:
            raise ProtocolError(f"host CNXN version {version:#x} maxdata {maxdata} is too old")
        for local_id in list(self._streams):  # a new CNXN starts a fresh session
            self._on_host_close(local_id)
        banner = wire_banner(self.device.banner())
        # Our CNXN goes out before the host knows our version, so it carries a checksum.
        self._checksum = True
        await self.send(Packet(A_CNXN, A_VERSION, MAX_PAYLOAD, banner))
        self._checksum = min(version, A_VERSION) < A_VERSION
        self._max_payload = min(maxdata, MAX_PAYLOAD)
        self._online = True

    async def _on_open(self, p: Packet) -> None:
        remote_id = p.arg0
        if remote_id == 0:
            return
        if p.arg1 != 0:
            # arg1 is the delayed-ack window; we never offered delayed_ack.
            await self.send(Packet(A_CLSE, 0, remote_id))
            return
        destination = p.payload.rstrip(b"\0").decode("utf-8", "replace")
        try:
            self.device.before_command()
        except ConnectionDrop:
            log.info("fault: dropping the connection at OPEN %r", destination)
            self.drop()
            raise StreamClosed() from None
        service = parse_destination(destination)
        if service is None:
            await self.send(Packet(A_CLSE, 0, remote_id))
            return
        local_id = next(self._ids)
        stream = AdbStream(local_id, remote_id, self)
        self._streams[local_id] = stream
        self._tasks[local_id] = asyncio.create_task(self._serve(service, stream), name=f"adbd:{destination[:60]}")

    async def open_to_host(self, destination: str) -> AdbStream | None:
        """OPEN a stream to the host's `destination` (an `adb reverse` REMOTE); None when
        the host refuses it (nothing listens there) or the connection is gone."""
        if self._dead or not self._online:
            return None
        local_id = next(self._ids)
        answer: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._pending[local_id] = answer
        try:
            await self.send(Packet(A_OPEN, local_id, 0, destination.encode() + b"\0"))
            remote_id = await answer
        except StreamClosed:
            return None
        finally:
            self._pending.pop(local_id, None)
        if remote_id is None:
            return None
        stream = AdbStream(local_id, remote_id, self)
        stream.connected(remote_id)
        self._streams[local_id] = stream
        return stream

    def _answer_pending(self, local_id: int, remote_id: int | None) -> None:
        answer = self._pending.pop(local_id)
        if not answer.done():
            answer.set_result(remote_id)

    async def _serve(self, service: Service, stream: AdbStream) -> None:
        try:
            delay = self.device.command_delay()
            if delay > 0:
                await asyncio.sleep(delay)
            if service.kind == "reverse":
                await stream.accept()
                await self.reverses.serve(service.argument, stream)
            elif service.kind == "reboot":
                await stream.accept()
                self.device.reboot()
                self.drop()  # the adbd goes down with the phone; the host reconnects
                return
            else:
                await service.serve(self.device, stream)
            await stream.finish()
        except StreamClosed:
            pass
        except ConnectionDrop:
            self.drop()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # A bug in the world must not take the whole phone down: log it and close
            # only this stream, as a crashing command would on a real phone. The
            # traceback only when debugging: users get one line.
            log.error(
                "simulated phone: %s %r failed: %s: %s",
                service.kind,
                service.argument[:80],
                type(exc).__name__,
                exc,
                exc_info=log.isEnabledFor(logging.DEBUG),
            )
            with contextlib.suppress(StreamClosed):
                if stream.accepted:
                    await stream.finish()
                else:
                    await stream.refuse()
        finally:
            self._streams.pop(stream.local_id, None)
            self._tasks.pop(stream.local_id, None)

    def _on_host_close(self, local_id: int) -> None:
        stream = self._streams.pop(local_id, None)
        if stream is None:
            return
        stream.on_host_close()
        task = self._tasks.pop(local_id, None)
        # Like a pipe whose reader went away: the command stops where it is.
        if task is not None and not task.done():
            task.cancel()

    async def _shut_down(self) -> None:
        self._dead = True
        self._online = False
        self.reverses.close()
        for local_id in list(self._pending):
            self._answer_pending(local_id, None)
        for local_id in list(self._streams):
            self._on_host_close(local_id)
        self.drop()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()
