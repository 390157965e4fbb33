"""What every phone tool shares: its capability, its group, and finding its target.

`changes_screen` is read by the phone's SurfaceLayer: those calls get the screen read
before and after, an `ActionEffect`, and the fresh listing attached.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from mika.action.risk import RiskClass, amounts_in, classify, classify_place, reads_as_payment
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

    async def anchor(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any] | None:
        from mika.cap.phone.anchors import anchor_for

        # Opening an app or an intent (an alarm) works from any screen: no place to expect.
        return await anchor_for(args, self.session(ctx), place=self.changes_screen and not self.opens_app)

    async def from_anchor(
        self, step_args: dict[str, Any], anchor: dict[str, Any], ctx: ToolContext
    ) -> dict[str, Any] | None:
        from mika.cap.phone.anchors import retarget

        return await retarget(step_args, anchor, self.session(ctx))


def screen_text(screen: Screen | None) -> str:
    if screen is None:
        return ""
    return " | ".join(t.strip() for t in screen.texts() if t.strip())[:SCREEN_TEXT_MAX]


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


async def point_of(args: dict[str, Any], session: PhoneSession, tool: str) -> tuple[int, int, Element | None]:
    """(x, y, element) from `element` or `x`,`y`; raises BadArguments when neither is given."""
    if args.get("element") is not None:
        await current_screen(session)
        el = resolve_element(session, int(args["element"]))
        x, y = el.centre
        session.last_target = (tool, x, y, el)
        return x, y, el
    if args.get("x") is not None and args.get("y") is not None:
        x, y = int(args["x"]), int(args["y"])
        screen = session.reader.current
        hit = screen.element_at(x, y) if screen is not None else None
        session.last_target = (tool, x, y, hit)
        return x, y, hit
    raise BadArguments(f"{tool}: give an element number, or x and y.")


# Keys that press whatever has the focus, as a tap would.
ACTIVATING_KEYS = ("ENTER", "DPAD_CENTER", "NUMPAD_ENTER", "SPACE")
# A gesture shorter than this in both directions lands as a tap (Android's touch slop is
# smaller; the margin errs on the side of checking).
TAP_SLOP_PX = 48

# Words that say an amount is due (not just a price in a list).
_DUE = re.compile(r"\b(?:total|amount due|subtotal|to pay|order total)\b|合计|总计|实付|应付|待支付", re.I)

_RANK = {RiskClass.PAY: 4, RiskClass.PAYMENT: 3, RiskClass.OUTWARD: 2, RiskClass.IRREVERSIBLE: 1, RiskClass.NONE: 0}


def payment_element(screen: Screen) -> Element | None:
    """The element a payment step is taken with (Checkout, Pay, 下单), if the screen has one."""
    for e in screen.elements:
        if e.actionable and reads_as_payment(e.label):
            return e
    return None


def payment_screen_label(screen: Screen) -> str:
    """What makes this a payment screen (its Pay/Checkout button, or an activity named so), or ""."""
    el = payment_element(screen)
    if el is not None:
        return el.label
    if screen.activity and classify_place(screen.activity).risk is not RiskClass.NONE:
        return screen.activity
    texts = [t.strip() for t in screen.texts() if t.strip()]
    if amounts_in(" | ".join(texts)):
        # An amount is due and something says so ("Total", "tap Pay now"): an app may hide
        # its checkout behind any button, field or key here.
        for t in texts:
            if reads_as_payment(t) or _DUE.search(t):
                return t[:80]
    return ""


def element_under(screen: Screen, x: int, y: int) -> Element | None:
    """Of the elements under a point, the one whose label is riskiest: a point on a Pay
    button is the Pay button even where a smaller text sits on top of it."""
    hits = [e for e in screen.elements if e.bounds.contains(x, y)]
    if not hits:
        return None
    text = screen_text(screen)
    return max(hits, key=lambda e: (_RANK[classify(e.label, text).risk], e.actionable, -e.bounds.area, e.window))


def _unclear(screen: Screen, kind: str, pay_label: str) -> ActionTarget:
    # The approval policy refuses a payment step it can't pin down; a consent never covers it.
    return ActionTarget(
        label=pay_label,
        app=screen.foreground_package,
        kind=kind,
        screen_text=screen_text(screen),
        on_screen=False,
        unclear=True,
    )


async def target_for(args: dict[str, Any], session: PhoneSession, kind: str) -> ActionTarget:
    """What a touch would hit, for the payment check: the element's label and the screen's text.

    By number: that element. By point: a fresh read and the riskiest element under the
    point; a point on nothing that can be pressed while a payment screen is in front is
    unclear, and refused rather than guessed."""
    if args.get("element") is None and args.get("x") is not None and args.get("y") is not None:
        screen = await session.reader.read()
        x, y = int(args["x"]), int(args["y"])
        el = element_under(screen, x, y)
        pay_label = payment_screen_label(screen)
        if pay_label and (el is None or (not el.actionable and classify(el.label).risk is RiskClass.NONE)):
            return _unclear(screen, kind, pay_label)
        return ActionTarget(
            label=el.label if el is not None else "",
            app=screen.foreground_package,
            kind=kind,
            screen_text=screen_text(screen),
            on_screen=el is not None,
        )
    screen = await current_screen(session)
    try:
        _, _, el = await point_of(args, session, kind)
    except (StaleElement, UnknownElement, BadArguments):
        el = None
    label = el.label if el is not None else ""
    return ActionTarget(
        label=label, app=screen.foreground_package, kind=kind, screen_text=screen_text(screen), on_screen=el is not None
    )


def focus_target(screen: Screen, kind: str) -> ActionTarget:
    """What Enter / DPAD_CENTER / Space would press: the focused button. A focused text
    field submits its form, which on a payment screen may be the payment: unclear."""
    focused = [e for e in screen.elements if e.node.focused]
    el = focused[-1] if focused else None
    if el is not None and not el.node.editable:
        return ActionTarget(label=el.label, app=screen.foreground_package, kind=kind, screen_text=screen_text(screen))
    pay_label = payment_screen_label(screen)
    if pay_label:
        return _unclear(screen, kind, pay_label)
    return ActionTarget(label="", app=screen.foreground_package, kind=kind, screen_text=screen_text(screen))


def submit_target(screen: Screen, kind: str) -> ActionTarget:
    """Enter in a text field submits its form; on a payment screen that may be the payment."""
    pay_label = payment_screen_label(screen)
    if pay_label:
        return _unclear(screen, kind, pay_label)
    return ActionTarget(label="", app=screen.foreground_package, kind=kind, screen_text=screen_text(screen))


async def focus_target_now(session: PhoneSession, kind: str) -> ActionTarget:
    # A fresh read: the focus moves with keys the listing never saw (TAB, DPAD).
    return focus_target(await session.reader.read(), kind)


ELEMENT_OR_POINT = {
    "element": {"type": "integer", "description": "Element number from the latest listing."},
    "x": {"type": "integer", "description": "X in screen pixels, when there is no element for the spot."},
    "y": {"type": "integer", "description": "Y in screen pixels."},
}
