"""Reading a long list screen by screen: the rows of one screen, and merging screens by overlap.

A row is one child of the list, identified by its whole content in order (every id and
text under it: sender, time, text, day header), never by its text alone: two people
may both write "收到" in the same minute, and a merge by text would drop one of them.
Screens overlap because a scroll moves less than a screen; the new screen's rows are
aligned with the end of what is collected that they should repeat.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from mika.uistate import Screen
from mika.uistate.tree import UiNode

# Words in a resource id that say what a field of a row is (chat apps name them so).
_DAY = ("day", "date", "header", "divider")
_TIME = ("time", "clock")
_SENDER = ("sender", "nick", "author", "from", "user_name", "username")


@dataclass(frozen=True)
class Row:
    fields: tuple[tuple[str, str], ...]  # (short resource id, text or description) in tree order
    # A chat bubble on the right-hand side of the list: the phone owner's own message.
    outgoing: bool = False

    @property
    def key(self) -> tuple[object, ...]:
        return (self.fields, self.outgoing)

    def part(self, words: tuple[str, ...]) -> str:
        for rid, text in self.fields:
            if any(w in rid.casefold() for w in words):
                return text
        return ""

    @property
    def day(self) -> str:
        return self.part(_DAY)

    @property
    def time(self) -> str:
        return self.part(_TIME)

    @property
    def sender(self) -> str:
        return self.part(_SENDER)

    @property
    def body(self) -> str:
        """The row's text without its sender, time and day fields."""
        skip = {self.day, self.time, self.sender} - {""}
        out, used = [], set()
        for rid, text in self.fields:
            low = rid.casefold()
            if any(w in low for w in _DAY + _TIME + _SENDER) and text in skip and text not in used:
                used.add(text)
                continue
            out.append(text)
        return "\n".join(out)


def list_node(screen: Screen, *, horizontal: bool = False) -> UiNode | None:
    """The list to read: the biggest scrollable node laid out along the way of reading
    (a carousel for left/right, a column of rows for up/down), else the biggest one."""
    lists = [e.node for e in screen.elements if e.node.scrollable]
    if not lists:
        return None
    along = [n for n in lists if _side_by_side(n) is horizontal]
    return max(along or lists, key=lambda n: n.bounds.area)


def _side_by_side(lst: UiNode) -> bool:
    """True when the list's children stand in a row (a carousel), not in a column."""
    kids = [k for k in lst.children if k.bounds.area > 0]
    if len(kids) < 2:
        return lst.bounds.width > 2 * lst.bounds.height  # a strip much wider than tall
    pairs = list(itertools.pairwise(kids))
    beside = sum(1 for a, b in pairs if a.bounds.top < b.bounds.bottom and b.bounds.top < a.bounds.bottom)
    return beside * 2 > len(pairs)


def _fields(node: UiNode, skip: frozenset[int] | set[int] = frozenset()) -> tuple[tuple[str, str], ...]:
    out = []
    for n in node.walk():
        if not n.visible_to_user or n.order in skip:
            continue
        for value in (n.safe_text, n.content_desc):
            if value and value.strip():
                out.append((n.short_id, value.strip()))
    return tuple(out)


def rows_of(
    lst: UiNode, *, horizontal: bool = False, skip: frozenset[int] | set[int] = frozenset(), keep_empty: bool = False
) -> list[Row]:
    """The list's rows in screen order (rows with nothing readable left out unless `keep_empty`)."""
    mid = (lst.bounds.left + lst.bounds.right) / 2
    kids = _sorted_kids(lst, horizontal)
    rows = [Row(_fields(k, skip), outgoing=not horizontal and _right_side(k, mid)) for k in kids]
    return rows if keep_empty else [r for r in rows if r.fields]


def _sorted_kids(lst: UiNode, horizontal: bool) -> list[UiNode]:
    """The list's rows in screen order, without what is not a row of its own: a pinned
    section header drawn over the rows (it repeats a header the rows already carry, and
    changes as they pass under it) and a "Loading more" footer (a spinner, not content)."""
    over = _overlays(lst)
    kids = [k for k in lst.children if k.order not in over and not _is_loader(k)]
    return sorted(kids, key=lambda n: (n.bounds.left, n.bounds.top) if horizontal else (n.bounds.top, n.bounds.left))


def _overlays(lst: UiNode) -> set[int]:
    """Children drawn over an earlier sibling (they overlap it and come later in the
    tree): a list's rows never overlap each other, a pinned header does."""
    out: set[int] = set()
    kids = [k for k in lst.children if k.bounds.area > 0]
    for i, k in enumerate(kids):
        for j in kids[:i]:
            if k.bounds.intersection(j.bounds).area > 0:
                out.add(k.order)
                break
    return out


def _is_loader(node: UiNode) -> bool:
    return any("progressbar" in n.class_name.casefold() for n in node.walk())


# What apps write at the very end of a list: the app says it has nothing more to show.
_END_WORDS = (
    "no more",
    "nothing more",
    "end of the list",
    "you're all caught up",
    "you’re all caught up",
    "that's all",
    "没有更多",
    "到底了",
    "已经到底",
    "已显示全部",
    "沒有更多",
)


def says_end(row: Row) -> bool:
    """A row that is the app's own "no more" footer, not an item."""
    text = " ".join(t for _, t in row.fields).casefold()
    return len(text) <= 60 and any(w in text for w in _END_WORDS)


