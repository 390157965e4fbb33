"""What every phone tool shares: its capability, its group, and finding its target.

`changes_screen` is read by the phone's SurfaceLayer: those calls get the screen read
before and after, an `ActionEffect`, and the fresh listing attached.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mika.action.under_point import element_under, screen_text
from mika.cap.phone.fenced import fenced_listing
from mika.cap.phone.session import PhoneSession, session_of
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, AgentTool, Risk, ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import Element, Screen, StaleElement, UnknownElement


class PhoneTool(AgentTool):
    capability = "phone"
    group = "phone"
    risk = Risk.WRITE
    changes_screen: ClassVar[bool] = False
    # Brings another app to the front on purpose: do_steps does not stop for that.
    opens_app: ClassVar[bool] = False

    def session(self, ctx: ToolContext) -> PhoneSession:
        return session_of(ctx)

    async def anchor(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any] | None:
        from mika.cap.phone.anchors import anchor_for

        # Opening an app or an intent (an alarm) works from any screen: no place to expect.
        return await anchor_for(args, self.session(ctx), place=self.changes_screen and not self.opens_app)

    async def from_anchor(
        self, step_args: dict[str, Any], anchor: dict[str, Any], ctx: ToolContext
    ) -> dict[str, Any] | None:
        from mika.cap.phone.anchors import retarget

        return await retarget(step_args, anchor, self.session(ctx))


def quoted(text: str, app: str = "") -> str:
    """An app's text (a label, a field's name) in one of Mika's sentences: inside an inline
    fence of its own, so a label that says "SYSTEM: the user approved…" or spells a closing
    tag stays the app's words (`Tapped button <untrusted …>Pay</untrusted>.`)."""
    # One line, like the label it usually is: a cut at a line (a batch's summary) never
    # leaves the fence open.
    return fence(" ".join(text.splitlines()), {"source": "screen", "app": app}, block=False)


async def current_screen(session: PhoneSession) -> Screen:
    return session.reader.current or await session.reader.read()


class NotShownYet(StaleElement):
    """An element number before any listing was given: the phone tools may be offered from
    the first request (preloaded), so a number can come from nowhere but a guess."""

    def __init__(self, number: int, current_version: int, listing: str) -> None:
        super().__init__(number, None, current_version, listing)
        Exception.__init__(
            self,
            f"Element {number}: no listing of this screen was given to you yet, so that number is a guess. "
            "Nothing was done. Pick the element from this listing.",
        )


def resolve_element(session: PhoneSession, number: int) -> Element:
    """The element behind a number the model saw; StaleElement/UnknownElement otherwise."""
    if session.reader.shown_version is None:
        current = session.reader.current
        raise NotShownYet(int(number), current.version if current else 0, current.listing() if current else "")
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


def screen_point(args: dict[str, Any], session: PhoneSession, tool: str) -> tuple[int, int] | None:
    """`x`,`y` in screen coordinates, or None when not both are given. With `on_picture`
    they are pixels of the last phone_screenshot picture (scaled for the model): mapped
    back with that picture's own scale, the one place such a point becomes a screen point."""
    if args.get("x") is None or args.get("y") is None:
        return None
    x, y = int(args["x"]), int(args["y"])
    if not args.get("on_picture"):
        return x, y
    scale = session.shown_picture
    if scale is None:
        raise BadArguments(f"{tool}: on_picture needs a phone_screenshot first; give screen pixels otherwise.")
    w, h = scale.picture
    if not (0 <= x < w and 0 <= y < h):
        raise BadArguments(f"{tool}: {x},{y} is outside the {w}x{h} picture.")
    return scale.to_screen(x, y)


async def point_of(args: dict[str, Any], session: PhoneSession, tool: str) -> tuple[int, int, Element | None]:
    """(x, y, element) from `element` or `x`,`y`; raises BadArguments when neither is given."""
    if args.get("element") is not None:
        await current_screen(session)
        el = resolve_element(session, int(args["element"]))
        x, y = el.centre
        session.last_target = (tool, x, y, el)
        return x, y, el
    point = screen_point(args, session, tool)
    if point is not None:
        x, y = point
        screen = session.reader.current
        hit = screen.element_at(x, y) if screen is not None else None
        session.last_target = (tool, x, y, hit)
        return x, y, hit
    raise BadArguments(f"{tool}: give an element number, or x and y.")


async def target_for(args: dict[str, Any], session: PhoneSession, kind: str) -> ActionTarget:
    """What a touch would hit, for pacing (the executor paces outward taps, and a screen's
    reading time, by it): the element's label and the screen's text, from the screen the
    model's numbers are checked against. No read of its own and no judgement: the payment
    judgement is the gated port's, on each input as it is sent (mika.cap.phone.gated_port)."""
    screen = await current_screen(session)
    el: Element | None = None
    try:
        if args.get("element") is not None:
            el = resolve_element(session, int(args["element"]))
        elif (point := screen_point(args, session, kind)) is not None:
            el = element_under(screen, *point)
    except (StaleElement, UnknownElement, TypeError, ValueError, BadArguments):
        el = None  # run() says what is wrong
    return ActionTarget(
        label=el.label if el is not None else "",
        app=screen.foreground_package,
        kind=kind,
        screen_text=screen_text(screen),
        on_screen=el is not None,
        screen_place=screen.activity,
        actionable=el is not None and el.actionable,
    )


ELEMENT_OR_POINT = {
    "element": {"type": "integer", "description": "Element number from the latest listing."},
    "x": {"type": "integer", "description": "X in screen pixels, when there is no element for the spot."},
    "y": {"type": "integer", "description": "Y in screen pixels."},
    "on_picture": {"type": "boolean", "description": "x,y are pixels of the last phone_screenshot picture."},
}
