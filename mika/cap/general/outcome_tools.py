"""end_not_done: end a run that could not finish, saying what was done and where it stuck."""

from __future__ import annotations

from typing import Any

from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, Risk
from mika.tool.outcome import EndRun, ToolOutcome

SUBTYPES = [
    "blocked",
    "login_incomplete",
    "captcha_incomplete",
    "route_failed",
    "device_unavailable",
    "interaction_failed",
]


class EndNotDone(AgentTool):
    name = "end_not_done"
    capability = "general"
    risk = Risk.READ
    control = True
    gives_up = True
    parameters = {
        "type": "object",
        "properties": {
            "subtype": {"type": "string", "enum": SUBTYPES},
            "message": {
                "type": "string",
                "description": "For the user: what was confirmed done, where it stuck, what the screen shows now.",
            },
        },
        "required": ["subtype", "message"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        return ToolOutcome(
            text="Ending the run as not done.",
            code="end_not_done",
            end_run=EndRun(args["subtype"], args["message"].strip()),
        )
