"""The index of a tier (mika.tool.groups `TIER_OF`): one tool standing for a group of
less common tools until the model asks for them.

Calling it opens the tier — the executor does that for any call of a group's entry — so
`run` only says what opened, and which asked-for names are not among them. A capability
declares its index as a subclass naming its own `name`, `capability` and `group`.
"""

from __future__ import annotations

from typing import Any

from mika.resources import prompt
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, EntryKind, Risk, ToolOutcome


class TierIndex(AgentTool):
    entry = EntryKind.INDEX
    risk = Risk.READ
    control = True  # opening tools neither reads the world nor acts on it
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

    @classmethod
    def description(cls) -> str:
        # An index is only ever offered folded: its one text is its entry text.
        return prompt(f"entries/{cls.name}.md")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        run_tools = ctx.tools.tools if ctx.tools else ()
        tier = sorted(t.name for t in run_tools if t.group == self.group and t.entry is not EntryKind.INDEX)
        asked = [str(n).strip() for n in args.get("tools") or () if str(n).strip()]
        unknown = [n for n in asked if n not in tier]
        named = [n for n in asked if n in tier]
        text = prompt("feedback/more_tools_opened.md").format(tools=", ".join(named or tier))
        if unknown:
            text += " " + prompt("feedback/more_tools_unknown.md").format(
                names=", ".join(unknown), tools=", ".join(tier)
            )
        return ToolOutcome(text=text, data={"opened": tier, "unknown": unknown})
