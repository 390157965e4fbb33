"""phone_collect: read a long list or chat screen by screen and merge the screens by overlap."""

from __future__ import annotations

from typing import Any

from mika.cap.phone.overlap import Merge, list_node, row_line, screen_rows, structured, usable
from mika.cap.phone.secret_fields import secret_nodes
from mika.cap.phone.session import PhoneSession
from mika.cap.phone.tools.base import PhoneTool, current_screen
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import Screen
from mika.uistate.adequacy import UNUSABLE, TreeAdequacy

MAX_SCREENS = 30
SCREENS_CAP = 100
MAX_ITEMS = 1000
TEXT_MAX = 16000  # characters of rows in the text; the rest stay in the call's data
DIRECTIONS = ("up", "down", "left", "right")
# Share of the list one scroll moves: less than a screen so screens overlap, and slow
# enough (ms) that the list follows the finger instead of flinging past rows.
SPAN = 0.7
SWIPE_MS = 500


def collect_gesture(box: tuple[int, int, int, int], direction: str) -> tuple[int, int, int, int]:
    """Finger path that shows what is further <direction> by SPAN of the list."""
    left, top, right, bottom = box
    cx, cy = (left + right) // 2, (top + bottom) // 2
    dy, dx = int((bottom - top) * SPAN / 2), int((right - left) * SPAN / 2)
    return {
        "up": (cx, cy - dy, cx, cy + dy),
        "down": (cx, cy + dy, cx, cy - dy),
        "left": (cx - dx, cy, cx + dx, cy),
        "right": (cx + dx, cy, cx - dx, cy),
    }[direction]


def _int_arg(args: dict[str, Any], name: str, default: int, cap: int) -> int:
    raw = args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise BadArguments(f"phone_collect: {name} must be a whole number (got {raw!r}).") from None
    if value < 1:
        raise BadArguments(f"phone_collect: {name} must be at least 1 (got {value}).")
    return min(value, cap)


class PhoneCollect(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_collect"
    # It scrolls: it goes through the action entry like phone_scroll, so pacing and the
    # record see each call.
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "direction": {
                "type": "string",
                "enum": list(DIRECTIONS),
                "description": "Which way to read: up for older chat messages (the default), down for the rest of a list.",
            },
            "max_screens": {"type": "integer", "description": f"Screens to read at most; default {MAX_SCREENS}."},
            "max_items": {"type": "integer", "description": f"Rows to collect at most; default {MAX_ITEMS}."},
            "until": {"type": "string", "description": "Stop once a row containing this text is read."},
        },
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        direction = args.get("direction") or "up"
        if direction not in DIRECTIONS:
            raise BadArguments(f"phone_collect: direction must be one of {', '.join(DIRECTIONS)} (got {direction!r}).")
        max_screens = _int_arg(args, "max_screens", MAX_SCREENS, SCREENS_CAP)
        max_items = _int_arg(args, "max_items", MAX_ITEMS, MAX_ITEMS)
        until = str(args.get("until") or "").strip()
        session = self.session(ctx)
        screen = await current_screen(session)
        lst = list_node(screen)
        if lst is None:
            return _no_list(screen)
        horizontal = direction in ("left", "right")
        toward_start = direction in ("up", "left")
        merge = Merge()
        seen = screen_rows(lst, horizontal=horizontal, skip=secret_nodes(screen.tree))
        # where it starts, the rows behind are as good as any; the edge ahead may be cut off
        merge.add(usable(seen, toward_start, leading=False, trailing=True), toward_start)
        screens, stop = 1, ""
        while not stop:
            if until and _has(merge.rows, until):
                stop = "until"
                break
            if len(merge.rows) >= max_items:
                stop = "max_items"
                break
            if screens >= max_screens:
                stop = "max_screens"
                break
            b = lst.bounds
            path = collect_gesture((b.left, b.top, b.right, b.bottom), direction)
            await session.port.swipe(session.display, *path, SWIPE_MS)
            screen = await session.reader.read()
            screens += 1
            lst = list_node(screen)
            if lst is None:
                stop = "lost_list"
                break
            rows = screen_rows(lst, horizontal=horizontal, skip=secret_nodes(screen.tree))
            if [r.row.key for r in rows] == [r.row.key for r in seen]:
                # the end: the list is flush there, so the row at its edge is whole now
                merge.add(usable(rows, toward_start, leading=True, trailing=False), toward_start)
                stop = "end"
                break
            seen = rows
            merge.add(usable(rows, toward_start, leading=False, trailing=False), toward_start)
        return _outcome(session, screen, merge, stop, screens, direction, until, max_items)


def _has(rows: list[Any], until: str) -> bool:
    u = until.casefold()
    return any(u in text.casefold() for r in rows for _, text in r.fields)


_STOPS = {
    "end": "reached the end of the list (a scroll changed nothing)",
    "until": "reached a row containing {until!r}",
    "max_items": "stopped at the item budget ({max_items} rows)",
    "max_screens": "stopped at the screen budget ({screens} screens); there may be more",
    "lost_list": "the list went away after a scroll (another screen came up)",
}


def _outcome(
    session: PhoneSession,
    screen: Screen,
    merge: Merge,
    stop: str,
    screens: int,
    direction: str,
    until: str,
    max_items: int,
) -> ToolOutcome:
    rows = merge.rows
    if len(rows) > max_items:
        # keep the rows read first: the ones nearest where the collecting started
        rows = rows[-max_items:] if direction in ("up", "left") else rows[:max_items]
    data_rows = structured(rows)
    lines, used, shown = [], 0, 0
    for row in data_rows:
        line = row_line(row)
        if used + len(line) > TEXT_MAX:
            break
        lines.append(line)
        used += len(line) + 1
        shown += 1
    why = _STOPS[stop].format(until=until, max_items=max_items, screens=screens)
    head = f"Collected {len(data_rows)} rows from {screens} screen(s), oldest first; {why}."
    notes = []
    adequacy = TreeAdequacy.assess(screen)
    if adequacy.blind:
        notes.append(
            "The screen's tree does not see all of it (" + "; ".join(adequacy.reasons) + "): rows drawn only "
            "in pixels are not in this result."
        )
    if merge.gaps:
        notes.append(f"{merge.gaps} screen(s) shared no row with the one before: rows may be missing there.")
    if shown < len(data_rows):
        notes.append(
            f"Showing {shown} of {len(data_rows)} rows; every row is kept in the run record with this call's result; collect again with until= or a smaller budget to read a part."
        )
    body = fence("\n".join(lines), {"source": "screen", "app": screen.foreground_package}) if lines else "(no rows)"
    text = "\n".join([head, body, *notes])
    return ToolOutcome(
        text=text,
        ok=stop != "lost_list",
        code="done" if stop != "lost_list" else "list_lost",
        data={"rows": data_rows, "stop": stop, "screens": screens, "gaps": merge.gaps, "direction": direction},
    )


def _no_list(screen: Screen) -> ToolOutcome:
    adequacy = TreeAdequacy.assess(screen)
    if screen.tree_blind or not screen.elements or adequacy.level == UNUSABLE or adequacy.reasons:
        return ToolOutcome.error(
            "unreadable",
            "phone_collect: this screen can't be read (a secure window or one drawn only in pixels); "
            "nothing was collected. Use phone_observe to see what it shows.",
        )
    return ToolOutcome.error(
        "no_list",
        "phone_collect: there is no scrollable list on this screen to collect; "
        "open the list or chat first, or use phone_extract for what is visible.",
    )
