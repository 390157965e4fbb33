"""Pointing: web_tap and web_scroll. A tap is a real mouse click at the element's box
centre, after the element was scrolled into view; the element is found by its handle
(the accessibility node), not by the point the listing was read at."""

from __future__ import annotations

from typing import Any

from mika.cap.web.tools.base import (
    WebTool,
    element_arg,
    element_name,
    element_target,
    fresh_screen,
    handle_of,
    pace,
    page_url,
    resolve_element,
    stale_outcome,
)
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import Element, StaleElement, UnknownElement

SCROLL_SHARE = 0.8  # of the viewport, for one "down" or "up"


class ElementGone(StaleElement):
    """The element the number named is no longer in the document."""

    def __init__(self, number: int, version: int) -> None:
        super().__init__(number, version, version, "")
        Exception.__init__(
            self, f"Element {number} is no longer on the page (it changed since you read it). Nothing was done."
        )


async def box_centre(tool: WebTool, ctx: ToolContext, el: Element) -> tuple[float, float] | None:
    box = await tool.session(ctx).port.element_box(handle_of(el))
    if box is None:
        return None
    left, top, right, bottom = box
    return (left + right) / 2, (top + bottom) / 2


class WebTap(WebTool):
    name = "web_tap"
    changes_page = True
    page_kind = "tap"
    parameters = {
        "type": "object",
        "properties": {"element": {"type": "integer", "description": "Element number from the latest listing."}},
        "required": ["element"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget:
        return await element_target(args, self.session(ctx), "tap")

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        number = element_arg(args, self.name)
        if session.reader.current is None:
            await fresh_screen(session)
        try:
            el = resolve_element(session, number)
        except (StaleElement, UnknownElement) as exc:
            return stale_outcome(exc, session)
        stop, waited = await pace(session, ctx, self.page_kind, page_url(session))
        if stop is not None:
            return stop
        point = await box_centre(self, ctx, el)
        if point is None:
            await fresh_screen(session)
            return stale_outcome(ElementGone(number, session.reader.shown_version or 0), session)
        x, y = point
        await session.port.click(x, y)
        session.last_target = (self.name, x, y, el.label)
        return ToolOutcome(
            text=f"Tapped {element_name(el, page_url(session))}.", data={"point": [round(x), round(y)]}, wait_ms=waited
        )


class WebScroll(WebTool):
    name = "web_scroll"
    changes_page = True
    parameters = {
        "type": "object",
        "properties": {
            "direction": {"type": "string", "enum": ["down", "up"], "description": "Default down."},
            "pages": {"type": "number", "description": "How far, in screens; default 0.8."},
            "element": {"type": "integer", "description": "Scroll until this element is in view instead."},
        },
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        if args.get("element") is not None:
            try:
                el = resolve_element(session, int(args["element"]))
            except (StaleElement, UnknownElement) as exc:
                return stale_outcome(exc, session)
            if await box_centre(self, ctx, el) is None:
                await fresh_screen(session)
                return stale_outcome(ElementGone(int(args["element"]), session.reader.shown_version or 0), session)
            return ToolOutcome(text=f"Scrolled {element_name(el, page_url(session))} into view.")
        direction = str(args.get("direction") or "down")
        if direction not in ("down", "up"):
            raise BadArguments("web_scroll: direction is down or up.")
        share = max(0.1, min(float(args.get("pages") or SCROLL_SHARE), 10.0))
        read = session.reader.last
        height = read.viewport[1] if read is not None else session.options.viewport[1]
        dy = share * height * (1 if direction == "down" else -1)
        stop, waited = await pace(session, ctx, f"scroll_{direction}", page_url(session))
        if stop is not None:
            return stop
        if direction == "down":
            session.scrolled_at = session.port.data_responses()
        await session.port.scroll(0, dy)
        return ToolOutcome(text=f"Scrolled {direction} {share:g} screen(s).", wait_ms=waited)
