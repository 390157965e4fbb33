"""One MCP stdio session with a peer server, held open across tests (and the benchmark
benchmarks/peer_mobile_mcp.py), and how the peer @mobilenext/mobile-mcp is found and run.

The `mcp` SDK's client is async and its session lives in the event loop that opened it,
so the session runs in a thread of its own with its own loop; a test calls a tool from
plain sync code and waits for the answer (`PeerSession.call`).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


@dataclass(frozen=True)
class Reply:
    text: str  # the text parts, joined
    failed: bool  # the result's isError
    content: list[Any]  # every part (text, image, …) as the SDK parsed it


class PeerSession:
    def __init__(self, params: StdioServerParameters, start_timeout: float = 60, errlog: TextIO | None = None) -> None:
        self._params = params
        self._errlog = errlog if errlog is not None else sys.stderr  # where the server's stderr goes
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
        async with (
            stdio_client(self._params, errlog=self._errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
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


def peer_entry() -> Path | None:
    """The peer's lib/index.js named by MIKA_PEER_MOBILE_MCP (its package dir, an npm
    prefix, or the file itself); None when unset or not installed there."""
    raw = os.environ.get("MIKA_PEER_MOBILE_MCP", "")
    if not raw:
        return None
    p = Path(raw)
    for cand in (p, p / "lib" / "index.js", p / "node_modules" / "@mobilenext" / "mobile-mcp" / "lib" / "index.js"):
        if cand.is_file():
            return cand
    return None


def peer_env(bin_dir: str, adb_port: int, closed_port: int) -> dict[str, str]:
    """The peer's environment: `adb` (a link in `bin_dir`) on PATH reaching the adb server
    on `adb_port`, no telemetry, and outbound HTTP sent to `closed_port`, where nobody listens."""
    env = dict(os.environ)
    # The peer and its mobilecli run `adb` from PATH against our private server.
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["ANDROID_ADB_SERVER_PORT"] = str(adb_port)
    env["MOBILEMCP_DISABLE_TELEMETRY"] = "1"  # no network from tests
    # mobilecli starts a daemon that outlives the call and keeps the adb port it began
    # with; a home of our own keeps it apart from any other (and lets us stop it).
    env["MOBILECLI_HOME"] = os.path.join(bin_dir, "mobilecli-home")
    env.pop("ANDROID_HOME", None)
    # The cloud tools' mobilecli would reach app.mobilenext.ai: its HTTP goes to a local
    # port nobody listens on (Go's client leaves localhost, the DeviceServer, unproxied).
    closed = f"http://127.0.0.1:{closed_port}"
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        env[name] = closed
    for name in ("NO_PROXY", "no_proxy"):
        env.pop(name, None)
    env["BROWSER"] = "/bin/false"
    return env


def stop_peer_daemon(entry: Path, env: dict[str, str]) -> None:
    """Stops the mobilecli daemon the peer left running under `env`'s MOBILECLI_HOME."""
    modules = entry.resolve().parents[2]  # node_modules/@mobilenext/mobile-mcp/lib/index.js
    for binary in modules.glob("mobilecli-*/mobilecli-*"):
        if binary.is_file() and os.access(binary, os.X_OK):
            subprocess.run([str(binary), "daemon", "stop"], env=env, capture_output=True, timeout=20)
