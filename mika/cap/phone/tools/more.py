"""phone_more: the index of the phone's less common tools (the `phone_more` tier).

Their full definitions stay out of every request until a run needs one; the index names
each with its short text (mika.tool.groups builds that list). Calling it opens the tier —
the executor does that for any call of a group's entry — so this tool only says what
opened, and which asked-for names are not among them.
"""

from __future__ import annotations

from typing import Any

from mika.cap.phone.tools.base import PhoneTool
from mika.resources import prompt
from mika.tool.context import ToolContext
from mika.tool.declaration import EntryKind, Risk, ToolOutcome

TIER = "phone_more"


class PhoneMore(PhoneTool):
    name = "phone_more"
    group = TIER
    entry = EntryKind.INDEX
    risk = Risk.READ
    control = True  # opening tools neither reads the phone nor acts on it
    parameters = {
        "type": "object",
        "properties": {
            "tools": {
                "description": "The names of the tools you need, from the list.",
                "items": {"type": "string"},
                "type": "array",
            }
        },
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        tier = sorted(t.name for t in ctx.tools.tools if t.group == TIER and t.name != self.name) if ctx.tools else []
        asked = [str(n).strip() for n in args.get("tools") or () if str(n).strip()]
        unknown = [n for n in asked if n not in tier]
        text = prompt("feedback/more_tools_opened.md").format(
            tools=", ".join(n for n in asked if n in tier) or ", ".join(tier)
        )
        if unknown:
            text += " " + prompt("feedback/more_tools_unknown.md").format(
                names=", ".join(unknown), tools=", ".join(tier)
            )
        return ToolOutcome(text=text, data={"opened": tier, "unknown": unknown})
