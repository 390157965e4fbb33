"""Choosing the meaningful nodes of a tree and giving each a role, a label and states.

A node is listed when the model can do something with it (click, long-press, check,
scroll, type) or when it carries text the model should read. A clickable row without a
label of its own is labelled by the texts inside it ("张三 · 你好 · 12:01") and those
texts are then not listed again — that, and dropping layout-only nodes, is where the
listing saves most of the raw XML's tokens.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from mika.uistate.roles import role_of
from mika.uistate.tree import Bounds, UiNode, UiTree, UiWindow
from mika.uistate.wheel_shape import MIN_ITEMS, SHORT_VALUE, looks_like_wheel

LABEL_MAX = 80  # characters of a label shown in the listing; the full text stays in the tree
_JOIN = " · "
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Element:
    number: int
    role: str
    label: str  # "" when nothing names it; never a password's text
    label_source: str  # text | desc | hint | id | inner | ""
    states: tuple[str, ...]
    bounds: Bounds
    package: str
    window: int
    node: UiNode
    # Texts of nodes that have no line of their own because this element's label says them
    # (a row's texts, a clock's digits under the clock): part of what the screen shows.
    folded: tuple[str, ...] = ()
    # The node's content description beside a text label, when it says what the text does
    # not: a brightness button's text is "−", its description "Decrease brightness".
    desc: str = ""

    @property
    def centre(self) -> tuple[int, int]:
        return self.bounds.centre

    @property
    def actionable(self) -> bool:
        n = self.node
        return n.clickable or n.long_clickable or n.checkable or n.scrollable or n.editable

    def identity(self) -> tuple[object, ...]:
        """What makes this the same element on another read of the screen."""
        n = self.node
        return (self.window, self.package, n.class_name, n.resource_id, self.role, self.label, self.bounds)

    def as_dict(self) -> dict[str, object]:
        n = self.node
        return {
            "number": self.number,
            "role": self.role,
            "label": self.label,
            "label_source": self.label_source,
            "desc": self.desc,
            "states": list(self.states),
            "bounds": self.bounds.as_list(),
            "centre": list(self.centre),
            "package": self.package,
            "window": self.window,
            "class": n.class_name,
            "resource_id": n.resource_id,
            "flags": {
                "clickable": n.clickable,
                "long_clickable": n.long_clickable,
                "checkable": n.checkable,
                "checked": n.checked,
                "enabled": n.enabled,
                "focusable": n.focusable,
                "focused": n.focused,
                "scrollable": n.scrollable,
                "selected": n.selected,
                "password": n.password,
                "editable": n.editable,
                "visible_to_user": n.visible_to_user,
            },
        }


def clean_label(text: str) -> str:
    """One line, no icon-font glyphs (private-use code points say nothing to a model)."""
    if not text:
        return ""
    kept = "".join(ch for ch in text if unicodedata.category(ch) not in ("Co", "Cc", "Cf") or ch in "\n\t")
    return _WS.sub(" ", kept).strip()


def shorten(text: str, limit: int = LABEL_MAX) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _squash(text: str) -> str:
    return _WS.sub("", text).casefold()


def extra_desc(node: UiNode, label: str, source: str) -> str:
    """The description to show beside a text label: only when the label is the node's text
    and the description is not already inside it (case and spaces ignored)."""
    if source != "text":
        return ""  # a desc label is the description itself; a hint or id label has no text
    desc = clean_label(node.content_desc)
    return shorten(desc) if desc and _squash(desc) not in _squash(label) else ""


def own_label(node: UiNode) -> tuple[str, str]:
    """The node's own name and where it came from; password text is never a name."""
    text = "" if node.password else clean_label(node.text)
    if text:
        return text, "text"
    desc = clean_label(node.content_desc)
    if desc:
        return desc, "desc"
    hint = clean_label(node.hint)
    if hint:
        return hint, "hint"
    return "", ""


def id_label(node: UiNode) -> str:
    if node.resource_id.startswith("web:"):
        return ""  # a page element's handle (backendNodeId) names nothing
    short = node.short_id
    # Obfuscated ids (`afy`, `c3`) name nothing; only readable ones are worth a token.
    if (len(short) >= 4 and any(ch in short for ch in "_-")) or len(short) >= 6:
        return short
    return ""


def states_of(node: UiNode) -> tuple[str, ...]:
    out: list[str] = []
    if node.checkable:
        out.append("checked" if node.checked else "unchecked")
    if node.selected:
        out.append("selected")
    if node.focused:
        out.append("focused")
    if not node.enabled:
        out.append("disabled")
    if node.password:
        out.append("password")
        if node.text:
            out.append("filled")
    if node.scrollable:
        out.append("scrollable")
    if looks_like_wheel(node):
        out.append("wheel")  # phone_set_wheel turns it to a value in one call
    if node.editable:
        out.append("editable")
    if node.long_clickable and not node.clickable:
        out.append("long-press")
    return tuple(out)


