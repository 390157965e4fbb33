"""wait: pause for a while (ended early by a new user message)."""

from __future__ import annotations

from typing import Any

from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, Risk, ToolOutcome

MAX_WAIT_S = 60


class Wait(AgentTool):
    name = "wait"
    capability = "general"
    risk = Risk.READ
    control = True
    yields_to_steer = True
    parameters = {
        "type": "object",
        "properties": {"seconds": {"type": "number", "description": f"1 to {MAX_WAIT_S}."}},
        "required": ["seconds"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        seconds = max(0.0, min(float(args["seconds"]), MAX_WAIT_S))
        start = ctx.clock()
        await ctx.sleep(seconds)
        waited = int((ctx.clock() - start) * 1000)
        return ToolOutcome(text=f"Waited {seconds:g} s.", wait_ms=waited)
