"""A screen as the agent knows it: a parsed tree, its numbered elements, a version.

`Screen` is a value. `ScreenTracker` is the one place that hands out versions: a read
whose content equals the previous one keeps its version (so a re-read does not turn
every number stale), any other read gets the next version. Element numbers are only
meaningful together with the version they were shown with; `ScreenTracker.resolve`
refuses a number from an older version unless the very same element still carries
it, and then says so with the fresh listing (`StaleElement`) — it never guesses.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field, replace

from mika.uistate.elements import Element, extract_elements
from mika.uistate.errors import StaleElement, UnknownElement
from mika.uistate.listing import render_listing
from mika.uistate.seen_text import SeenText
from mika.uistate.tree import Bounds, UiNode, UiTree
from mika.uistate.windows import WindowInfo, classify_windows


@dataclass(frozen=True)
class Screen:
    tree: UiTree
    elements: tuple[Element, ...]
    windows: tuple[WindowInfo, ...]
    version: int = 0
    size: tuple[int, int] | None = None  # physical size if the port knows it
    tree_blind: bool = False
    seen_text: tuple[SeenText, ...] = ()  # OCR lines the tree lacks, top to bottom
    display_id: int = 0
    activity: str = ""  # foreground activity when the port read it (dumpsys), else ""
    notes: tuple[str, ...] = field(default=())

    # -- facts about the screen ------------------------------------------------
    @property
    def frame(self) -> Bounds:
        if self.size:
            return Bounds(0, 0, self.size[0], self.size[1])
        return self.tree.bounds

    @property
    def foreground_package(self) -> str:
        """The package of the app window (a dialog-only dump: the dialog's package)."""
        for kinds in (("app",), ("dialog", "system")):
            candidates = [w for w in self.windows if w.kind in kinds]
            if candidates:
                return max(candidates, key=lambda w: w.bounds.area).package
        return self.windows[0].package if self.windows else ""

    @property
    def has_dialog(self) -> bool:
        return any(w.kind == "dialog" for w in self.windows)

    def window(self, index: int) -> WindowInfo | None:
        for w in self.windows:
            if w.index == index:
                return w
        return None

    def element(self, number: int) -> Element:
        if 1 <= number <= len(self.elements):
            return self.elements[number - 1]
        raise UnknownElement(number, self.version, len(self.elements))

    def element_at(self, x: float, y: float) -> Element | None:
        """The smallest listed element containing the point, topmost window first."""
        hits = [e for e in self.elements if e.bounds.contains(x, y)]
        if not hits:
            return None
        return min(hits, key=lambda e: (e.bounds.area, -e.window))

    def texts(self) -> tuple[str, ...]:
        """Every readable text on screen: tree texts and descriptions, then OCR lines."""
        out: list[str] = []
        for node in self.tree.nodes():
            if not node.visible_to_user:
                continue
            for value in (node.safe_text, node.content_desc):
                if value and value.strip():
                    out.append(value)
        out.extend(s.text for s in self.seen_text)
        return tuple(out)

    def content_key(self, *, ignore_bars: bool = True) -> str:
        """A digest of what the screen shows; equal keys mean nothing visible changed.

        The status bar (clock, signal) and overlays are left out by default so a ticking
        clock does not count as a change.
        """
        if ignore_bars:
            # Asked several times per action (the settle, the tracker, the effect, the OCR
            # cache) of the same immutable screen: worked out once. `replace` makes a new
            # screen, which works it out afresh.
            known: str | None = self.__dict__.get("_content_key")
            if known is None:
                known = self._content_key(True)
                object.__setattr__(self, "_content_key", known)
            return known
        return self._content_key(False)

    def _content_key(self, ignore_bars: bool) -> str:
        skip = {w.index for w in self.windows if w.is_bar} if ignore_bars else set()
        h = hashlib.sha1()
        for e in self.elements:
            if e.window in skip:
                continue
            h.update(repr((e.identity(), e.states, e.node.safe_text, e.folded)).encode("utf-8", "replace"))
        for s in self.seen_text:
            h.update(repr((s.text, s.box)).encode())
        h.update(self.activity.encode())
        return h.hexdigest()

    # -- derived screens -------------------------------------------------------
    def with_seen_text(self, lines: tuple[SeenText, ...], *, blind: bool = True) -> Screen:
        """This screen plus OCR lines (top to bottom), marked tree-blind unless told not."""
        ordered = tuple(sorted(lines, key=lambda s: (s.box.top, s.box.left)))
        return replace(self, seen_text=ordered, tree_blind=blind)

    def listing(self) -> str:
        return render_listing(self)


def build_screen(
    tree: UiTree,
    *,
    size: tuple[int, int] | None = None,
    display_id: int | None = None,
    activity: str = "",
) -> Screen:
    """Number a tree's elements; only the nodes of `display_id` when it is given."""
    if display_id is not None:
        tree = only_display(tree, display_id)
    frame = Bounds(0, 0, size[0], size[1]) if size else None
    windows = classify_windows(tree, frame)
    # The app and its dialogs first, bars last: the model reads what matters first, and
    # a new notification icon in the status bar does not renumber the app's elements.
    rank = {"dialog": 0, "app": 1, "system": 2, "keyboard": 3, "status_bar": 4, "nav_bar": 5, "overlay": 6}
    order = [w.index for w in sorted(windows, key=lambda w: (rank.get(w.kind, 9), w.index))]
    elements = extract_elements(tree, frame, window_order=order)
    return Screen(
        tree=tree,
        elements=elements,
        windows=windows,
        size=size,
        display_id=display_id or 0,
        activity=activity,
    )


def only_display(tree: UiTree, display_id: int) -> UiTree:
    """The windows and nodes of one display. A dump of all displays (uiautomator2) marks
    every node with `display-id`; a node without one belongs to display 0, because the
    dumps that lack the attribute (plain `uiautomator dump`) only ever show display 0."""

    def on_display(mark: int | None) -> bool:
        return (mark if mark is not None else 0) == display_id

    def prune(node: UiNode) -> UiNode:
        # A node's display_id is its own or inherited from its parent (the parser fills it in).
        kept = tuple(prune(c) for c in node.children if on_display(c.display_id))
        return node if kept == node.children else replace(node, children=kept)

    windows = tuple(replace(w, root=prune(w.root)) for w in tree.windows if on_display(w.display_id))
    return replace(tree, windows=windows)


class ScreenTracker:
    """Versions screens of one display and resolves element numbers against them."""

    def __init__(self, keep: int = 8) -> None:
        self._keep = max(2, keep)
        self._history: OrderedDict[int, Screen] = OrderedDict()
        self._next = 1
        self._current: Screen | None = None

    @property
    def current(self) -> Screen | None:
        return self._current

    def update(self, screen: Screen) -> Screen:
        """Record a fresh read; returns it stamped with its version."""
        previous = self._current
        if previous is not None and previous.content_key() == screen.content_key():
            stamped = replace(screen, version=previous.version)
        else:
            stamped = replace(screen, version=self._next)
            self._next += 1
        self._current = stamped
        self._history[stamped.version] = stamped
        self._history.move_to_end(stamped.version)
        while len(self._history) > self._keep:
            self._history.popitem(last=False)
        return stamped

    def mark_moved(self) -> None:
        """Something moved the screen without a read (an idle scroll): every number shown
        so far is stale until the next read."""
        if self._current is not None:
            self._current = replace(self._current, version=self._next)
            self._next += 1
            self._history.clear()

    def resolve(self, number: int, seen_version: int | None = None) -> Element:
        """The current element behind `number` as the model saw it at `seen_version`.

        Same version: that element. Older version: accepted only when the current
        screen's element with that number is identical to the one shown then;
        otherwise `StaleElement` with the fresh listing.
        """
        current = self._current
        if current is None:
            raise StaleElement(number, seen_version, 0, "(the screen has not been read yet)")
        if seen_version is None or seen_version == current.version:
            return current.element(number)
        old = self._history.get(seen_version)
        if old is not None and 1 <= number <= len(old.elements) and number <= len(current.elements):
            then, now = old.elements[number - 1], current.elements[number - 1]
            if then.identity() == now.identity():
                return now
        raise StaleElement(number, seen_version, current.version, current.listing())
