"""`SurfaceLayer`: how the tool engine reaches screen-aware work without knowing screens.

The assembly builds one from the capabilities that have screens (phone, web) and puts it
in the tool context. The dispatcher calls `before` ahead of each call and `after` once it
returned; the layer may look at the screen first, compare the effect, and attach the new
screen to the outcome. The engine only passes names, arguments and outcomes through.
"""

from __future__ import annotations

from typing import Any, Protocol

from mika.tool.declaration import ToolOutcome


class SurfaceLayer(Protocol):
    async def before(self, capability: str, tool: str, args: dict[str, Any]) -> Any:
        """Prepare for a call; the returned token is handed to `after`."""
        ...

    async def after(
        self, capability: str, tool: str, args: dict[str, Any], token: Any, outcome: ToolOutcome
    ) -> ToolOutcome:
        """Finish a call: return the outcome, possibly enriched (effect, new listing)."""
        ...

    async def is_locked(self, capability: str) -> bool:
        """True when the capability's device shows a lock screen (writes must wait)."""
        ...

    def user_had_device(self) -> None:
        """A tool that needs a person (a question, a hand-over) ended: the person may have
        used the device meanwhile, so nothing read of its screen before is to be trusted."""
        ...


class NoSurface:
    """For runs without screens: passes everything through."""

    async def before(self, capability: str, tool: str, args: dict[str, Any]) -> Any:
        return None

    async def after(
        self, capability: str, tool: str, args: dict[str, Any], token: Any, outcome: ToolOutcome
    ) -> ToolOutcome:
        return outcome

    async def is_locked(self, capability: str) -> bool:
        return False

    def user_had_device(self) -> None:
        return None
