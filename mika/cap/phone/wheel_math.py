"""The pure arithmetic of turning a wheel picker: reading a shown value, comparing it with
the wanted one, which way and how far to turn, wrap-around, the column an item belongs
to, and how tall one row is. No device here; `tools/wheel.py` does the touching."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from mika.uistate.tree import Bounds, UiNode
from mika.uistate.wheel_shape import (
    MAX_ITEMS,
    MIN_ITEMS,
    PICKER_CLASSES,
    SHORT_VALUE,
    evenly_spaced,
    looks_like_wheel,
    node_label,
    text_items,
)

__all__ = [
    "Column",
    "WheelRead",
    "between",
    "column_of",
    "looks_like_wheel",
    "number_of",
    "plan_steps",
    "read_column",
    "row_height",
    "same_value",
    "value_part",
    "wraps",
]

# State words an accessibility name carries besides the value ("Selected, 21", "已选中，21").
_STATE_WORDS = re.compile(r"(?i)\b(?:not\s+)?selected\b|已选中|未选中|选中|已选择|checked")
_NUMBER = re.compile(r"\d+")
_SEGMENTS = re.compile(r"[\s,，、;；:：./\-|·]+")


def value_part(shown: str) -> str:
    """The value of a shown item without state words: "Selected, 21" → "21", "40分" stays."""
    text = _STATE_WORDS.sub(" ", shown or "")
    text = text.strip(" ,，、;；:：")
    return text.strip()


def number_of(shown: str) -> int | None:
    """The one number in a value ("09" → 9, "40分" → 40, "Selected, 21" → 21); None when
    the value holds no number or more than one ("2026-03-01")."""
    found = _NUMBER.findall(value_part(shown))
    return int(found[0]) if len(found) == 1 else None


def _segments(text: str) -> list[str]:
    return [s.casefold() for s in _SEGMENTS.split(value_part(text)) if s]


def same_value(shown: str, wanted: str) -> bool:
    """ "09" is "9", "40分" is "40", "Selected, 21" is "21"; words compare by their
    punctuation-separated parts ("March" matches "3月, March")."""
    a, b = number_of(shown), number_of(wanted)
    if a is not None and b is not None:
        return a == b
    sa, sb = _segments(shown), _segments(wanted)
    if not sa or not sb:
        return False
    return sa == sb or (len(sb) == 1 and sb[0] in sa) or (len(sa) == 1 and sa[0] in sb)


def between(above: int, below: int) -> int | None:
    """The value between two neighbours when a wheel reports only the rows around the
    middle: 39, 41 → 40; 59, 01 → 00; 23, 01 → 00; 11, 01 → 12 (a 12-hour wheel)."""
    if below - above == 2:
        return above + 1
    if above - below == 2:
        return above - 1
    if above > below + 2:  # wrapped between them
        if below == 1:
            return 12 if above == 11 else 0
        if below == 2:
            return 1
        if below == 0 and above >= 2:
            return above + 1
    return None


def wraps(values: list[int | None]) -> int | None:
    """The modulus when the values shown top to bottom wrap round (…58 59 00 01…): 60.
    None when no wrap shows."""
    nums = [v for v in values if v is not None]
    for a, b in itertools.pairwise(nums):
        if a > b and b <= 1 and a >= 9:
            # the highest value shown before the wrap is the last of the range
            return a + 1 if b == 0 else a
    return None


@dataclass(frozen=True)
class Column:
    """One wheel: the node it lives in and the horizontal span of its items."""

    node: UiNode
    left: int
    right: int

    @property
    def x(self) -> int:
        return (self.left + self.right) // 2


def _in_column(item: UiNode, left: int, right: int) -> bool:
    cx = item.bounds.centre[0]
    return left <= cx <= right


def column_items(col: Column) -> list[UiNode]:
    return [n for n in text_items(col.node) if _in_column(n, col.left, col.right)]


def _wheel_rows(node: UiNode, items: list[UiNode]) -> bool:
    """Items that can be a wheel's rows: 3–9 short values, evenly spaced, filling the node
    (a wheel near its end may show a few rows less). A page's list is not a wheel: its
    rows would be tapped or dragged as if they were values."""
    if not MIN_ITEMS <= len(items) <= MAX_ITEMS:
        return False
    if any(len(node_label(n)) > SHORT_VALUE for n in items):
        return False
    centres = [float(n.bounds.centre[1]) for n in items]
    if not evenly_spaced(centres):
        return False
    gap = (centres[-1] - centres[0]) / (len(centres) - 1)
    return node.bounds.height <= (len(items) + 3) * gap


def column_of(path: list[UiNode]) -> Column | None:
    """The wheel a given node belongs to. `path` runs from the root down to the node the
    model named. The node itself may be the wheel; else the nearest ancestor holding at
    least three evenly spaced text items horizontally lined up with it (so the minute
    wheel beside an hour wheel is neither read nor turned)."""
    if not path:
        return None
    own = path[-1]
    if looks_like_wheel(own) or _wheel_rows(own, column_items(Column(own, own.bounds.left, own.bounds.right))):
        return Column(own, own.bounds.left, own.bounds.right)
    left, right = own.bounds.left, own.bounds.right
    for anc in reversed(path[:-1]):
        if anc.class_name in PICKER_CLASSES:
            # a NumberPicker at its end shows only two rows; it is a wheel all the same
            return Column(anc, anc.bounds.left, anc.bounds.right)
        items = [
            n
            for n in text_items(anc)
            if _in_column(n, left, right) or n.bounds.left <= own.bounds.centre[0] <= n.bounds.right
        ]
        if _wheel_rows(anc, items):
            lo = min(n.bounds.left for n in items)
            hi = max(n.bounds.right for n in items)
            lo, hi = max(lo, anc.bounds.left), min(hi, anc.bounds.right)
            return Column(anc, lo, hi)
        if anc.bounds.height > 4 * max(own.bounds.height, 1) * 9:
            break  # a whole page: no wheel around this node
    return None


def row_height(items: list[UiNode]) -> float | None:
    """One row's height from the visible items' centres (the median gap)."""
    centres = sorted(n.bounds.centre[1] for n in items)
    gaps = sorted(b - a for a, b in itertools.pairwise(centres) if b > a)
    if not gaps:
        return None
    return float(gaps[len(gaps) // 2])


@dataclass(frozen=True)
class WheelRead:
    """What one read of a wheel showed."""

    value: str  # the selected item's value part; "" when unreadable
    shown: tuple[str, ...]  # every visible value, top to bottom
    index: int  # position of the selected one in `shown`, -1 when inferred/unknown
    row: float | None  # row height in pixels
    modulus: int | None  # wrap modulus when the shown values wrap
    centres: tuple[int, ...] = ()  # y of each shown item

    @property
    def number(self) -> int | None:
        return number_of(self.value)


def read_column(col: Column) -> WheelRead:
    """The selected value: the only item marked selected; else the item covering the
    wheel's middle line; else inferred from the two items around the middle
    (`between`); else the item nearest the middle."""
    items = column_items(col)
    shown = tuple(value_part(node_label(n)) for n in items)
    centres = tuple(n.bounds.centre[1] for n in items)
    row = row_height(items)
    modulus = wraps([number_of(s) for s in shown])
    if not items:
        return WheelRead("", (), -1, None, None)
    selected = [i for i, n in enumerate(items) if n.selected]
    mid = col.node.bounds.centre[1]
    index = -1
    if len(selected) == 1:
        index = selected[0]
    else:
        covering = [i for i, n in enumerate(items) if n.bounds.top <= mid < n.bounds.bottom]
        if len(covering) == 1:
            index = covering[0]
    if index >= 0:
        return WheelRead(shown[index], shown, index, row, modulus, centres)
    above = [i for i, c in enumerate(centres) if c < mid]
    below = [i for i, c in enumerate(centres) if c >= mid]
    if above and below:
        a, b = number_of(shown[above[-1]]), number_of(shown[below[0]])
        if a is not None and b is not None:
            mid_value = between(a, b)
            if mid_value is not None:
                width = max(len(shown[above[-1]]), len(shown[below[0]]))
                return WheelRead(str(mid_value).zfill(width), shown, -1, row, modulus, centres)
    nearest = min(range(len(items)), key=lambda i: abs(centres[i] - mid))
    return WheelRead(shown[nearest], shown, nearest, row, modulus, centres)


def plan_steps(current: int, target: int, modulus: int | None) -> int:
    """Signed rows to turn from `current` to `target`: + means towards bigger values. With
    a wrap known, the nearer way round."""
    diff = target - current
    if modulus:
        diff %= modulus
        if diff > modulus // 2:
            diff -= modulus
    return diff


def position_of(shown: tuple[str, ...], wanted: str) -> int | None:
    for i, s in enumerate(shown):
        if same_value(s, wanted):
            return i
    return None


def bounds_key(b: Bounds) -> tuple[int, int, int, int]:
    return (b.left, b.top, b.right, b.bottom)
