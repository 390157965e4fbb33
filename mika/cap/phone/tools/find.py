"""phone_find: scroll a list to find an element by text, description or resource id."""

from __future__ import annotations

from typing import Any

from mika.cap.phone.list_scroll import loading, scroll_and_read, settled_load
from mika.cap.phone.tools.base import PhoneTool, current_screen
from mika.cap.phone.tools.touch import DIRECTIONS, scroll_area, scroll_gesture
from mika.observe.untrusted import defuse, fence
from mika.tool.context import ToolContext
from mika.tool.declaration import ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import Element, Screen
from mika.uistate.tree import UiNode

MAX_SCROLLS = 10
SCROLLS_CAP = 30
# Each scroll is waited out and the end proved as mika.cap.phone.list_scroll says.
BY = ("any", "text", "desc", "id")
MATCH = ("contains", "exact")


def _values(node: UiNode, by: str) -> list[str]:
    vals = {
        "text": [node.safe_text],
        "desc": [node.content_desc],
        "id": [node.resource_id, node.short_id],
    }
    if by == "any":
        return [v for vs in vals.values() for v in vs if v]
    return [v for v in vals[by] if v]


def _hits(value: str, wanted: str, match: str) -> bool:
    v, w = value.strip().casefold(), wanted.strip().casefold()
    return v == w if match == "exact" else w in v


def find_on(screen: Screen, wanted: str, by: str, match: str) -> tuple[UiNode, Element | None] | None:
    """The first node (top to bottom) that matches, and the listed element to act on it by."""
    found = [
        n
        for n in screen.tree.nodes()
        if n.visible_to_user
        and n.bounds.right > n.bounds.left
        and n.bounds.bottom > n.bounds.top
        and any(_hits(v, wanted, match) for v in _values(n, by))
    ]
    if not found:
        return None
    node = min(found, key=lambda n: (n.bounds.top, n.bounds.left))
    own = next((e for e in screen.elements if e.node is node), None)
    return node, own or screen.element_at(*node.bounds.centre)


class PhoneFind(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_find"
    sandbox_callable = True
    batchable = True
    # It scrolls: through the action entry, as phone_scroll.
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "target": {"type": "string", "description": "The text, description or resource id to find."},
            "by": {"type": "string", "enum": list(BY), "description": "What to match; default any of them."},
            "match": {"type": "string", "enum": list(MATCH), "description": "contains (default) or exact."},
            "direction": {"type": "string", "enum": DIRECTIONS, "description": "Which way to scroll; default down."},
            "max_scrolls": {"type": "integer", "description": f"Scrolls at most; default {MAX_SCROLLS}."},
        },
        "required": ["target"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        wanted = str(args.get("target") or "").strip()
        if not wanted:
            raise BadArguments("phone_find: target is empty; give the text, description or resource id to find.")
        by = args.get("by") or "any"
        if by not in BY:
            raise BadArguments(f"phone_find: by must be one of {', '.join(BY)} (got {by!r}).")
        match = args.get("match") or "contains"
        if match not in MATCH:
            raise BadArguments(f"phone_find: match must be contains or exact (got {match!r}).")
        direction = args.get("direction") or "down"
        if direction not in DIRECTIONS:
            raise BadArguments(f"phone_find: direction must be one of {', '.join(DIRECTIONS)} (got {direction!r}).")
        raw = args.get("max_scrolls")
        try:
            limit = MAX_SCROLLS if raw is None else int(raw)
        except (TypeError, ValueError):
            raise BadArguments(f"phone_find: max_scrolls must be a whole number (got {raw!r}).") from None
        if limit < 0:
            raise BadArguments(f"phone_find: max_scrolls must be 0 or more (got {limit}).")
        limit = min(limit, SCROLLS_CAP)
        session = self.session(ctx)
        screen = await current_screen(session)
        if loading(screen):
            screen = await settled_load(session, screen)
        scrolls = 0
        while True:
            hit = find_on(screen, wanted, by, match)
            if hit is not None:
                return _found(screen, hit, wanted, scrolls)
            if scrolls >= limit:
                return _missing(wanted, scrolls, "the scroll budget (max_scrolls) ran out; the list may go on")
            scrolled = await scroll_and_read(
                session, screen, lambda s: scroll_gesture(scroll_area(s, None), direction, 0.8), 400
            )
            scrolls += scrolled.swipes
            screen = scrolled.screen
            if not scrolled.moved:
                return _missing(
                    wanted,
                    scrolls,
                    f"the end of the list was reached (the last {scrolled.swipes} scrolls {direction}, "
                    "each waited out, changed nothing)",
                    end=True,
                )


def _found(screen: Screen, hit: tuple[UiNode, Element | None], wanted: str, scrolls: int) -> ToolOutcome:
    node, el = hit
    shown = node.safe_text or node.content_desc or node.short_id
    where = (
        f"element {el.number} ({el.role})" if el is not None else f"at {node.bounds.centre[0]},{node.bounds.centre[1]}"
    )
    quoted = fence(shown[:120], {"source": "screen", "app": screen.foreground_package}, block=False)
    return ToolOutcome(
        text=f"Found {defuse(wanted)!r} after {scrolls} scroll(s): {quoted}, {where} on screen v{screen.version}.",
        data={"scrolls": scrolls, "element": el.number if el is not None else None, "point": list(node.bounds.centre)},
    )


def _missing(wanted: str, scrolls: int, why: str, *, end: bool = False) -> ToolOutcome:
    return ToolOutcome(
        text=f"{defuse(wanted)!r} was not found after {scrolls} scroll(s): {why}.",
        ok=False,
        code="not_found",
        data={"scrolls": scrolls, "end": end},
    )
