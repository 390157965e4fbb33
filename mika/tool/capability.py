"""A capability as the core sees it: some tools, a prompt section, services, a surface, a lifecycle.

The core knows none by name; `mika.assembly` builds them for a run.
"""

from __future__ import annotations

from typing import Protocol, Sequence

from mika.tool.declaration import AgentTool
from mika.tool.surface import SurfaceLayer


class Capability(Protocol):
    id: str
    # The tool group this capability folds into (phone, web, sandbox), or None if its
    # tools are always offered.
    group: str | None
    # What a capability with a screen checks before and after each of its actions (the
    # phone's); None for one without a screen.
    surface: SurfaceLayer | None

    def tools(self) -> Sequence[AgentTool]: ...

    def prompt_section(self) -> str | None:
        """Text joined into the system prompt once its group is open (capabilities/<id>.md)."""
        ...

    def services(self) -> Sequence[object]:
        """Objects its tools find by their class: `ctx.service(PhoneSession)`."""
        ...

    async def close(self) -> None: ...