def _visible(node: UiNode, frame: Bounds) -> bool:
    if not node.visible_to_user or node.bounds.empty:
        return False
    return not node.bounds.intersection(frame).empty


def _is_actionable(node: UiNode) -> bool:
    return node.clickable or node.long_clickable or node.checkable or node.scrollable or node.editable


@dataclass
class _Pending:
    node: UiNode
    role: str
    label: str
    source: str
    window: UiWindow
    # Texts of nodes not listed on their own because this element's label says them; kept so
    # a change in one of them still changes the screen (Screen.content_key).
    folded: list[str] = field(default_factory=list)
    bounds: Bounds | None = None  # where the element is, when not its node's bounds


class _Collector:
    def __init__(self, frame: Bounds) -> None:
        self.frame = frame
        self.out: list[_Pending] = []
        # Each asked of a node several times (by its own visit, and by every ancestor that
        # gathers or merges texts): worked out once per read.
        self._loud: dict[int, bool] = {}
        self._seen: dict[int, bool] = {}
        self._roles: dict[int, str] = {}
        self._labels: dict[int, tuple[str, str]] = {}
        self._gathered: dict[int, list[tuple[str, int, Bounds]]] = {}

    def visible(self, node: UiNode) -> bool:
        known = self._seen.get(node.order)
        if known is None:
            known = self._seen[node.order] = _visible(node, self.frame)
        return known

    def role(self, node: UiNode) -> str:
        known = self._roles.get(node.order)
        if known is None:
            known = self._roles[node.order] = role_of(node)
        return known

    def label(self, node: UiNode) -> tuple[str, str]:
        known = self._labels.get(node.order)
        if known is None:
            known = self._labels[node.order] = own_label(node)
        return known

    def inner_texts(self, node: UiNode) -> list[tuple[str, int, Bounds]]:
        """(text, node order, bounds) of every named non-actionable node under `node` that
        no control stands between, in reading order, repeats included."""
        known = self._gathered.get(node.order)
        if known is not None:
            return known
        found: list[tuple[str, int, Bounds]] = []
        for child in node.children:
            if not self.visible(child) or _is_actionable(child):
                continue
            label, _ = self.label(child)
            if label:
                found.append((label, child.order, child.bounds))
            found.extend(self.inner_texts(child))
        self._gathered[node.order] = found
        return found

    def loud(self, node: UiNode) -> bool:
        """Something under (or at) the node is more than text to read: a control, a WebView,
        a wheel, or a text with a state (selected, focused, disabled) a merged line would lose."""
        known = self._loud.get(node.order)
        if known is None:
            own = self.visible(node) and (_is_actionable(node) or self.role(node) == "webview" or bool(states_of(node)))
            known = own or any(self.loud(c) for c in node.children)
            self._loud[node.order] = known
        return known

    def visit(
        self, node: UiNode, window: UiWindow, consumed: set[int], above: tuple[_Pending, ...] = (), web: bool = False
    ) -> None:
        """`above`: the listed ancestors; a text inside one of their labels as the listing
        shows them (cut at LABEL_MAX) — "87.0" under "87.0KB/s", a row's name under its
        description — says nothing new and is folded into that ancestor.

        `web`: inside a WebView, where pages take taps on text that no flag marks as
        clickable; there every text keeps its own line and its own spot."""
        added = None
        web = web or self.role(node) == "webview"
        if self.visible(node) and node.order not in consumed:
            added = self.consider(node, window, consumed, above, web)
        inner_above = (*above, added) if added is not None and added.label else above
        for child in node.children:
            self.visit(child, window, consumed, inner_above, web)

    def consider(
        self, node: UiNode, window: UiWindow, consumed: set[int], above: tuple[_Pending, ...], web: bool = False
    ) -> _Pending | None:
        role = self.role(node)
        label, source = self.label(node)
        if label and not _is_actionable(node) and role != "webview":
            owner = _owner(label, above)
            # Inside a page only a text repeating its ancestor's whole label goes (a tab's text
            # inside a tab labelled the same); elsewhere a clock's digits under the clock too.
            if owner is not None and (not web or label == shorten(owner.label)):
                owner.folded.append(label)
                return None
        pending = self._pending(node, window, consumed, role, label, source, () if web else above, web)
        if pending is not None:
            self.out.append(pending)
        return pending

    def _pending(
        self,
        node: UiNode,
        window: UiWindow,
        consumed: set[int],
        role: str,
        label: str,
        source: str,
        above: tuple[_Pending, ...],
        web: bool = False,
    ) -> _Pending | None:
        if _is_actionable(node):
            folded: list[str] = []
            if not label and not node.scrollable:
                inner = self.inner_texts(node)
                if inner:
                    texts = _unique(t for t, _, _ in inner)
                    label, source, folded = _JOIN.join(texts), "inner", texts
                    # A text the cut label no longer shows keeps a line of its own (a fare
                    # after a long address): only what the row's line says is used up.
                    shown = shorten(label)
                    consumed.update(order for t, order, _ in inner if t in shown)
            if not label:
                label = id_label(node)
                source = "id" if label else ""
            return _Pending(node, role, label, source, window, folded)
        if role == "webview":
            return _Pending(node, role, label or id_label(node), source or ("id" if id_label(node) else ""), window)
        if label:
            return _Pending(node, role if role != "view" else "text", label, source, window)
        return None if web else self._merged(node, window, consumed, above)

    def _merged(
        self, node: UiNode, window: UiWindow, consumed: set[int], above: tuple[_Pending, ...]
    ) -> _Pending | None:
        """The texts of a part of the screen with nothing to act on (a post's author and
        words, an app row's name and package) as one line, when that line is short enough
        to show whole: one number and one pair of quotes instead of one per text."""
        if self.loud(node):
            return None
        inner = self.inner_texts(node)
        if any(order in consumed for _, order, _ in inner):
            return None  # some are said by a row around them; the rest go one by one
        texts = _unique(t for t, _, _ in inner)
        fresh = [t for t in texts if _owner(t, above) is None]
        if len(fresh) < 2 or len(fresh) != len(texts) or len(_JOIN.join(fresh)) > LABEL_MAX:
            return None  # its texts are listed (or folded) one by one as they come
        if len(fresh) >= MIN_ITEMS and all(len(t) <= SHORT_VALUE for t in fresh):
            # Three or more short values side by side are things to pick, not a sentence: a
            # drawn wheel's rows, a keypad, a calendar's days take taps no flag announces.
            return None
        box = inner[0][2]
        for _, _, b in inner[1:]:
            box = box.union(b)
        # Where the texts are, not the whole container: a tap lands on them, and a big empty
        # container does not read as text everywhere (TreeAdequacy's blank share).
        if box.area * 10 > self.frame.area:
            return None
        consumed.update(order for _, order, _ in inner)
        return _Pending(node, "text", _JOIN.join(fresh), "inner", window, list(fresh), box)


