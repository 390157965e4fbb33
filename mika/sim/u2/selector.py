"""Matching uiautomator2 Selector dicts (UiSelector fields) against a frame's nodes."""

from __future__ import annotations

import re
from typing import Any

from mika.sim.world.node import Node, Window

_TEXT = {
    "text": lambda n, v: n.text == v,
    "textContains": lambda n, v: v in n.text,
    "textMatches": lambda n, v: re.fullmatch(v, n.text, re.S) is not None,
    "textStartsWith": lambda n, v: n.text.startswith(v),
    "className": lambda n, v: n.cls == v,
    "classNameMatches": lambda n, v: re.fullmatch(v, n.cls) is not None,
    "description": lambda n, v: n.desc == v,
    "descriptionContains": lambda n, v: v in n.desc,
    "descriptionMatches": lambda n, v: re.fullmatch(v, n.desc, re.S) is not None,
    "descriptionStartsWith": lambda n, v: n.desc.startswith(v),
    "packageName": lambda n, v: n.package == v,
    "packageNameMatches": lambda n, v: re.fullmatch(v, n.package) is not None,
    "resourceId": lambda n, v: n.rid == v,
    "resourceIdMatches": lambda n, v: re.fullmatch(v, n.rid) is not None,
}
_FLAGS = {
    "checkable": "checkable",
    "checked": "checked",
    "clickable": "clickable",
    "longClickable": "long_clickable",
    "scrollable": "scrollable",
    "enabled": "enabled",
    "focusable": "focusable",
    "focused": "focused",
    "selected": "selected",
}


def _matches(node: Node, index: int, selector: dict[str, Any]) -> bool:
    for key, value in selector.items():
        if key in _TEXT:
            if not _TEXT[key](node, value):
                return False
        elif key in _FLAGS:
            if bool(getattr(node, _FLAGS[key])) != bool(value):
                return False
        elif key == "index" and index != int(value):
            return False
    return True


def find_all(windows: list[Window], selector: dict[str, Any]) -> list[Node]:
    """Every node matching, in window order top first then document order (UiAutomator's)."""
    found: list[Node] = []
    parents: dict[int, Node] = {}  # id(node) -> its parent, for sibling (fromParent) searches

    def walk(node: Node, index: int) -> None:
        if _matches(node, index, selector):
            found.append(node)
        for i, child in enumerate(node.children):
            parents[id(child)] = node
            walk(child, i)

    for window in reversed(windows):
        walk(window.root, 0)
    chain = selector.get("childOrSibling") or []
    subs = selector.get("childOrSiblingSelector") or []
    for how, sub in zip(chain, subs, strict=False):
        narrowed: list[Node] = []
        for anchor in found:
            if how == "child":
                pool = [n for c in anchor.children for n in c.walk()]
            else:
                # UiSelector.fromParent: the search starts again from the anchor's parent.
                up = parents.get(id(anchor))
                pool = [n for c in up.children for n in c.walk() if n is not anchor] if up is not None else []
            for i, n in enumerate(pool):
                if _matches(
                    n,
                    i,
                    {k: v for k, v in sub.items() if k not in ("mask", "childOrSibling", "childOrSiblingSelector")},
                ):
                    narrowed.append(n)
        found = narrowed
    return found


def find_one(windows: list[Window], selector: dict[str, Any]) -> Node | None:
    nodes = find_all(windows, selector)
    instance = int(selector.get("instance", 0) or 0)
    return nodes[instance] if instance < len(nodes) else None


def obj_info(node: Node) -> dict[str, Any]:
    l, t, r, b = node.bounds  # noqa: E741 (left, top, right, bottom)
    bounds = {"bottom": b, "left": l, "right": r, "top": t}
    return {
        "bounds": bounds,
        "checkable": node.checkable,
        "checked": node.checked,
        "childCount": len(node.children),
        "className": node.cls,
        "clickable": node.clickable,
        "contentDescription": node.desc or None,
        "enabled": node.enabled,
        "focusable": node.focusable,
        "focused": node.focused,
        "longClickable": node.long_clickable,
        "packageName": node.package,
        "resourceName": node.rid or None,
        "scrollable": node.scrollable,
        "selected": node.selected,
        "text": node.text,
        "visibleBounds": dict(bounds),
    }
