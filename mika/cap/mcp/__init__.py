"""MCP servers as a capability: the tools of the servers in `[mcp.servers.*]`, in a run.

At the run's start (`start`, asked by TaskRun before the tool list is made) every enabled
server is connected at once with the official SDK client (`connection.py`: stdio or
streamable HTTP) and its tools are listed once. Each becomes an AgentTool (`tool.py`)
named `mcp_<server>_<tool>` (`naming.py`), its risk read from its annotations
(`risk.py`); the list is then frozen for the run, whatever the server lists later.
Results are fenced as untrusted and cut to size (`result.py`). A server that cannot be
started or listed is one notice for the run, naming it and why; the others still work.
Closing the run closes every session and stops every server process it started.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mika.cap.mcp.connection import McpConnection, McpServerError
from mika.cap.mcp.naming import assign_names
from mika.cap.mcp.risk import hints_of, risk_of
from mika.cap.mcp.session import McpSession
from mika.cap.mcp.tool import McpTool, declare
from mika.config.language import ui_language
from mika.config.mcp_servers import McpServerConfig
from mika.resources import prompt
from mika.tool.declaration import AgentTool, Risk

__all__ = ["McpCapability", "McpServerError", "ServerTools", "list_server_tools"]

_NOTICE = {
    "en": "{problem}. Its tools are not in this run.",
    "zh": "{problem}（MCP 服务器 {name} 的工具不在本次任务中。）",
}


@dataclass(frozen=True)
class ServerTools:
    """What one server offered when it was started: its tools as the run names them."""

    server: str
    tools: tuple[McpTool, ...] = ()
    problem: str = ""
    listed: tuple[Any, ...] = field(default=(), repr=False)


def _secrets(server: McpServerConfig, environ: Mapping[str, str]) -> list[str]:
    out = [*server.env.values(), *server.headers.values()]
    if server.bearer_token_env and environ.get(server.bearer_token_env):
        out.append(environ[server.bearer_token_env])
    return out


class McpCapability:
    id = "mcp"
    group = "mcp"
    surface = None

    def __init__(
        self,
        servers: Sequence[McpServerConfig],
        *,
        redact: Callable[[str], None] | None = None,
        images: bool = True,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        import os

        self.servers = [s for s in servers if s.enabled]
        self._environ = os.environ if environ is None else environ
        self.session = McpSession(images)
        self.offered: list[ServerTools] = []
        self._tools: list[AgentTool] = []
        self._started = False
        if redact is not None:
            # What the config gave the servers never reaches this run's record.
            for server in self.servers:
                for secret in _secrets(server, self._environ):
                    redact(secret)

    async def start(self) -> list[str]:
        """Connect every server (together) and list its tools once; returns one notice per
        server left out. Called once per run; later calls change nothing (frozen list)."""
        if self._started:
            return []
        self._started = True
        self.offered = await list_server_tools(self.servers, self.session, self._environ)
        self._tools = [t for s in self.offered for t in s.tools]
        language = ui_language()
        text = _NOTICE.get(language, _NOTICE["en"])
        return [text.format(name=s.server, problem=s.problem.rstrip(".")) for s in self.offered if s.problem]

    def tools(self) -> Sequence[AgentTool]:
        return list(self._tools)

    def prompt_section(self) -> str | None:
        return prompt("capabilities/mcp.md") if self._tools else None

    def services(self) -> Sequence[object]:
        return (self.session,)

    async def close(self) -> None:
        connections = list(self.session.connections.values())
        self.session.connections.clear()
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)


async def list_server_tools(
    servers: Sequence[McpServerConfig], session: McpSession, environ: Mapping[str, str] | None = None
) -> list[ServerTools]:
    """Start each server (concurrently), list its tools, and name them for a run, in the
    config's order; the connections that started are kept in `session`."""
    connections = [McpConnection(s, environ) for s in servers]
    outcomes = await asyncio.gather(*(c.start() for c in connections), return_exceptions=True)
    listed: list[tuple[McpConnection, list[Any] | None, str]] = []
    for conn, outcome in zip(connections, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            if isinstance(outcome, asyncio.CancelledError):
                raise outcome
            problem = str(outcome) if isinstance(outcome, McpServerError) else f"{type(outcome).__name__}: {outcome}"
            listed.append((conn, None, problem))
        else:
            session.connections[conn.name] = conn
            listed.append((conn, outcome, ""))
    # Names in config order, then the server's listing order (sorted by its tool names,
    # so a server listing in a random order still gets the same names).
    pairs: list[tuple[str, Any]] = []
    for conn, tools, _ in listed:
        for tool in sorted(tools or (), key=lambda t: str(t.name)):
            pairs.append((conn.name, tool))
    names = assign_names((server, str(tool.name)) for server, tool in pairs)
    by_server: dict[str, list[McpTool]] = {}
    for (server, tool), run_name in zip(pairs, names, strict=True):
        annotations = getattr(tool, "annotations", None)
        risk: Risk = risk_of(annotations)
        by_server.setdefault(server, []).append(declare(run_name, server, tool, risk, hints_of(annotations)))
    return [
        ServerTools(conn.name, tuple(by_server.get(conn.name, ())), problem, tuple(tools or ()))
        for conn, tools, problem in listed
    ]
