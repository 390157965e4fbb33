"""`device.dump.ui`: every window's accessibility tree in the DeviceServer's JSON shape.

UiTreeSerializer.java walks `UiAutomation.getWindows()` — the default display's windows,
top first — skipping the keyboard's unless `full` is asked, and writes each root as
`{"index", "class", "package", "text", "hint", "content-desc", "resource-id", <state
flags>, "rect": {"x", "y", "width", "height"}, "children"?}`; `children` only when there
are some. The result is `{"hierarchy": [root, …]}`. mobilecli reads class, text, hint,
content-desc, resource-id, the flags and rect from it and builds its element list.
"""

from __future__ import annotations

from typing import Any

from mika.sim.world.node import Node, Window


def _node(node: Node, index: int) -> dict[str, Any]:
    left, top, right, bottom = node.bounds
    out: dict[str, Any] = {
        "index": index,
        "class": node.cls,
        "package": node.package,
        # The sim's nodes keep text and hint apart already (an empty field has text "").
        "text": node.text,
        "hint": node.hint,
        "content-desc": node.desc,
        "resource-id": node.rid,
        "checkable": node.checkable,
        "checked": node.checked,
        "clickable": node.clickable,
        "enabled": node.enabled,
        "focusable": node.focusable,
        "focused": node.focused,
        "scrollable": node.scrollable,
        "long-clickable": node.long_clickable,
        "password": node.password,
        "selected": node.selected,
        "visible": right > left and bottom > top,
        "editable": node.role == "field",
        "rect": {"x": left, "y": top, "width": right - left, "height": bottom - top},
    }
    if node.children:
        out["children"] = [_node(child, i) for i, child in enumerate(node.children)]
    return out


def dump(windows: list[Window], full: bool = False) -> dict[str, Any]:
    """`windows` bottom to top, as a frame lists them."""
    shown = [w for w in reversed(windows) if full or w.kind != "ime"]
    return {"hierarchy": [_node(w.root, 0) for w in shown]}
