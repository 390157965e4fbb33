"""The run's connected MCP servers, found by the tools as a service (`ctx.service(McpSession)`)."""

from __future__ import annotations

from typing import Any

from mika.cap.mcp.connection import McpConnection, McpServerError


class McpSession:
    def __init__(self, images: bool = True) -> None:
        self.connections: dict[str, McpConnection] = {}
        # Whether the run's model takes images (a server's picture is attached or only named).
        self.images = images

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> Any:
        conn = self.connections.get(server)
        if conn is None:
            raise McpServerError(server, f"MCP server {server!r} is not connected in this run.", "mcp_server_gone")
        return await conn.call(tool, arguments)
