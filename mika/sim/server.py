"""Listen on 127.0.0.1 for adb servers and serve one simulated phone to each.

`SimServer` lives on the caller's event loop; `SimServer.start_in_thread` runs one on a
private loop in a daemon thread for sync code (the CLI, tests, benchmarks).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass

from mika.sim.adbd import Transport
from mika.sim.device import SimDevice

# adb scans these for emulators (console on even ports, adbd on odd ones) and would
# grab a simulated phone there as "emulator-55xx"; never listen on them.
EMULATOR_PORTS = range(5554, 5586)


class SimServerError(Exception):
    """The simulated phone could not listen; the message says why and what to do."""


class SimServer:
    def __init__(self, device: SimDevice, port: int = 0, host: str = "127.0.0.1") -> None:
        self.device = device
        self._want_port = port
        self._host = host
        self._server: asyncio.Server | None = None
        self._transports: set[Transport] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0
        self.accepted = 0  # host connections accepted so far (a reconnect adds one)

    async def start(self) -> int:
        if self._want_port in EMULATOR_PORTS:
            raise SimServerError(
                f"port {self._want_port} is in adb's emulator range 5554–5585; pick another (or 0 for any free port)"
            )
        for _attempt in range(20):
            try:
                server = await asyncio.start_server(self._accept, self._host, self._want_port)
            except OSError as exc:
                raise SimServerError(
                    f"cannot listen on {self._host}:{self._want_port}: {exc.strerror or exc}; "
                    "pick another port (or 0 for any free port)"
                ) from exc
            port = server.sockets[0].getsockname()[1]
            if port not in EMULATOR_PORTS:
                self._server, self.port = server, port
                return port
            server.close()  # the OS picked an emulator port; ask again
            await server.wait_closed()
        raise SimServerError("no free port outside 5554–5585 was found")

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        # Dropping each transport ends its read loop, which ends its handler task; the
        # tasks belong to asyncio's server, so they are awaited, not cancelled.
        for transport in list(self._transports):
            transport.drop()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None

    def drop_connections(self) -> None:
        """Drop every host connection now (as a pulled cable would); listening goes on."""
        for transport in list(self._transports):
            transport.drop()

    @property
    def connections(self) -> int:
        """Host connections open now (0 while no adb server is attached)."""
        return len(self._transports)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        transport = Transport(self.device, reader, writer)
        self.accepted += 1
        self._transports.add(transport)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await transport.run()
        finally:
            self._transports.discard(transport)
            if task is not None:
                self._tasks.discard(task)

    @classmethod
    def start_in_thread(cls, device: SimDevice, port: int = 0) -> ThreadedSimServer:
        return ThreadedSimServer.start(cls(device, port))


@dataclass
class ThreadedSimServer:
    """A SimServer on its own event loop in a daemon thread."""

    server: SimServer
    loop: asyncio.AbstractEventLoop
    thread: threading.Thread
    port: int

    @classmethod
    def start(cls, server: SimServer) -> ThreadedSimServer:
        loop = asyncio.new_event_loop()
        started: dict[str, object] = {}
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                started["port"] = loop.run_until_complete(server.start())
            except BaseException as exc:  # reported to the starting thread below
                started["error"] = exc
                ready.set()
                loop.close()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(server.stop())
            # Like asyncio.run: whatever the world still runs is cancelled and awaited,
            # so nothing is destroyed while pending.
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

        thread = threading.Thread(target=run, name=f"sim-adbd:{server.device.serial}", daemon=True)
        thread.start()
        ready.wait()
        if "error" in started:
            thread.join()
            raise started["error"]  # type: ignore[misc]
        return cls(server, loop, thread, int(started["port"]))  # type: ignore[call-overload]

    def call(self, fn: Callable[[], object]) -> None:
        """Run `fn` on the server's loop (e.g. server.drop_connections)."""
        self.loop.call_soon_threadsafe(fn)

    def stop(self, timeout: float = 5.0) -> None:
        if self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout)