@dataclass(frozen=True)
class ScreenRow:
    row: Row
    at_start: bool  # touches the list's top (left) edge: maybe cut off there
    at_end: bool  # touches its bottom (right) edge


def screen_rows(
    lst: UiNode, *, horizontal: bool = False, skip: frozenset[int] | set[int] = frozenset()
) -> list[ScreenRow]:
    """The rows with whether each touches an edge of the list. A row cut by the edge may
    lack the part outside (dumps leave out views that are not on screen), so it reads
    differently from the same row seen whole: merging uses it only where the list is
    flush (at its end)."""
    b = lst.bounds
    rows = rows_of(lst, horizontal=horizontal, skip=skip, keep_empty=True)
    kids = _sorted_kids(lst, horizontal)
    whole = _uniform_size(kids, horizontal)
    out = []
    for node, row in zip(kids, rows, strict=True):
        if not row.fields:
            continue
        nb = node.bounds
        if whole and (nb.width if horizontal else nb.height) == whole:
            # Flush with the edge but as big as every other row of a list of equal rows:
            # whole, not cut (a carousel scrolled by exactly a card, a list by a row).
            out.append(ScreenRow(row, False, False))
        elif horizontal:
            out.append(ScreenRow(row, nb.left <= b.left, nb.right >= b.right))
        else:
            out.append(ScreenRow(row, nb.top <= b.top, nb.bottom >= b.bottom))
    return out


def _uniform_size(kids: list[UiNode], horizontal: bool) -> int:
    """The one size every row away from the edges has, when there are at least two such
    rows and all agree; else 0 (rows of many sizes: an edge row can't be told whole)."""
    inner = kids[1:-1]
    sizes = {k.bounds.width if horizontal else k.bounds.height for k in inner}
    return sizes.pop() if len(inner) >= 2 and len(sizes) == 1 else 0


def usable(rows: list[ScreenRow], toward_start: bool, *, leading: bool, trailing: bool) -> list[Row]:
    """The rows of a screen fit to merge: the edge row the scroll moves toward (leading)
    and the one it comes from (trailing) only when told (the list is flush there)."""
    out = []
    for r in rows:
        lead, trail = (r.at_start, r.at_end) if toward_start else (r.at_end, r.at_start)
        if (lead and not leading) or (trail and not trailing):
            continue
        out.append(r.row)
    return out


def _right_side(row: UiNode, mid: float) -> bool:
    """True when what the row shows hugs the right-hand side (an outgoing chat bubble):
    more room on its left than on its right. Day headers (centred) don't count."""
    shown = [
        n
        for n in row.walk()
        if (n.safe_text or n.content_desc) and n.bounds.right > n.bounds.left and "day" not in n.short_id.casefold()
    ]
    if not shown:
        return False
    left = min(n.bounds.left for n in shown)
    right = max(n.bounds.right for n in shown)
    half = mid - row.bounds.left
    return (left - row.bounds.left) - (row.bounds.right - right) > 0.1 * half


@dataclass
class Merge:
    rows: list[Row] = field(default_factory=list)  # in list order (top to bottom)
    gaps: int = 0  # screens that shared no row with what came before: rows may be missing there

    def add(self, screen_rows: list[Row], toward_start: bool) -> int:
        """Adds a new screen's rows; `toward_start` when the scroll showed what is above
        (or left). Returns how many rows were new."""
        if not self.rows:
            self.rows = list(screen_rows)
            return len(screen_rows)
        k = overlap(self.rows, screen_rows, toward_start)
        if k == 0:
            self.gaps += 1
        fresh = screen_rows[: len(screen_rows) - k] if toward_start else screen_rows[k:]
        self.rows = fresh + self.rows if toward_start else self.rows + fresh
        return len(fresh)


def overlap(collected: list[Row], screen: list[Row], toward_start: bool) -> int:
    """The longest run of rows the new screen repeats from the collected end it meets.

    Scrolling toward the start, the screen's last rows repeat the collected first rows;
    toward the end, its first rows repeat the collected last ones."""
    keys = [r.key for r in collected]
    new = [r.key for r in screen]
    for k in range(min(len(keys), len(new)), 0, -1):
        if toward_start and new[-k:] == keys[:k]:
            return k
        if not toward_start and new[:k] == keys[-k:]:
            return k
    return 0


def structured(rows: list[Row]) -> list[dict[str, object]]:
    """Rows as data for the run record: a day header carries to the rows after it."""
    out: list[dict[str, object]] = []
    day = ""
    for i, r in enumerate(rows):
        day = r.day or day
        out.append(
            {
                "index": i + 1,
                "day": day,
                "time": r.time,
                "sender": r.sender,
                "outgoing": r.outgoing,
                "text": r.body,
                "fields": [list(f) for f in r.fields],
            }
        )
    return out


def row_line(row: dict[str, object]) -> str:
    """One compact line for the model: `[day time] sender: text`."""
    when = " ".join(str(row[k]) for k in ("day", "time") if row[k])
    who = f"{row['sender']}: " if row["sender"] else ("(me): " if row.get("outgoing") else "")
    text = str(row["text"]).replace("\n", " / ")
    return f"{row['index']}. " + (f"[{when}] " if when else "") + who + text
