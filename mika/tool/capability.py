"""A capability as the core sees it: some tools, a prompt section, services, a surface, a lifecycle.

The core knows none by name; `mika.assembly` builds them for a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from mika.tool.declaration import AgentTool
from mika.tool.surface import SurfaceLayer


class Capability(Protocol):
    # Read-only members: a capability may declare them as plain class attributes of a
    # narrower type (GeneralCapability's `surface = None`).
    @property
    def id(self) -> str: ...

    @property
    def group(self) -> str | None:
        """The tool group this capability folds into (phone, web, sandbox), or None if its
        tools are always offered."""
        ...

    @property
    def surface(self) -> SurfaceLayer | None:
        """What a capability with a screen checks before and after each of its actions (the
        phone's); None for one without a screen."""
        ...

    def tools(self) -> Sequence[AgentTool]: ...

    def prompt_section(self) -> str | None:
        """Text joined into the system prompt once its group is open (capabilities/<id>.md)."""
        ...

    def services(self) -> Sequence[object]:
        """Objects its tools find by their class: `ctx.service(PhoneSession)`."""
        ...

    async def close(self) -> None: ...

    # Optional, looked up with getattr by TaskRun (a Protocol member would be required):
    #   async def start(self) -> Sequence[str]
    # for a capability whose tools are known only once it has started (MCP servers connect
    # and list theirs); awaited once before the run's tool list is frozen, its lines told
    # as warning notices; and
    #   def bind_gate(self, gate) -> None
    # for a capability whose ports send inputs to a screen: it is handed the run's
    # InputGate (mika.action.input_gate) and its ports call it before every input.
