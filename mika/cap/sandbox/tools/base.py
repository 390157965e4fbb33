"""What every sandbox tool shares: its capability and group, the run's SandboxSession, and
refusals (a path outside the workspace, a command that cannot start) as results."""

from __future__ import annotations

import abc
from typing import Any

from mika.cap.sandbox.port import SandboxError
from mika.cap.sandbox.session import SandboxSession
from mika.cap.sandbox.workspace import PathRefused
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, Risk, ToolOutcome
from mika.tool.errors import BadArguments, ToolFault


class SandboxTool(AgentTool):
    capability = "sandbox"
    group = "sandbox"
    risk = Risk.READ

    def session(self, ctx: ToolContext) -> SandboxSession:
        found = ctx.service(SandboxSession)
        if found is None:
            raise ToolFault("this run has no sandbox", code="sandbox_unavailable")
        return found

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            return await self.act(args, ctx)
        except PathRefused as exc:
            return ToolOutcome.error("path_refused", str(exc))
        except SandboxError as exc:
            return ToolOutcome.error("sandbox_error", str(exc))

    @abc.abstractmethod
    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome: ...


def text_arg(args: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = args.get(name)
    if value is None or value == "":
        if required:
            raise BadArguments(f"'{name}' is required")
        return ""
    if not isinstance(value, str):
        raise BadArguments(f"'{name}' must be a string")
    return value


def int_arg(args: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = args.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadArguments(f"'{name}' must be a number from {low} to {high}")
    return max(low, min(int(value), high))
