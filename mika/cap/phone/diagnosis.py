"""Why a tap did nothing, read off a fresh screen: pure logic for phone_diagnose.

Given where the last action aimed (a point, and the element it meant, read on the screen
the action was based on), the findings are checked from the most common cause down:
the element is gone (the screen changed since), the keyboard sits over it, another
window or a floating view lies on top at that point, it is (mostly) off the screen, it
is disabled, it does not take taps itself but a parent does. Each finding says what to
do next. Labels are screen text: the caller fences them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mika.cap.phone.chooser import is_system_package
from mika.uistate.elements import Element
from mika.uistate.screen import Screen
from mika.uistate.tree import Bounds, UiNode, UiWindow
from mika.uistate.windows import WindowInfo

# Less of the element than this on screen, at the screen's edge, counts as off-screen:
# a finger-sized target needs about 48 dp.
MIN_VISIBLE_PX = 48


@dataclass(frozen=True)
class Finding:
    cause: str  # gone | keyboard | covered | window_on_top | off_screen | disabled | parent_clickable | not_clickable
    what: str  # one sentence: what is wrong
    do: str  # what to do next
    by: str = ""  # the covering window's package or element's label, when there is one

    def as_dict(self) -> dict[str, str]:
        out = {"cause": self.cause, "what": self.what, "do": self.do}
        if self.by:
            out["by"] = self.by
        return out


def same_element(screen: Screen, old: Element) -> Element | None:
    """`old` (from an earlier read) on this screen: same package, class, id and label;
    the nearest one if it moved (a scroll shifts bounds, it is still the element)."""
    n = old.node
    hits = [
        e
        for e in screen.elements
        if e.package == old.package
        and e.node.class_name == n.class_name
        and e.node.resource_id == n.resource_id
        and e.label == old.label
    ]
    if not hits:
        return None
    ox, oy = old.bounds.centre
    return min(hits, key=lambda e: abs(e.bounds.centre[0] - ox) + abs(e.bounds.centre[1] - oy))


def diagnose(
    screen: Screen,
    point: tuple[int, int],
    element: Element | None,
    *,
    ime_shown: bool | None = None,
    quote: Callable[[str], str] = repr,
) -> list[Finding]:
    """Findings, most likely first; empty when nothing on the screen explains it. `quote`
    wraps every piece of screen text (labels) put in a sentence: the tool fences them."""
    out: list[Finding] = []
    el = element
    if element is not None:
        el = same_element(screen, element)
        if el is None:
            out.append(
                Finding(
                    "gone",
                    f"The element aimed at ({_name(element, quote)}) is no longer on the screen: "
                    "the screen changed since.",
                    "Read the screen again (phone_observe) and act on what is there now.",
                )
            )
            return out
    x, y = el.bounds.centre if el is not None else point
    frame = screen.frame
    target_window = el.window if el is not None else None

    keyboard = [w for w in screen.windows if w.kind == "keyboard"]
    if any(w.bounds.contains(x, y) for w in keyboard):
        out.append(_keyboard())
    elif not keyboard and ime_shown and el is not None and el.bounds.bottom > frame.top + frame.height * 0.55:
        # A single-window dump doesn't show the keyboard; the input method says it is up.
        out.append(_keyboard())

    on_top = _window_at(screen, x, y, target_window)
    sibling = _view_over(screen, el, x, y) if el is not None and on_top is None else None
    if on_top is not None:
        out.append(_covered(screen, on_top, x, y, quote, el.package if el is not None else ""))
    elif sibling is not None:
        listed = next((e for e in screen.elements if e.node is sibling), None)
        name = quote(listed.label) if listed is not None and listed.label else sibling.class_name.rsplit(".", 1)[-1]
        out.append(
            Finding(
                "covered",
                f"Another view of the same page ({name}) lies over that point and takes the tap.",
                "Close or scroll that view away first, or tap a part of the element it doesn't cover.",
                sibling.resource_id or sibling.class_name,
            )
        )
    elif target_window is not None:
        dialog = next(
            (w for w in screen.windows if w.kind == "dialog" and w.index != target_window and w.index < target_window),
            None,
        )
        if dialog is not None:
            out.append(
                Finding(
                    "window_on_top",
                    f"A dialog of {dialog.package} is in front of the page.",
                    "Read it (phone_observe) and answer or close it first, then tap again.",
                    dialog.package,
                )
            )

    if el is not None:
        seen = el.bounds.intersection(frame)
        if el.bounds.empty or seen.empty or not el.node.visible_to_user:
            out.append(_off_screen(el, frame, 0, quote))
        elif (seen.height < min(MIN_VISIBLE_PX, el.bounds.height) or el.bounds.height < MIN_VISIBLE_PX) and (
            el.bounds.bottom >= frame.bottom - MIN_VISIBLE_PX or el.bounds.top <= frame.top + MIN_VISIBLE_PX
        ):
            out.append(_off_screen(el, frame, seen.height, quote))
        if not el.node.enabled:
            out.append(
                Finding(
                    "disabled",
                    f"{_name(el, quote)} is disabled (enabled=false): the app ignores taps on it.",
                    "Do what it waits for first (a required field, a checkbox, a choice), then tap it again.",
                )
            )
        if not el.node.clickable and not el.node.long_clickable:
            parent = _clickable_parent(screen, el)
            if parent is not None:
                listed = next((e for e in screen.elements if e.node is parent), None)
                name = f"element {listed.number}" if listed is not None else f"the area at {parent.bounds.centre}"
                out.append(
                    Finding(
                        "parent_clickable",
                        f"{_name(el, quote)} does not take taps itself; its parent does.",
                        f"Tap {name} instead.",
                    )
                )
            else:
                out.append(
                    Finding(
                        "not_clickable",
                        f"{_name(el, quote)} does not take taps, nor does anything around it.",
                        "It may be a label: look for the control next to it, or try a long press.",
                    )
                )
    return out


def _name(el: Element, quote: Callable[[str], str]) -> str:
    return quote(el.label) if el.label else f"The {el.role or 'element'}"


def _keyboard() -> Finding:
    return Finding(
        "keyboard",
        "The on-screen keyboard covers that point: the tap landed on a key.",
        "Hide the keyboard with phone_back (once), then tap it again by its new number.",
        "keyboard",
    )


def _off_screen(el: Element, frame: Bounds, seen: int, quote: Callable[[str], str]) -> Finding:
    part = "is not on the screen" if seen <= 0 else f"is only {seen} px on the screen, at its edge"
    down = el.bounds.top >= frame.bottom - MIN_VISIBLE_PX or el.bounds.bottom >= frame.bottom - 1
    return Finding(
        "off_screen",
        f"{_name(el, quote)} {part}.",
        f"Scroll {'down' if down else 'up'} (phone_scroll) until it is fully shown, then tap it by its new number.",
    )


def _window_at(screen: Screen, x: int, y: int, target_window: int | None) -> WindowInfo | None:
    """The topmost window holding the point, when it is not the target's own (windows are
    listed top first; the keyboard is its own finding)."""
    for w in sorted(screen.windows, key=lambda w: w.index):
        if not w.bounds.contains(x, y):
            continue
        if w.kind == "keyboard" or w.index == target_window:
            return None
        if target_window is None and w.kind == "app":
            return None
        return w
    return None


def _covered(
    screen: Screen, w: WindowInfo, x: int, y: int, quote: Callable[[str], str], target_package: str
) -> Finding:
    inside = [e for e in screen.elements if e.window == w.index and e.bounds.contains(x, y)]
    top = min(inside, key=lambda e: e.bounds.area) if inside else None
    name = (quote(top.label) if top.label else top.role) if top is not None else ""
    # A dialog is the page's own or the system's; a small window of some other app over the
    # page is that app's floating view (chat head, tips bubble), whatever its shape.
    foreign = bool(target_package) and w.package != target_package and not is_system_package(w.package)
    if w.kind == "dialog" and not foreign:
        return Finding(
            "window_on_top",
            f"A dialog of {w.package} is on top at that point" + (f" ({name})" if name else "") + ".",
            "Read it (phone_observe) and answer or close it first, then tap again.",
            w.package,
        )
    what = "another app's floating view" if w.kind in ("overlay", "app") else f"a {w.kind} window"
    return Finding(
        "covered",
        f"{what[0].upper()}{what[1:]} of {w.package}" + (f" ({name})" if name else "") + " lies over that point: "
        "the tap landed on it.",
        "Close or move that view first (its close button, or phone_back), or tap a part of the element it "
        "doesn't cover.",
        w.package,
    )


def _view_over(screen: Screen, el: Element, x: int, y: int) -> UiNode | None:
    """A clickable view of the element's own window drawn after it (later in the tree, so on
    top) that holds the point and is neither its ancestor nor inside it: a floating
    tips view or a transparent layer laid over the button."""
    window = next((w for w in screen.tree.windows if w.index == el.window), None)
    if window is None:
        return None
    chain = _path_to(window, el.node)
    if chain is None:
        return None
    ancestors = {id(n) for n in chain}
    inside = {id(n) for n in el.node.walk()}
    seen_target = False
    for node in window.root.walk():
        if node is el.node:
            seen_target = True
            continue
        if not seen_target or id(node) in ancestors or id(node) in inside:
            continue
        if (node.clickable or node.long_clickable) and node.visible_to_user and node.bounds.contains(x, y):
            return node
    return None


def _clickable_parent(screen: Screen, el: Element) -> UiNode | None:
    for window in screen.tree.windows:
        chain = _path_to(window, el.node)
        if chain is not None:
            for node in reversed(chain[:-1]):
                if node.clickable and node.bounds.contains(*el.bounds.centre):
                    return node
            return None
    return None


def _path_to(window: UiWindow, target: UiNode) -> list[UiNode] | None:
    stack: list[tuple[UiNode, list[UiNode]]] = [(window.root, [window.root])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        for child in node.children:
            stack.append((child, [*path, child]))
    return None
