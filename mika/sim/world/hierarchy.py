"""Accessibility dumps in the two real formats: `uiautomator dump` (one line, the active
window only) and uiautomator2's `dumpWindowHierarchy` (pretty, every window, with
visible-to-user / drawing-order / hint / display-id)."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from mika.sim.world.node import Node, Window

HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"


def _b(v: bool) -> str:
    return "true" if v else "false"


def _bounds(node: Node) -> str:
    left, top, right, bottom = node.bounds
    return f"[{left},{top}][{right},{bottom}]"


def _attrs(node: Node, index: int) -> str:
    return (
        f'index="{index}" text={quoteattr(node.text)} resource-id={quoteattr(node.rid)} '
        f"class={quoteattr(node.cls)} package={quoteattr(node.package)} "
        f'content-desc={quoteattr(node.desc)} checkable="{_b(node.checkable)}" '
        f'checked="{_b(node.checked)}" clickable="{_b(node.clickable)}" '
        f'enabled="{_b(node.enabled)}" focusable="{_b(node.focusable)}" '
        f'focused="{_b(node.focused)}" scrollable="{_b(node.scrollable)}" '
        f'long-clickable="{_b(node.long_clickable)}" password="{_b(node.password)}" '
        f'selected="{_b(node.selected)}"'
    )


def active_window(windows: list[Window]) -> Window | None:
    """The window `uiautomator dump` sees: the focused one (a dialog, the keyguard, the app)."""
    for window in reversed(windows):
        if window.kind in ("dialog", "keyguard", "shade", "app"):
            return window
    return windows[-1] if windows else None


def _unimportant(node: Node) -> bool:
    """What --compressed leaves out: bare layout containers that say and do nothing."""
    return not (
        node.text
        or node.desc
        or node.rid
        or node.clickable
        or node.long_clickable
        or node.scrollable
        or node.checkable
        or node.focusable
    )


def _compress(nodes: list[Node]) -> list[Node]:
    out: list[Node] = []
    for node in nodes:
        kids = _compress(node.children)
        if _unimportant(node):
            out.extend(kids)
        else:
            out.append(Node(**{**node.__dict__, "children": kids}))
    return out


def dump_plain(windows: list[Window], rotation: int = 0, compressed: bool = False) -> str:
    out = [HEADER, f'<hierarchy rotation="{rotation}">']
    window = active_window(windows)
    if window is not None and compressed:
        # the root of the window always stays, as uiautomator keeps it
        window = Window(
            window.kind,
            Node(**{**window.root.__dict__, "children": _compress(window.root.children)}),
            window.title,
            window.package,
            window.secure,
        )

    def emit(node: Node, index: int) -> None:
        attrs = _attrs(node, index) + f' bounds="{_bounds(node)}"'
        if node.children:
            out.append(f"<node {attrs}>")
            for i, child in enumerate(node.children):
                emit(child, i)
            out.append("</node>")
        else:
            out.append(f"<node {attrs} />")

    if window is not None:
        emit(window.root, 0)
    out.append("</hierarchy>")
    return "".join(out)


def _visible(node: Node) -> bool:
    left, top, right, bottom = node.bounds
    return right > left and bottom > top


def dump_u2(
    windows_by_display: list[tuple[int, list[Window]]],
    rotation: int = 0,
    display_ids: bool = True,
    compressed: bool = False,
) -> str:
    """One `<hierarchy>` whose children are the windows' roots, display after display (as
    u2 3.7.1 dumps getWindowsOnAllDisplays on API 30+). `display_ids=False` is the API < 30
    form: the node's window can't tell its display there, so the attribute is left out.
    `compressed` leaves out the views that aren't important for accessibility, each
    window's root kept, as setCompressedLayoutHierarchy(true) does."""
    out = [HEADER, f'<hierarchy rotation="{rotation}">']

    def emit(node: Node, index: int, order: int, depth: int, display_id: int) -> None:
        pad = "  " * depth
        attrs = (
            _attrs(node, index)
            + f' visible-to-user="{_b(_visible(node))}" bounds="{_bounds(node)}"'
            + f' drawing-order="{order}" hint={quoteattr(node.hint)}'
            + (f' display-id="{display_id}"' if display_ids else "")
        )
        if node.children:
            out.append(f"{pad}<node {attrs}>")
            for i, child in enumerate(node.children):
                emit(child, i, i + 1, depth + 1, display_id)
            out.append(f"{pad}</node>")
        else:
            out.append(f"{pad}<node {attrs} />")

    for display_id, windows in windows_by_display:
        # uiautomator2 lists windows top first (the accessibility window order).
        for window in reversed(windows):
            root = window.root
            if compressed:
                root = Node(**{**root.__dict__, "children": _compress(root.children)})
            emit(root, 0, 0, 1, display_id)
    out.append("</hierarchy>")
    return "\n".join(out) + "\n"