def _unique(texts: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(texts))


def _owner(label: str, above: tuple[_Pending, ...]) -> _Pending | None:
    """The nearest listed ancestor whose shown label holds `label` whole."""
    return next((a for a in reversed(above) if label in shorten(a.label)), None)


def _drop_shadows(pending: list[_Pending]) -> list[_Pending]:
    """Nested clickables with the very same bounds are one thing to tap: keep one.

    Of several elements sharing a window and bounds, the unlabeled plain ones (not
    scrollable, editable or checkable — those do something different) go when
    another one is there; the first is kept if all are unlabeled.
    """
    groups: dict[tuple[int, Bounds], list[_Pending]] = {}
    for p in pending:
        groups.setdefault((p.window.index, p.node.bounds), []).append(p)
    drop: set[int] = set()
    for members in groups.values():
        if len(members) < 2:
            continue
        plain = [p for p in members if not p.label and not (p.node.scrollable or p.node.editable or p.node.checkable)]
        keep_first = len(plain) == len(members)
        for p in plain[1:] if keep_first else plain:
            drop.add(id(p))
    return [p for p in pending if id(p) not in drop]


def extract_elements(
    tree: UiTree, frame: Bounds | None = None, *, window_order: list[int] | None = None
) -> tuple[Element, ...]:
    """Number the meaningful nodes from 1, window by window (in `window_order`, default
    dump order), each window in reading (pre-)order."""
    frame = frame if frame is not None and not frame.empty else tree.bounds
    collector = _Collector(frame)
    by_index = {w.index: w for w in tree.windows}
    for index in window_order if window_order is not None else list(by_index):
        window = by_index[index]
        collector.visit(window.root, window, set())
    return tuple(
        Element(
            number=i,
            role=p.role,
            label=shorten(p.label),
            label_source=p.source,
            states=states_of(p.node),
            bounds=p.bounds or p.node.bounds,
            package=p.node.package or p.window.package,
            window=p.window.index,
            node=p.node,
            folded=tuple(p.folded),
            desc=extra_desc(p.node, p.label, p.source),
        )
        for i, p in enumerate(_drop_shadows(collector.out), start=1)
    )
