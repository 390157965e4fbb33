"""Touching the screen: phone_tap, phone_long_press, phone_swipe, phone_scroll."""

from __future__ import annotations

from typing import Any

from mika.cap.phone.tools.base import (
    ELEMENT_OR_POINT,
    PhoneTool,
    current_screen,
    point_of,
    quoted,
    stale_outcome,
    target_for,
)
from mika.observe.untrusted import defuse
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import Element, Screen, StaleElement, UnknownElement


def _name(el: Element | None, x: int, y: int) -> str:
    # The label is the app's text: fenced, never quoted bare in Mika's sentence.
    if el is not None and el.label:
        return f"{el.role} {quoted(el.label, el.package)}"
    return f"{x},{y}"


class PhoneTap(PhoneTool):
    page_capped = True  # stopped by a careful app's screen cap (mika.action.pace)
    name = "phone_tap"
    replayable = True  # seed §9: a verified run may record it, by its anchor
    sandbox_callable = True
    batchable = True
    changes_screen = True
    parameters = {"type": "object", "properties": dict(ELEMENT_OR_POINT)}

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget:
        return await target_for(args, self.session(ctx), "tap")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        try:
            x, y, el = await point_of(args, session, self.name)
        except (StaleElement, UnknownElement) as exc:
            return stale_outcome(exc, session)
        g = session.gestures
        if g.is_instant:
            await session.port.tap(session.display, x, y)
            return ToolOutcome(text=f"Tapped {_name(el, x, y)}.", data={"point": [x, y]})
        # Paced: near the element's centre (or within 3 px of the point), after a short
        # pause, held 50–120 ms — still a tap, well under the long-press time.
        if el is not None:
            # Around the point Mika picked for the element (its visible centre), inside it.
            b = el.bounds
            hw, hh = max(0, min(x - b.left, b.right - x)), max(0, min(y - b.top, b.bottom - y))
            px, py = g.point_in(x - hw, y - hh, x + hw, y + hh)
        else:
            px, py = g.point_at(x, y)
        await ctx.sleep(g.pre_touch_ms() / 1000)
        await session.port.long_press(session.display, px, py, g.tap_hold_ms())
        return ToolOutcome(text=f"Tapped {_name(el, x, y)}.", data={"point": [px, py]})


class PhoneLongPress(PhoneTool):
    page_capped = True  # stopped by a careful app's screen cap (mika.action.pace)
    name = "phone_long_press"
    replayable = True  # seed §9: a verified run may record it, by its anchor
    sandbox_callable = True
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {**ELEMENT_OR_POINT, "ms": {"type": "integer", "description": "How long to hold; default 800."}},
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget:
        return await target_for(args, self.session(ctx), "long_press")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        try:
            x, y, el = await point_of(args, session, self.name)
        except (StaleElement, UnknownElement) as exc:
            return stale_outcome(exc, session)
        ms = max(400, min(int(args.get("ms") or 800), 5000))
        await ctx.sleep(session.gestures.pre_touch_ms() / 1000)
        # A paced hold only gets longer; the text keeps the asked duration.
        await session.port.long_press(session.display, x, y, session.gestures.hold_ms(ms))
        return ToolOutcome(text=f"Long-pressed {_name(el, x, y)} for {ms} ms.", data={"point": [x, y]})


