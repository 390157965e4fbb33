"""Does a node look like a wheel picker (time, date, region)? Used by the listing to mark
`wheel` and by phone_set_wheel to find the column it turns.

It lives in the core, not in the phone capability, because the listing marks it; the
rule errs towards missing a wheel rather than marking an ordinary list: a platform
NumberPicker, or a scrollable whose 3–9 short text items sit evenly spaced in one column
across its middle.
"""

from __future__ import annotations

import itertools

from mika.uistate.tree import UiNode

PICKER_CLASSES = ("android.widget.NumberPicker",)
SHORT_VALUE = 12  # characters: "09", "Mar", "2026年", "星期三"
MIN_ITEMS = 3
MAX_ITEMS = 9
SPACING_TOLERANCE = 0.25  # share of the mean gap a gap may differ by


def node_label(node: UiNode) -> str:
    return (node.text or node.content_desc or "").strip()


def text_items(node: UiNode) -> list[UiNode]:
    """The innermost nodes under `node` (itself excluded) that show a text, top to bottom."""
    out = [
        n
        for n in node.walk()
        if n is not node and node_label(n) and not any(node_label(c) for c in n.children) and not n.bounds.empty
    ]
    return sorted(out, key=lambda n: n.bounds.centre[1])


def evenly_spaced(centres: list[float]) -> bool:
    if len(centres) < 2:
        return False
    gaps = [b - a for a, b in itertools.pairwise(centres)]
    mean = sum(gaps) / len(gaps)
    if mean <= 0:
        return False
    return all(abs(g - mean) <= SPACING_TOLERANCE * mean for g in gaps)


def looks_like_wheel(node: UiNode) -> bool:
    if node.class_name in PICKER_CLASSES:
        return True
    if not node.scrollable:
        return False
    items = text_items(node)
    if not MIN_ITEMS <= len(items) <= MAX_ITEMS:
        return False
    if any(len(node_label(n)) > SHORT_VALUE or node.password for n in items):
        return False
    cx = node.bounds.centre[0]
    # one column across the node's middle: every item straddles its horizontal centre
    if not all(n.bounds.left <= cx <= n.bounds.right for n in items):
        return False
    centres = [float(n.bounds.centre[1]) for n in items]
    if not evenly_spaced(centres):
        return False
    # the rows fill the strip (a wheel shows no empty space below its last row)
    gap = (centres[-1] - centres[0]) / (len(centres) - 1)
    if gap * len(items) < 0.7 * node.bounds.height:
        return False
    # a wheel of words ("Mar", "星期三") is told from a short menu only by being a narrow
    # column; a wheel of numbers is told by them
    numeric = sum(1 for n in items if any(ch.isdigit() for ch in node_label(n)))
    return numeric * 2 > len(items) or node.bounds.width <= node.bounds.height
