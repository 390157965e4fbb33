"""`app_process / com.mobilenext.mobilecli.DeviceServer [--idle-timeout-ms=N]`: one process.

As DeviceServer.java runs: it listens on `localabstract:mobilecli-server` (a second one
fails to bind and exits 1, as LocalServerSocket does), serves each connection one
JSON-RPC call over HTTP, and lives on after the shell that started it (mobilecli starts
it with `nohup … &`) until it is killed (`pkill -f '[D]eviceServer'`) or no request came
for the idle timeout (30 minutes unless told). `pgrep -f` / `pkill -f` see its command
line through `running()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import weakref
from typing import TYPE_CHECKING

from mika.sim.device import StreamClosed
from mika.sim.devicekit import methods, rpc, wire
from mika.sim.stdio import Output
from mika.sim.world.local_sockets import Connection, Listener

if TYPE_CHECKING:
    from mika.sim.world.phone_state import PhoneState

MAIN_CLASS = "com.mobilenext.mobilecli.DeviceServer"
SOCKET_NAME = "mobilecli-server"
IDLE_TIMEOUT_ARG = "--idle-timeout-ms="
DEFAULT_IDLE_TIMEOUT_MS = 30 * 60 * 1000
_pids = itertools.count(7101)

_running: weakref.WeakKeyDictionary[PhoneState, dict[int, DeviceServer]] = weakref.WeakKeyDictionary()


def running(phone: PhoneState) -> dict[int, DeviceServer]:
    """The DeviceServer processes alive on this phone, by pid (for ps / pgrep / kill)."""
    return _running.setdefault(phone, {})


def idle_timeout_ms(args: list[str]) -> int:
    for arg in args:
        if arg.startswith(IDLE_TIMEOUT_ARG):
            value = arg[len(IDLE_TIMEOUT_ARG) :]
            if value.isdigit() and int(value) > 0:
                return int(value)
    return DEFAULT_IDLE_TIMEOUT_MS


class DeviceServer:
    def __init__(self, phone: PhoneState, classpath: str, args: list[str]) -> None:
        self.phone = phone
        self.pid = next(_pids)
        self.command_line = " ".join(["app_process", "/", MAIN_CLASS, *args])
        self.idle_timeout = idle_timeout_ms(args) / 1000
        self.killed = asyncio.Event()
        dex = phone.files.read(classpath.split(":")[0]) or b""
        # hashClassPath(): read once at start, so a dex pushed later doesn't change it.
        self.methods = methods.table(phone, hashlib.sha256(dex).hexdigest())
        self._calls: set[asyncio.Task[None]] = set()

    def kill(self) -> None:
        self.killed.set()

    async def run(self, listener: Listener) -> int:
        killer = asyncio.ensure_future(self.killed.wait())
        try:
            while True:
                accept = asyncio.ensure_future(listener.accept())
                done, _ = await asyncio.wait({accept, killer}, timeout=self.idle_timeout, return_when="FIRST_COMPLETED")
                if accept not in done:
                    accept.cancel()
                    # killed (SIGTERM, as sh reports it), or idle: System.exit(0)
                    return 143 if killer in done else 0
                task = asyncio.ensure_future(self._serve(accept.result()))
                self._calls.add(task)
                task.add_done_callback(self._calls.discard)
        finally:
            killer.cancel()
            listener.close()
            for task in list(self._calls):
                task.cancel()

    async def _serve(self, conn: Connection) -> None:
        try:
            request = await wire.read_request(conn.stream)
            if request is not None:
                body = await rpc.dispatch(request.body, self.methods)
                await conn.stream.write(wire.response(body))
        except StreamClosed:
            pass
        finally:
            conn.close()


async def main(phone: PhoneState, args: list[str], *, err: Output, classpath: str) -> int:
    """Run the server as the shell's `app_process` starts it: `args` are those after the
    class name, `classpath` the CLASSPATH it was started with."""
    try:
        listener = Listener(phone, SOCKET_NAME)
    except OSError as exc:
        err.write(
            f"Error: {exc}\njava.io.IOException: {exc}\n\tat android.net.LocalSocketImpl.bindLocal(Native Method)\n"
        )
        await err.flush()
        return 1
    server = DeviceServer(phone, classpath, args)
    table = running(phone)
    table[server.pid] = server
    try:
        return await server.run(listener)
    finally:
        table.pop(server.pid, None)
        with contextlib.suppress(Exception):
            await err.flush()
