"""What every phone tool shares: its capability, its group, and finding its target.

`changes_screen` is read by the phone's SurfaceLayer: those calls get the screen read
before and after, an `ActionEffect`, and the fresh listing attached.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mika.cap.phone.fenced import fenced_listing
from mika.cap.phone.session import PhoneSession, session_of
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, AgentTool, Risk, ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import Element, Screen, StaleElement, UnknownElement

SCREEN_TEXT_MAX = 4000  # characters of screen text handed to the payment check


class PhoneTool(AgentTool):
    capability = "phone"
    group = "phone"
    risk = Risk.WRITE
    changes_screen: ClassVar[bool] = False
    # Brings another app to the front on purpose: do_steps does not stop for that.
    opens_app: ClassVar[bool] = False

    def session(self, ctx: ToolContext) -> PhoneSession:
        return session_of(ctx)


def screen_text(screen: Screen | None) -> str:
    if screen is None:
        return ""
    return " | ".join(t.strip() for t in screen.texts() if t.strip())[:SCREEN_TEXT_MAX]


async def current_screen(session: PhoneSession) -> Screen:
    return session.reader.current or await session.reader.read()


def resolve_element(session: PhoneSession, number: int) -> Element:
    """The element behind a number the model saw; StaleElement/UnknownElement otherwise."""
    return session.reader.tracker.resolve(int(number), session.reader.shown_version)


def stale_outcome(exc: StaleElement | UnknownElement, session: PhoneSession) -> ToolOutcome:
    if isinstance(exc, StaleElement):
        current = session.reader.current
        listing = exc.listing
        if current is not None:
            session.reader.mark_shown(current)
            listing = fenced_listing(current)
        return ToolOutcome(text=f"{exc}\n\n{listing}", ok=False, code="stale_element")
    return ToolOutcome(text=str(exc), ok=False, code="unknown_element")


async def point_of(args: dict[str, Any], session: PhoneSession, tool: str) -> tuple[int, int, Element | None]:
    """(x, y, element) from `element` or `x`,`y`; raises BadArguments when neither is given."""
    if args.get("element") is not None:
        await current_screen(session)
        el = resolve_element(session, int(args["element"]))
        x, y = el.centre
        return x, y, el
    if args.get("x") is not None and args.get("y") is not None:
        x, y = int(args["x"]), int(args["y"])
        screen = session.reader.current
        return x, y, screen.element_at(x, y) if screen is not None else None
    raise BadArguments(f"{tool}: give an element number, or x and y.")


async def target_for(args: dict[str, Any], session: PhoneSession, kind: str) -> ActionTarget:
    """What a touch would hit, for the payment check: the element's label and the screen's text."""
    screen = await current_screen(session)
    try:
        _, _, el = await point_of(args, session, kind)
    except (StaleElement, UnknownElement, BadArguments):
        el = None
    label = el.label if el is not None else ""
    return ActionTarget(label=label, app=screen.foreground_package, kind=kind, screen_text=screen_text(screen),
                        on_screen=el is not None)


ELEMENT_OR_POINT = {
    "element": {"type": "integer", "description": "Element number from the latest listing."},
    "x": {"type": "integer", "description": "X in screen pixels, when there is no element for the spot."},
    "y": {"type": "integer", "description": "Y in screen pixels."},
}