class PhoneSwipe(PhoneTool):
    page_capped = True  # stopped by a careful app's screen cap (mika.action.pace)
    name = "phone_swipe"
    sandbox_callable = True
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "x1": {"type": "integer"},
            "y1": {"type": "integer"},
            "x2": {"type": "integer"},
            "y2": {"type": "integer"},
            "ms": {"type": "integer", "description": "Duration; default 300."},
        },
        "required": ["x1", "y1", "x2", "y2"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget | None:
        # For pacing: where the finger comes down (the gated port judges the swipe itself).
        try:
            start = {"x": int(args["x1"]), "y": int(args["y1"])}
        except (KeyError, TypeError, ValueError):
            return None  # run() says what is wrong
        return await target_for(start, self.session(ctx), "swipe")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        ms = max(50, min(int(args.get("ms") or 300), 5000))
        pts = [int(args[k]) for k in ("x1", "y1", "x2", "y2")]
        await ctx.sleep(session.gestures.pre_touch_ms() / 1000)
        text = f"Swiped from {pts[0]},{pts[1]} to {pts[2]},{pts[3]} in {ms} ms."
        if session.gestures.is_instant:
            await session.port.swipe(session.display, pts[0], pts[1], pts[2], pts[3], ms)
            return ToolOutcome(text=text, data={"way": "swipe"})
        # Paced: GesturePacing's arc, easing and ±8 % duration, drawn point by point on the
        # agent's display; without its control channel the port draws it straight
        # (`input swipe` from the first point to the last, over the paced duration).
        path = session.gestures.swipe(pts[0], pts[1], pts[2], pts[3], ms)
        way = await session.port.stroke(session.display, [path])
        return ToolOutcome(text=text, data={"way": way})


DIRECTIONS = ["down", "up", "left", "right"]


def scroll_area(screen: Screen, el: Element | None) -> tuple[int, int, int, int]:
    """The box to scroll in: the given element, else the biggest scrollable, else the screen."""
    if el is None:
        lists = [e for e in screen.elements if e.node.scrollable]
        if lists:
            el = max(lists, key=lambda e: e.bounds.area)
    b = el.bounds if el is not None else screen.frame
    return b.left, b.top, b.right, b.bottom


def scroll_gesture(box: tuple[int, int, int, int], direction: str, amount: float) -> tuple[int, int, int, int]:
    """Finger path for "show what is further <direction>": scrolling down moves the finger up."""
    left, top, right, bottom = box
    cx, cy = (left + right) // 2, (top + bottom) // 2
    span_y = int((bottom - top) * 0.6 * amount / 2)
    span_x = int((right - left) * 0.6 * amount / 2)
    if direction == "down":
        return cx, cy + span_y, cx, cy - span_y
    if direction == "up":
        return cx, cy - span_y, cx, cy + span_y
    if direction == "right":
        return cx + span_x, cy, cx - span_x, cy
    return cx - span_x, cy, cx + span_x, cy


class PhoneScroll(PhoneTool):
    name = "phone_scroll"
    replayable = True  # seed §9: a verified run may record it, by its anchor
    sandbox_callable = True
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "direction": {"type": "string", "enum": DIRECTIONS, "description": "Which way to see more; default down."},
            "element": {"type": "integer", "description": "The scrollable element; default the largest list."},
            "amount": {"type": "number", "description": "Share of the list to move, 0.2–1; default 0.8."},
            "find": {"type": "string", "description": "Keep scrolling (up to max_scrolls) until this text shows."},
            "max_scrolls": {"type": "integer", "description": "With find: at most this many scrolls; default 10."},
        },
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        direction = args.get("direction") or "down"
        if direction not in DIRECTIONS:
            raise BadArguments(f"phone_scroll: direction must be one of {DIRECTIONS}")
        amount = max(0.2, min(float(args.get("amount") or 0.8), 1.0))
        screen = await current_screen(session)
        el = None
        if args.get("element") is not None:
            try:
                _, _, el = await point_of({"element": args["element"]}, session, self.name)
            except (StaleElement, UnknownElement) as exc:
                return stale_outcome(exc, session)
        wanted = (args.get("find") or "").strip()
        limit = max(1, min(int(args.get("max_scrolls") or 10), 30)) if wanted else 1
        scrolls = 0
        for _ in range(limit):
            if wanted and _shows(screen, wanted):
                break
            path = scroll_gesture(scroll_area(screen, el), direction, amount)
            if session.gestures.is_instant:
                await session.port.swipe(session.display, *path, 400)
            else:
                # Paced like phone_swipe (seed: the scroll's own gesture too): an arc, eased.
                await session.port.stroke(session.display, [session.gestures.swipe(*path, 400)])
            scrolls += 1
            if not wanted:
                break
            before = screen.content_key()
            screen = await session.reader.read()
            if screen.content_key() == before:
                return ToolOutcome(
                    text=f"Scrolled {direction} {scrolls} time(s); the list did not move any more "
                    f"(its end) and {defuse(wanted)!r} was not found.",
                    ok=False,
                    code="not_found",
                    data={"scrolls": scrolls},
                )
            el = None  # numbers changed with the new read; use the biggest list from now on
        if wanted:
            found = _shows(screen, wanted)
            text = (
                f"Scrolled {direction} {scrolls} time(s); {defuse(wanted)!r} is on screen now."
                if found
                else f"Scrolled {direction} {scrolls} time(s); {defuse(wanted)!r} did not show up."
            )
            return ToolOutcome(text=text, ok=found, code="done" if found else "not_found", data={"scrolls": scrolls})
        return ToolOutcome(text=f"Scrolled {direction}.", data={"scrolls": scrolls})


def _shows(screen: Screen, wanted: str) -> bool:
    w = wanted.casefold()
    return any(w in t.casefold() for t in screen.texts())
