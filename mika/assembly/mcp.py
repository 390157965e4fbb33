"""The MCP capability in the run environment: the configured servers, opened per run.

Nothing is started here: a run's servers are started when the run starts (TaskRun asks
the capability to `start`), so a run that never starts never spawns a server.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mika.config.settings import Settings
from mika.runtypes.spec import RunSpec


def mcp_opener(
    settings: Settings, *, redact: Callable[[str], None] | None = None, images: bool = True
) -> Callable[[RunSpec], Any]:
    """`RunEnvironment.mcp`: the MCP capability for one run over `[mcp.servers.*]`."""
    servers = settings.mcp_servers

    def opener(spec: RunSpec) -> Any:
        from mika.cap.mcp import McpCapability

        return McpCapability(servers, redact=redact, images=images)

    return opener
