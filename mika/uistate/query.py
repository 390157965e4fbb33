"""Searching the full tree (not just the listing) by text, resource-id or class.

This is what `phone_query` reads: it sees nodes the listing folds away (texts inside a
row, off-screen items of a list), and says for each hit which listed element, if any,
would act on it — the element itself or the nearest listed ancestor.
"""

from __future__ import annotations

from dataclasses import dataclass

from mika.uistate.elements import clean_label
from mika.uistate.screen import Screen
from mika.uistate.tree import UiNode


@dataclass(frozen=True)
class QueryHit:
    node: UiNode
    text: str  # the node's safe text or description, cleaned
    element: int | None  # number of the listed element that acts on it, if any

    def as_dict(self) -> dict[str, object]:
        n = self.node
        return {
            "text": self.text,
            "class": n.class_name,
            "resource_id": n.resource_id,
            "bounds": n.bounds.as_list(),
            "visible": n.visible_to_user,
            "element": self.element,
        }


class QueryError(ValueError):
    def __init__(self) -> None:
        super().__init__("Give at least one of text, resource_id or class_name to search the screen for.")


def _matches(value: str, wanted: str, exact: bool) -> bool:
    if not value:
        return False
    if exact:
        return value == wanted
    return wanted.casefold() in value.casefold()


def find_nodes(
    screen: Screen,
    *,
    text: str | None = None,
    resource_id: str | None = None,
    class_name: str | None = None,
    exact: bool = False,
    limit: int = 50,
) -> tuple[QueryHit, ...]:
    """Nodes matching every given criterion, in tree order.

    `text` matches the text or the content-desc (never a password's text);
    `resource_id` matches the full id or its short form after `:id/`;
    `class_name` matches the full class or its last dotted part.
    """
    if not (text or resource_id or class_name):
        raise QueryError()
    by_order = {e.node.order: e.number for e in screen.elements}
    parent_of: dict[int, UiNode] = {}
    for node in screen.tree.nodes():
        for child in node.children:
            parent_of[child.order] = node
    hits: list[QueryHit] = []
    for node in screen.tree.nodes():
        if text and not (_matches(node.safe_text, text, exact) or _matches(node.content_desc, text, exact)):
            continue
        if resource_id and not (
            _matches(node.resource_id, resource_id, exact) or _matches(node.short_id, resource_id, exact)
        ):
            continue
        if class_name and not (
            _matches(node.class_name, class_name, exact) or _matches(node.short_class, class_name, exact)
        ):
            continue
        hits.append(
            QueryHit(node, clean_label(node.safe_text or node.content_desc), _acting_element(node, by_order, parent_of))
        )
        if len(hits) >= limit:
            break
    return tuple(hits)


def _acting_element(node: UiNode, by_order: dict[int, int], parent_of: dict[int, UiNode]) -> int | None:
    if node.order in by_order:
        return by_order[node.order]
    # An ancestor acts on it only if pressing it is what it does; a scrollable list
    # around a text is not "the element for" that text.
    current = parent_of.get(node.order)
    while current is not None:
        if current.order in by_order and (current.clickable or current.long_clickable):
            return by_order[current.order]
        current = parent_of.get(current.order)
    return None
