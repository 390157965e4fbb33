"""A capability as the core sees it: some tools, a prompt section, services, a lifecycle.

The core knows none by name; `mika.assembly` builds them for a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from mika.tool.declaration import AgentTool


class Capability(Protocol):
    id: str
    # The tool group this capability folds into (phone, web, sandbox), or None if its
    # tools are always offered.
    group: str | None

    def tools(self) -> Sequence[AgentTool]: ...

    def prompt_section(self) -> str | None:
        """Text joined into the system prompt once its group is open (capabilities/<id>.md)."""
        ...

    def services(self) -> dict[str, Any]:
        """Objects its tools find in ToolContext.services[self.id]."""
        ...

    async def close(self) -> None: ...
