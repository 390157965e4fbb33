"""The front desk of `mika mcp` over stdio: it answers a client's first requests while
the server behind it is still loading.

A client opens with `initialize` and `tools/list` and waits for both before it does
anything. Neither needs the MCP SDK (~1 s to import), the models' SDKs or a phone that
is ready: the answers are mika.mcp.listing's. So the desk takes the wire at once, answers
`initialize` as soon as it arrives and `tools/list` as soon as the face knows whether it
has a phone (`offer_tools`), and keeps everything else, in order, for the SDK's server.
When that server runs (`sdk_streams`), the desk hands it the wire: first the client's own
`initialize` again (so the SDK's session knows the client: its capabilities decide
elicitation), whose second answer is dropped, then what was kept, then every later line.
From then on the SDK answers everything, `tools/list` included (from the same listing).

Only what the desk can answer exactly as the SDK would is answered: a well-formed
handshake `initialize`, and a plain `tools/list` after it. Anything else (a 2026-07-28
client, a cursor, a malformed request) waits for the SDK, as before.

Like the SDK's own stdio transport, the desk points fd 0 at /dev/null and fd 1 at stderr
while it serves, so what anything else in the process prints never lands on the wire.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import AsyncIterator, Callable
from typing import IO, Any

from mika.mcp.listing import initialize_result

_Line = bytes | None  # None: the client closed its end


class StdioWire:
    """The process's stdin and stdout as the MCP wire, on private descriptors."""

    def __init__(self) -> None:
        sys.stdout.flush()
        self._in = os.dup(0)
        self._out = os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        self._lock = threading.Lock()

    def lines(self) -> Any:
        """The client's lines, as they come (blocking)."""
        return os.fdopen(self._in, "rb", closefd=False)

    def write(self, data: bytes) -> None:
        with self._lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self._out, view) :]

    def restore(self) -> None:
        sys.stdout.flush()
        os.dup2(self._out, 1)
        os.dup2(self._in, 0)


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) and message.get("jsonrpc") == "2.0" else None


def _request_id(message: dict[str, Any]) -> int | str | None:
    rid = message.get("id")
    return rid if isinstance(rid, (int, str)) and not isinstance(rid, bool) else None


def _plain_initialize(message: dict[str, Any]) -> bool:
    """A handshake `initialize` the SDK would accept (its params' required fields are there)."""
    params = message.get("params")
    if message.get("method") != "initialize" or _request_id(message) is None or not isinstance(params, dict):
        return False
    info = params.get("clientInfo")
    return (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(params.get("capabilities"), dict)
        and isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    )


def _plain_tools_list(message: dict[str, Any]) -> bool:
    """`tools/list` without a cursor or an envelope: the whole list, in one answer."""
    return message.get("method") == "tools/list" and _request_id(message) is not None and not message.get("params")


def _answer(rid: int | str, result: dict[str, Any]) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}, ensure_ascii=False) + "\n").encode()


class FrontDesk:
    def __init__(self, wire: StdioWire, err: IO[str]) -> None:
        self.wire = wire
        self.err = err
        self._lock = threading.Lock()
        self._kept: list[_Line] = []
        self._sink: Callable[[_Line], None] | None = None
        self._tools: list[dict[str, Any]] | None = None
        self._tools_ready = threading.Event()
        self._initialized: dict[str, Any] | None = None  # what the desk answered `initialize` with
        self._replayed: int | str | None = None  # the id whose SDK answer is dropped
        self.answered: list[str] = []  # the methods the desk answered itself, in order

    @classmethod
    def open(cls, err: IO[str]) -> FrontDesk:
        """Take the wire and start answering (a daemon thread reads the client)."""
        desk = cls(StdioWire(), err)
        threading.Thread(target=desk._read, name="mcp-front-desk", daemon=True).start()
        return desk

    # -- what the face tells the desk ------------------------------------------------------

    def offer_tools(self, entries: list[dict[str, Any]]) -> None:
        """The tool list is known: a waiting `tools/list` is answered now."""
        self._tools = entries
        self._tools_ready.set()

    # -- the client's side ------------------------------------------------------------------

    def _read(self) -> None:
        try:
            for line in self.wire.lines():
                self._take(line)
        except OSError:
            pass  # the wire broke: the same as the client leaving
        self._forward(None)

    def _take(self, line: bytes) -> None:
        with self._lock:
            handed = self._sink is not None
        message = None if handed else _parse(line)
        if message is not None and self._initialized is None and _plain_initialize(message):
            rid = _request_id(message)
            assert rid is not None
            self._initialized = initialize_result(message["params"]["protocolVersion"])
            self._replayed = rid
            self.wire.write(_answer(rid, self._initialized))
            self.answered.append("initialize")
            self._forward(line)  # the SDK's session learns the client from it
            return
        if message is not None and self._initialized is not None and _plain_tools_list(message):
            rid = _request_id(message)
            assert rid is not None
            self._tools_ready.wait()
            self.wire.write(_answer(rid, {"tools": self._tools}))
            self.answered.append("tools/list")
            return
        self._forward(line)

    def _forward(self, line: _Line) -> None:
        with self._lock:
            if self._sink is None:
                self._kept.append(line)
            else:
                self._sink(line)

    # -- the SDK's side ---------------------------------------------------------------------

    def sdk_streams(self) -> tuple[_SdkInput, _SdkOutput]:
        """The SDK's stdio streams (for `stdio_server(stdin=…, stdout=…)`), handed the wire
        from now on. Called on the event loop that serves."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[_Line] = asyncio.Queue()

        def sink(line: _Line) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, line)

        with self._lock:
            for line in self._kept:
                queue.put_nowait(line)
            self._kept.clear()
            self._sink = sink
        return _SdkInput(queue), _SdkOutput(self)

    def _from_sdk(self, text: str) -> None:
        if self._replayed is not None:
            message = _parse(text.encode())
            if message is not None and "method" not in message and message.get("id") == self._replayed:
                # The SDK's answer to the replayed `initialize`: the client has the desk's.
                self._replayed = None
                if message.get("result") != self._initialized:
                    self.err.write(
                        "mika mcp: the early initialize answer differs from the SDK's: "
                        f"{json.dumps(self._initialized)} != {json.dumps(message.get('result'))}\n"
                    )
                    self.err.flush()
                return
        self.wire.write(text.encode())


class _SdkInput:
    """The client's lines for the SDK's stdio reader (an async file of text lines)."""

    def __init__(self, queue: asyncio.Queue[_Line]) -> None:
        self._queue = queue

    async def __aiter__(self) -> AsyncIterator[str]:
        while (line := await self._queue.get()) is not None:
            yield line.decode("utf-8", errors="replace")


class _SdkOutput:
    """The SDK's writes, to the wire (but for the replayed `initialize`'s answer)."""

    def __init__(self, desk: FrontDesk) -> None:
        self._desk = desk
        self._pending = ""

    async def write(self, text: str) -> None:
        self._pending += text
        if "\n" in self._pending:
            lines, _, self._pending = self._pending.rpartition("\n")
            for line in lines.split("\n"):
                # A blocking write of one line: off the loop, as the SDK's own transport does.
                await asyncio.to_thread(self._desk._from_sdk, line + "\n")

    async def flush(self) -> None:
        return None
