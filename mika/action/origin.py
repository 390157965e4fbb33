"""Who started this step, and what each starter may do."""

from __future__ import annotations

import enum


class Origin(enum.Enum):
    MODEL = "model"  # the model called a tool
    BATCH = "batch"  # one step of do_steps
    SCRIPT = "script"  # a step of a scripted sequence
    REPLAY = "replay"  # a step of a recorded route
    MCP = "mcp"  # an MCP client called a tool
    SANDBOX = "sandbox"  # a command inside the sandbox called `mika phone <op>`

    @property
    def may_use_consent(self) -> bool:
        """Whether a user's consent can release a payment step started this way.

        Only the model's own calls and its batches act on a consent the user gave while
        watching; replays, scripts and MCP clients never spend one. (An MCP client's own
        elicited consent is spent only by that client: `Consent.spent_by`.)"""
        return self in (Origin.MODEL, Origin.BATCH)
