"""history_read: page through this conversation's earlier turns.

A new run gets the outcomes of the last few turns in its opening context; anything older
is read on demand with this tool, so long conversations don't bloat every request.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mika.observe.observation import Observation, ObsKind, Place, Trust
from mika.run.conversations import ConversationStore, read_history
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, Risk, ToolOutcome


class HistoryRead(AgentTool):
    group = "more"  # rarely needed: listed by more_tools until opened
    name = "history_read"
    capability = "general"
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {
            "offset": {"type": "integer", "description": "First turn to read, 0 = the oldest."},
            "limit": {"type": "integer", "description": "How many turns (1–50, default 10)."},
        },
    }

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        cid = ctx.spec.conversation_id
        if not cid:
            return ToolOutcome.error("no_conversation", "This run is not part of a conversation; there is no history.")
        text = read_history(
            cid,
            int(args.get("offset", 0) or 0),
            int(args.get("limit", 10) or 10),
            store=ConversationStore(self.state_dir),
        )
        # The user's own earlier words and Mika's own answers: trusted, not page content.
        obs = Observation.build(
            ObsKind.READ,
            "general",
            text,
            trust=Trust.TRUSTED,
            title="conversation history",
            place=Place("conversation", cid),
            step=ctx.step,
        )
        return ToolOutcome(text=text, observations=(obs,))
