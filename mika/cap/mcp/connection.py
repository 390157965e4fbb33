"""One configured MCP server, connected with the official SDK client for the length of a run.

The SDK's transports are anyio task groups that must be entered and left by the same
task, and a failing background task cancels the task that owns the group. So each
server gets a task of its own that owns the client: it connects, lists the tools once,
then waits until the run closes it. Tool calls are made from the run's task through the
connected session; if the server dies, only its own task ends, and the run is told by
the call that failed (never cancelled with it).

A stdio server's stderr goes to a temporary file, not to Mika's terminal (the TUI owns
the screen); its last lines go into the error a start failure reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
from collections.abc import Mapping
from typing import IO, Any

import anyio

from mika.config.mcp_servers import McpServerConfig

log = logging.getLogger(__name__)

MAX_PAGES = 20  # of a paginated tool listing: a server that never ends its list can't hang a run
STDERR_TAIL = 400  # characters of a failed server's stderr in its error


class McpServerError(Exception):
    """A server could not be started, listed or called; the sentence names the server."""

    def __init__(self, server: str, text: str, code: str = "mcp_error") -> None:
        super().__init__(text)
        self.server = server
        self.code = code


def _reason(exc: BaseException) -> str:
    """The innermost useful sentence of an SDK/anyio failure (they arrive in exception groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    if isinstance(exc, FileNotFoundError):
        return f"the command was not found ({exc.filename or text})"
    if isinstance(exc, PermissionError):
        return f"the command may not be run ({exc.filename or text})"
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


class McpConnection:
    def __init__(self, config: McpServerConfig, environ: Mapping[str, str] | None = None) -> None:
        self.config = config
        self._environ = os.environ if environ is None else environ
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._scope: anyio.CancelScope | None = None
        self._ready: asyncio.Future[list[Any]] | None = None
        self._stop = asyncio.Event()
        self._stderr: IO[str] | None = None
        self.failure: str = ""  # why the connection ended while the run still had it

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def connected(self) -> bool:
        return self._client is not None

    # -- the owner task ---------------------------------------------------------------------

    def _server(self) -> Any:
        cfg = self.config
        if cfg.url:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            headers = dict(cfg.headers)
            if cfg.bearer_token_env:
                token = self._environ.get(cfg.bearer_token_env, "")
                if not token:
                    raise McpServerError(
                        cfg.name,
                        f"MCP server {cfg.name!r}: the environment variable {cfg.bearer_token_env} "
                        "(bearer_token_env) is not set.",
                        "mcp_start_failed",
                    )
                headers["Authorization"] = f"Bearer {token}"
            timeout = httpx2.Timeout(cfg.start_timeout_s, read=max(cfg.call_timeout_s, cfg.start_timeout_s) + 5)
            http = create_mcp_http_client(headers=headers or None, timeout=timeout)
            return _HttpTransport(streamable_http_client(cfg.url, http_client=http), http)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=cfg.command, args=list(cfg.args), env=dict(cfg.env) or None, cwd=cfg.cwd or None
        )
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        return stdio_client(params, errlog=self._stderr)

    async def _own(self) -> None:
        from mcp import Client

        assert self._ready is not None
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                transport = self._server()
                async with Client(transport, read_timeout_seconds=self.config.start_timeout_s, cache=None) as client:
                    tools = await self._list(client)
                    self._client = client
                    if not self._ready.done():
                        self._ready.set_result(tools)
                    await self._stop.wait()
        except BaseException as exc:  # the owner never takes the run down with it
            if self._ready.done():
                if not self._stop.is_set():
                    self.failure = _reason(exc)
                    log.info("MCP server %s ended: %s", self.name, self.failure)
            else:
                self._ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(_reason(exc)))
            if isinstance(exc, asyncio.CancelledError) and not self._stop.is_set():
                raise
        finally:
            self._client = None
            if self._ready.done() is False:
                self._ready.set_exception(RuntimeError("the connection ended before the tool list"))
            if self._scope is not None and self._scope.cancel_called and not self._stop.is_set() and not self.failure:
                self.failure = "timed out"

    async def _list(self, client: Any) -> list[Any]:
        tools: list[Any] = []
        cursor = None
        for _ in range(MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.flush()
            self._stderr.seek(0)
            text = self._stderr.read()
            lines = [ln for ln in text.strip().splitlines() if ln.strip()]
            return " | ".join(lines[-3:])[-STDERR_TAIL:]
        return ""

    # -- what the capability uses -----------------------------------------------------------

    async def start(self) -> list[Any]:
        """Connect and list the tools once; raises McpServerError naming the server and why."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        # Read even when nobody waits any more (a start that timed out first).
        self._ready.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._task = loop.create_task(self._own(), name=f"mcp-server-{self.name}")
        try:
            async with asyncio.timeout(self.config.start_timeout_s):
                return await asyncio.shield(self._ready)
        except TimeoutError:
            await self.close()
            raise McpServerError(
                self.name,
                f"MCP server {self.name!r} did not answer within {self.config.start_timeout_s:g} s "
                f"({self.config.where()}).",
                "mcp_start_failed",
            ) from None
        except McpServerError:
            await self.close()
            raise
        except Exception as exc:
            tail = self._stderr_tail()
            await self.close()
            said = f"; it said: {tail}" if tail else ""
            raise McpServerError(
                self.name,
                f"MCP server {self.name!r} could not be started ({self.config.where()}): {_reason(exc)}{said}",
                "mcp_start_failed",
            ) from None

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """One tools/call; raises McpServerError (a tool error for the model) on a dead
        server, a protocol error or the call timeout."""
        client = self._client
        if client is None:
            why = f" ({self.failure})" if self.failure else ""
            raise McpServerError(self.name, f"MCP server {self.name!r} is no longer connected{why}.", "mcp_server_gone")
        timeout = self.config.call_timeout_s
        try:
            async with asyncio.timeout(timeout + 2):
                return await client.call_tool(tool, arguments, read_timeout_seconds=timeout)
        except TimeoutError:
            raise McpServerError(
                self.name, f"MCP server {self.name!r} did not answer {tool} within {timeout:g} s.", "mcp_timeout"
            ) from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            reason = _reason(exc)
            if "connection closed" in reason.lower():
                self.failure = f"it stopped during {tool}"
                self._client = None
                raise McpServerError(
                    self.name,
                    f"MCP server {self.name!r} stopped during {tool} (its connection closed); "
                    "its tools are gone for this run.",
                    "mcp_server_gone",
                ) from None
            if "timed out" in reason.lower() or "timeout" in type(exc).__name__.lower():
                raise McpServerError(
                    self.name, f"MCP server {self.name!r} did not answer {tool} within {timeout:g} s.", "mcp_timeout"
                ) from None
            raise McpServerError(
                self.name, f"MCP server {self.name!r} failed on {tool}: {reason}.", "mcp_call_failed"
            ) from None

    async def close(self) -> None:
        """Leave the session and stop the server's process (the SDK closes its stdin, then
        terminates and kills the process group); bounded, never raises."""
        connecting = self._client is None
        self._stop.set()
        task = self._task
        if task is not None and not task.done() and connecting and self._scope is not None:
            # Still starting (a start timeout, or the run closed first): nothing to say goodbye to.
            self._scope.cancel()
        if task is not None and not task.done():
            try:
                async with asyncio.timeout(10):
                    await asyncio.shield(task)
            except TimeoutError:
                if self._scope is not None:
                    self._scope.cancel()
                with contextlib.suppress(BaseException):
                    async with asyncio.timeout(5):
                        await asyncio.shield(task)
            except BaseException:  # its own failure was kept in `failure`
                log.debug("MCP server %s closed with an error", self.name, exc_info=True)
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.close()
            self._stderr = None


class _HttpTransport:
    """The streamable HTTP transport with its httpx client, closed together."""

    def __init__(self, streams: Any, http: Any) -> None:
        self._streams = streams
        self._http = http

    async def __aenter__(self) -> Any:
        await self._http.__aenter__()
        try:
            return await self._streams.__aenter__()
        except BaseException:
            await self._http.__aexit__(None, None, None)
            raise

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self._streams.__aexit__(*exc)
        finally:
            await self._http.__aexit__(None, None, None)
