"""`SurfaceLayer`: how the tool engine reaches screen-aware work without knowing screens.

The assembly builds one from the capabilities that have screens (phone, web) and puts it
in the tool context. The dispatcher calls `before` ahead of each call and `after` once it
returned; the layer may look at the screen first, compare the effect, and attach the new
screen to the outcome. The engine only passes names, arguments and outcomes through.
"""

from __future__ import annotations

from typing import Any, Protocol

from mika.tool.outcome import ToolOutcome


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


class JoinedSurface:
    """The surfaces of a run with several screens (the phone and the web), joined.

    Each call goes to the layer of the capability it names, and only to it: a web step
    never reads the phone, a phone step never touches a page. A capability without a
    layer passes through. `user_had_device` reaches every layer: the person may have used
    any of the screens while a question or a hand-over waited.
    """

    def __init__(self, by_capability: dict[str, SurfaceLayer]) -> None:
        self.by_capability = dict(by_capability)

    async def before(self, capability: str, tool: str, args: dict[str, Any]) -> Any:
        layer = self.by_capability.get(capability)
        return None if layer is None else await layer.before(capability, tool, args)

    async def after(
        self, capability: str, tool: str, args: dict[str, Any], token: Any, outcome: ToolOutcome
    ) -> ToolOutcome:
        layer = self.by_capability.get(capability)
        return outcome if layer is None else await layer.after(capability, tool, args, token, outcome)

    async def is_locked(self, capability: str) -> bool:
        layer = self.by_capability.get(capability)
        return False if layer is None else await layer.is_locked(capability)

    def user_had_device(self) -> None:
        for layer in self.by_capability.values():
            forget = getattr(layer, "user_had_device", None)
            if forget is not None:
                forget()


def join_surfaces(by_capability: dict[str, SurfaceLayer]) -> SurfaceLayer | None:
    """None without any layer, the layer itself when there is one, else them joined."""
    if not by_capability:
        return None
    if len(by_capability) == 1:
        return next(iter(by_capability.values()))
    return JoinedSurface(by_capability)
