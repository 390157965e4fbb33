"""One MCP stdio session with a peer server, held open across tests.

The `mcp` SDK's client is async and its session lives in the event loop that opened it,
so the session runs in a thread of its own with its own loop; a test calls a tool from
plain sync code and waits for the answer (`PeerSession.call`).
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


@dataclass(frozen=True)
class Reply:
    text: str  # the text parts, joined
    failed: bool  # the result's isError
    content: list[Any]  # every part (text, image, …) as the SDK parsed it


class PeerSession:
    def __init__(self, params: StdioServerParameters, start_timeout: float = 60) -> None:
        self._params = params
        self._started: Future[ClientSession] = Future()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="peer-mcp-session", daemon=True)
        self._thread.start()
        self._session = self._started.result(timeout=start_timeout)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # a failed start is the test's failure, not a hang
            if not self._started.done():
                self._started.set_exception(exc)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with stdio_client(self._params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            self._started.set_result(session)
            await self._stop.wait()

    def _await(self, coro: Any, timeout: float) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=timeout)

    def tool_names(self) -> set[str]:
        return {t.name for t in self._await(self._session.list_tools(), 30).tools}

    def call(self, name: str, timeout: float = 60, **args: object) -> Reply:
        result = self._await(self._session.call_tool(name, args), timeout)
        text = "".join(getattr(c, "text", "") for c in result.content)
        return Reply(text, bool(result.is_error), list(result.content))

    def ok(self, name: str, timeout: float = 60, **args: object) -> str:
        """The tool's text; the test fails when the peer reports an error."""
        reply = self.call(name, timeout, **args)
        assert not reply.failed, f"{name}: {reply.text}"
        return reply.text

    def close(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=30)
