"""phone_collect: read a long list or chat screen by screen and merge the screens by overlap."""

from __future__ import annotations

import time
from typing import Any

from mika.cap.phone.list_scroll import loading, scroll_and_read, settled_load
from mika.cap.phone.overlap import (
    Merge,
    Row,
    ScreenRow,
    list_node,
    row_line,
    says_end,
    screen_rows,
    structured,
    usable,
)
from mika.cap.phone.secret_fields import secret_nodes
from mika.cap.phone.session import PhoneSession
from mika.cap.phone.tools.base import PhoneTool, current_screen
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import Screen
from mika.uistate.adequacy import UNUSABLE, TreeAdequacy
from mika.uistate.tree import UiNode

MAX_SCREENS = 30
SCREENS_CAP = 100
MAX_ITEMS = 1000
MAX_S = 240.0  # a read that has gone on this long stops and says how far it got
TEXT_MAX = 16000  # characters of rows in the text; the rest stay in the call's data
DIRECTIONS = ("up", "down", "left", "right")
# Share of the list one scroll moves: less than a screen so screens overlap, and slow
# enough (ms) that the list follows the finger instead of flinging past rows.
SPAN = 0.7
SWIPE_MS = 500


def collect_gesture(box: tuple[int, int, int, int], direction: str, row: int = 0) -> tuple[int, int, int, int]:
    """Finger path that shows what is further <direction> by SPAN of the list — or less
    when its rows are big next to it (a carousel of three cards): the rows cut at both
    edges don't count, so a move of more than the list less two rows would leave the next
    screen sharing no whole row with this one."""
    left, top, right, bottom = box
    cx, cy = (left + right) // 2, (top + bottom) // 2

    def span(size: int) -> int:
        move = size * SPAN
        if row and size - 2 * row >= row // 2:
            move = min(move, size - 2 * row)
        return int(move / 2)

    dy, dx = span(bottom - top), span(right - left)
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
    clock = staticmethod(time.monotonic)
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
        horizontal = direction in ("left", "right")
        lst = list_node(screen, horizontal=horizontal)
        if lst is None and loading(screen):
            screen = await settled_load(session, screen, self.clock)
            lst = list_node(screen, horizontal=horizontal)
        if lst is None:
            return _no_list(screen)
        toward_start = direction in ("up", "left")
        merge = Merge()
        seen = screen_rows(lst, horizontal=horizontal, skip=secret_nodes(screen.tree))
        # where it starts, the rows behind are as good as any; the edge ahead may be cut off
        merge.add(_content(usable(seen, toward_start, leading=False, trailing=True)), toward_start)
        screens, stop = 1, ""
        started = self.clock()
        if _shows_end(seen):
            merge.add(_content(usable(seen, toward_start, leading=True, trailing=True)), toward_start)
            stop = "app_end"
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
            if self.clock() - started >= MAX_S:
                stop = "time"
                break

            def path(s: Screen, start: UiNode = lst) -> tuple[int, int, int, int]:
                node = list_node(s, horizontal=horizontal) or start
                b = node.bounds
                return collect_gesture((b.left, b.top, b.right, b.bottom), direction, _row_size(node, horizontal))

            scrolled = await scroll_and_read(
                session, screen, path, SWIPE_MS, key=lambda s: _rows_key(s, horizontal), clock=self.clock
            )
            screen = scrolled.screen
            screens += 1
            found = list_node(screen, horizontal=horizontal)
            if found is None:
                stop = "lost_list"
                break
            lst = found
            rows = screen_rows(lst, horizontal=horizontal, skip=secret_nodes(screen.tree))
            if not scrolled.moved or _shows_end(rows):
                # the end: the list is flush there, so the row at its edge is whole now
                merge.add(_content(usable(rows, toward_start, leading=True, trailing=False)), toward_start)
                stop = "end" if not scrolled.moved else "app_end"
                break
            seen = rows
            merge.add(_content(usable(rows, toward_start, leading=False, trailing=False)), toward_start)
        seconds = round(self.clock() - started)
        return _outcome(session, screen, merge, stop, screens, direction, until, max_items, seconds)


def _row_size(lst: UiNode, horizontal: bool) -> int:
    """The biggest row of the list along the way of reading (px)."""
    sizes = [k.bounds.width if horizontal else k.bounds.height for k in lst.children]
    return max(sizes, default=0)


def _rows_key(screen: Screen, horizontal: bool) -> object:
    """What says the list moved: its rows, not the rest of the screen (a status bar clock)."""
    lst = list_node(screen, horizontal=horizontal)
    if lst is None:
        return None
    return tuple(r.row.key for r in screen_rows(lst, horizontal=horizontal, skip=secret_nodes(screen.tree)))


def _shows_end(rows: list[ScreenRow]) -> bool:
    return any(says_end(r.row) for r in rows)


def _content(rows: list[Row]) -> list[Row]:
    """The rows without the app's own "no more" footer."""
    return [r for r in rows if not says_end(r)]


def _has(rows: list[Any], until: str) -> bool:
    u = until.casefold()
    return any(u in text.casefold() for r in rows for _, text in r.fields)


_STOPS = {
    "end": "reached the end of the list (two scrolls, each waited out, moved nothing more)",
    "app_end": "reached the end of the list (the app says there is no more)",
    "until": "reached a row containing {until!r}",
    "max_items": "stopped at the item budget ({max_items} rows) before the end; the list may go on",
    "max_screens": "stopped at the screen budget ({screens} screens) before the end; the list may go on",
    "time": "stopped after {seconds} s of reading, before the end; the list may go on",
    "lost_list": "the list went away after a scroll (another screen came up) before its end",
}
# Stops that read the list to where it was asked to go; every other stop is early.
COMPLETE = ("end", "app_end", "until")


def _outcome(
    session: PhoneSession,
    screen: Screen,
    merge: Merge,
    stop: str,
    screens: int,
    direction: str,
    until: str,
    max_items: int,
    seconds: int = 0,
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
    why = _STOPS[stop].format(until=until, max_items=max_items, screens=screens, seconds=seconds)
    order = "oldest first" if direction == "up" else "in list order"
    head = f"Collected {len(data_rows)} rows from {screens} screen(s), {order}; {why}."
    notes = []
    complete = stop in COMPLETE
    if not complete and data_rows:
        # How far it got, so the model can go on from there instead of reading it all again.
        far = data_rows[0] if direction in ("up", "left") else data_rows[-1]
        said = fence(row_line(far)[:160], {"source": "screen", "app": screen.foreground_package}, block=False)
        notes.append(
            f"Got as far as {said}; phone_collect direction={direction} again reads on from the screen as it is now."
        )
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
        data={
            "rows": data_rows,
            "stop": stop,
            "complete": complete,
            "screens": screens,
            "gaps": merge.gaps,
            "direction": direction,
        },
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
