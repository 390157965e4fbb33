"""One MCP tool as an AgentTool: a declaration made at run start from the server's listing.

Tools are declarations (DESIGN §3), so each listed tool becomes its own AgentTool class
with the name, risk and schema read from the listing, and the rest of Mika treats it
like any tool: reads go through execute_read, writes and external calls through the
ActionExecutor (the payment check reads the tool's name and arguments, so a server's
"checkout" is asked or refused like a Buy button).

What the model reads about the tool is the server's description, fenced: a description
is text Mika did not write, and a server may try to give orders through it.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from mika.model.messages import ToolSpec
from mika.observe.untrusted import defuse, fence
from mika.resources import prompt
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, AgentTool, EntryKind, Risk, ToolOutcome

DESCRIPTION_MAX = 1200  # characters of a server's tool description
SCHEMA_MAX = 8000  # characters of a tool's input schema as JSON; a larger one is replaced
_OPEN_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": True}
_RISK_WORDS = {Risk.READ: "reads only", Risk.WRITE: "changes things", Risk.EXTERNAL: "reaches outside"}


def input_schema(schema: Any) -> dict[str, Any]:
    """The server's input schema when it is a usable object schema of a sane size, else an
    open object (the server checks its own arguments)."""
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return dict(_OPEN_SCHEMA)
    try:
        size = len(json.dumps(schema))
    except (TypeError, ValueError):
        return dict(_OPEN_SCHEMA)
    if size > SCHEMA_MAX:
        return dict(_OPEN_SCHEMA)
    out = _defused(schema)
    assert isinstance(out, dict)
    out["type"] = "object"
    out.setdefault("properties", {})
    return out


def _defused(value: Any) -> Any:
    """The schema with every string's fence-like tags defused: a parameter's description
    is the server's text too, and sits in the tool list outside any fence."""
    if isinstance(value, str):
        return defuse(value)
    if isinstance(value, dict):
        return {k: _defused(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_defused(v) for v in value]
    return value


def action_label(tool: str, title: str) -> str:
    """The tool's name as words (`place_order`, `placeOrder` → "place order"), and its title,
    for the payment check that reads labels the way a person reads a button."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", tool)
    words = " ".join(w for w in re.split(r"[^A-Za-z0-9\u4e00-\u9fff]+", spaced) if w).lower()
    return " · ".join(p for p in (words, title.strip()) if p)


class McpTool(AgentTool):
    """Base of the per-tool classes `declare` makes."""

    capability = "mcp"
    group = "mcp"
    # Each MCP tool is offered from the first request (the user configured them to be
    # used); calling one opens the group, which adds the capability's prompt section.
    entry = EntryKind.OPENS
    server: ClassVar[str]
    remote_name: ClassVar[str]
    title: ClassVar[str] = ""
    server_description: ClassVar[str] = ""
    hints: ClassVar[dict[str, bool]] = {}

    @classmethod
    def description(cls) -> str:
        said = cls.server_description.strip()
        if len(said) > DESCRIPTION_MAX:
            said = said[:DESCRIPTION_MAX] + " …"
        attrs = {"source": "mcp", "server": cls.server, "tool": cls.remote_name}
        return (
            prompt("tools/mcp_tool.md")
            .format(
                tool=defuse(cls.remote_name),
                server=cls.server,
                risk=_RISK_WORDS[cls.risk],
                description=fence(said or "(no description)", attrs),
            )
            .strip()
        )

    @classmethod
    def spec(cls, folded: bool = False) -> ToolSpec:
        return ToolSpec(cls.name, cls.description(), cls.parameters)

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget | None:
        return ActionTarget(
            label=action_label(self.remote_name, self.title),
            app=f"mcp:{self.server}",
            kind="mcp",
            screen_text=json.dumps(args, ensure_ascii=False)[:2000],
            on_screen=False,
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        from mika.cap.mcp.connection import McpServerError
        from mika.cap.mcp.result import result_outcome
        from mika.cap.mcp.session import McpSession

        session = ctx.service(McpSession)
        if session is None:  # declared by McpCapability, which always brings its session
            return ToolOutcome.error("mcp_server_gone", f"MCP server {self.server!r} is not connected in this run.")
        try:
            result = await session.call(self.server, self.remote_name, args)
        except McpServerError as exc:
            return ToolOutcome.error(exc.code, str(exc), server=self.server, tool=self.remote_name)
        return result_outcome(
            result,
            run_name=self.name,
            server=self.server,
            tool=self.remote_name,
            step=ctx.step,
            images=session.images,
        )


def declare(run_name: str, server: str, listed: Any, risk: Risk, hints: dict[str, bool]) -> McpTool:
    """An instance of a new McpTool class for one listed tool (`mcp_types.Tool`)."""
    annotations = getattr(listed, "annotations", None)
    title = str(getattr(listed, "title", None) or getattr(annotations, "title", None) or "")
    attrs: dict[str, Any] = {
        "name": run_name,
        "risk": risk,
        "server": server,
        "remote_name": str(listed.name),
        "title": title,
        "server_description": str(getattr(listed, "description", None) or ""),
        "hints": dict(hints),
        "parameters": input_schema(getattr(listed, "input_schema", None)),
        "__doc__": f"MCP tool {listed.name} of server {server}.",
    }
    cls = type(f"McpTool_{run_name}", (McpTool,), attrs)
    return cls()
