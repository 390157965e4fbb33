"""Does a listing hold every control the XML names? The listing's recall check.

A node is *owed* to the model when it is on the screen (visible to the user, its bounds
meeting the screen's frame), something can be done with it (clickable, long-clickable,
editable, scrollable or checkable) and the XML names it with a readable text or
content-desc (a password's text never counts: the listing never shows it). It is
*recalled* when an element line of the listing is labelled with one of its names,
quoted and cut the way the listing quotes and cuts labels.

Names are counted, not only found: two "OK" buttons need two lines that say "OK", so a
listing that merged or dropped one of them fails. The check reads the listing's text,
not the element objects, so whatever the listing's format saves, what the model reads
is what is checked. It shares with the listing only how a text is made one line
(`clean_label`, `shorten`), never which nodes are chosen.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

from mika.uistate.elements import clean_label, shorten
from mika.uistate.tree import Bounds, UiNode, UiTree

_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Owed:
    """A control the listing must show: the node and the names it may be shown by."""

    node: UiNode
    names: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.node.class_name} {self.names[0]!r} at {self.node.bounds}"


@dataclass(frozen=True)
class Recall:
    owed: tuple[Owed, ...]
    missed: tuple[Owed, ...]

    @property
    def ratio(self) -> float:
        return 1.0 if not self.owed else 1 - len(self.missed) / len(self.owed)


def owed_controls(tree: UiTree, frame: Bounds) -> tuple[Owed, ...]:
    out: list[Owed] = []
    for node in tree.nodes():
        if not (node.clickable or node.long_clickable or node.editable or node.scrollable or node.checkable):
            continue
        if not node.visible_to_user or node.bounds.empty or node.bounds.intersection(frame).empty:
            continue
        names = tuple(n for n in ("" if node.password else clean_label(node.text), clean_label(node.content_desc)) if n)
        if names:
            out.append(Owed(node, names))
    return tuple(out)


def listed_labels(listing: str) -> Counter[str]:
    """The quoted label of every element line (`N role "label" …`), counted."""
    labels: Counter[str] = Counter()
    for line in listing.splitlines():
        number, _, rest = line.partition(" ")
        if not number.isdigit():
            continue
        quote = rest.find('"')
        if quote < 0:
            continue
        try:
            label, _ = _DECODER.raw_decode(rest, quote)
        except json.JSONDecodeError:
            continue
        if isinstance(label, str):
            labels[label] += 1
    return labels


def listing_recall(tree: UiTree, frame: Bounds, listing: str) -> Recall:
    owed = owed_controls(tree, frame)
    left = listed_labels(listing)
    missed: list[Owed] = []
    for item in owed:
        shown = next((shorten(n) for n in item.names if left[shorten(n)] > 0), None)
        if shown is None:
            missed.append(item)
        else:
            left[shown] -= 1
    return Recall(owed, tuple(missed))
