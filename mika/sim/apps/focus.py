"""Key focus on an app's screen, as Android moves it with DPAD and TAB.

Fields keep their input focus in `Activity.focus` (the field name); any other clickable
view that key navigation lands on is remembered in `Activity.focus_node` by a key that
survives the tree being rebuilt every frame. The dump shows either as focused="true";
ENTER / DPAD_CENTER presses the focused view. A touch leaves key focus (touch mode).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mika.sim.world.node import Node

if TYPE_CHECKING:
    from mika.sim.world.display import Activity

FORWARD = ("DPAD_DOWN", "TAB")
BACKWARD = ("DPAD_UP",)
PRESS = ("DPAD_CENTER", "ENTER", "NUMPAD_ENTER")


def _takes_focus(node: Node, width: int, height: int) -> bool:
    left, top, right, bottom = node.bounds
    on_screen = right > left and bottom > top and right > 0 and bottom > 0 and left < width and top < height
    return on_screen and node.enabled and ((node.role == "field" and bool(node.field)) or bool(node.on_tap))


def candidates(root: Node, width: int, height: int) -> list[tuple[str, Node]]:
    """Every view key focus can land on, in reading order (top to bottom, then left to
    right), each with its key: id, text and description, and which of the alike it is."""
    nodes = [n for n in root.walk() if _takes_focus(n, width, height)]
    nodes.sort(key=lambda n: (n.bounds[1], n.bounds[0]))
    seen: dict[str, int] = {}
    out = []
    for node in nodes:
        base = f"{node.rid}|{node.text}|{node.desc}"
        seen[base] = seen.get(base, 0) + 1
        out.append((f"{base}#{seen[base]}", node))
    return out


def _current(activity: Activity, views: list[tuple[str, Node]]) -> int:
    for i, (key, node) in enumerate(views):
        if activity.focus and node.role == "field" and node.field == activity.focus:
            return i
        if not activity.focus and activity.focus_node == key:
            return i
    return -1


def move(activity: Activity, root: Node, width: int, height: int, name: str) -> bool:
    """Moves key focus for key `name`; True when it moved. DPAD stops at either end; TAB
    goes round to the first view."""
    views = candidates(root, width, height)
    if not views:
        return False
    at = _current(activity, views)
    if at < 0:
        target = 0
    elif name in FORWARD:
        target = (at + 1) % len(views) if name == "TAB" else min(at + 1, len(views) - 1)
    else:
        target = max(at - 1, 0)
    if target == at:
        return False
    key, node = views[target]
    if node.role == "field":
        activity.focus, activity.focus_node = node.field, None
    else:
        activity.focus, activity.focus_node = None, key
    return True


def focused_view(activity: Activity, root: Node, width: int, height: int) -> Node | None:
    """The clickable non-field view that has key focus, if any."""
    if activity.focus or not activity.focus_node:
        return None
    return next((n for k, n in candidates(root, width, height) if k == activity.focus_node), None)


def mark(activity: Activity, root: Node, width: int, height: int) -> None:
    """Shows the key-focused view as focused in the tree (fields mark themselves)."""
    node = focused_view(activity, root, width, height)
    if node is not None:
        node.focused = True
