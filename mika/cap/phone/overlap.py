"""Reading a long list screen by screen: the rows of one screen, and merging screens by overlap.

A row is one child of the list, identified by its whole content in order (every id and
text under it: sender, time, text, day header), never by its text alone: two people
may both write "收到" in the same minute, and a merge by text would drop one of them.
Screens overlap because a scroll moves less than a screen; the new screen's rows are
aligned with the end of what is collected that they should repeat.
"""

from __future__ import annotations

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


def list_node(screen: Screen) -> UiNode | None:
    """The list to read: the biggest scrollable node on screen."""
    lists = [e for e in screen.elements if e.node.scrollable]
    if not lists:
        return None
    return max(lists, key=lambda e: e.bounds.area).node


def _fields(node: UiNode, skip: frozenset[int] | set[int] = frozenset()) -> tuple[tuple[str, str], ...]:
    out = []
    for n in node.walk():
        if not n.visible_to_user or n.order in skip:
            continue
        for value in (n.safe_text, n.content_desc):
            if value and value.strip():
                out.append((n.short_id, value.strip()))
    return tuple(out)


def rows_of(lst: UiNode, *, horizontal: bool = False, skip: frozenset[int] | set[int] = frozenset()) -> list[Row]:
    """The list's rows in screen order. A row's text is read whole even when the row is
    cut by the list's edge: a clipped view still holds all its text."""
    kids = sorted(
        lst.children, key=lambda n: (n.bounds.left, n.bounds.top) if horizontal else (n.bounds.top, n.bounds.left)
    )
    mid = (lst.bounds.left + lst.bounds.right) / 2
    rows = [Row(_fields(k, skip), outgoing=not horizontal and _right_side(k, mid)) for k in kids]
    return [r for r in rows if r.fields]


def _right_side(row: UiNode, mid: float) -> bool:
    """True when everything the row shows starts right of the middle (an outgoing bubble)."""
    shown = [n for n in row.walk() if (n.safe_text or n.content_desc) and n.bounds.right > n.bounds.left]
    return bool(shown) and all(n.bounds.left > mid for n in shown if "day" not in n.short_id.casefold())


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
