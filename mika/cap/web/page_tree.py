"""A page's accessibility tree as the platform-free `UiTree` the listing reads.

Pure. Two inputs, both plain JSON as Chromium's DevTools protocol gives them:

* `ax_nodes`: `Accessibility.getFullAXTree` nodes of the main frame, followed by those of
  child frames (whose node ids the port has made unique);
* `layout`: what `layout_from_snapshot` makes of one `DOMSnapshot.captureSnapshot` and
  `Page.getLayoutMetrics` — per backendNodeId the viewport box and the facts the AX tree
  does not carry (password inputs, scroll containers, click handlers), the viewport, the
  scroll offset, the page's host and which node owns which child frame.

Nodes become `UiNode`s with class_name "web.<role>", text = the accessible name (a
paragraph's inline StaticText runs folded into it; a text repeating its parent's name
dropped, as the phone's listing folds a clock's digits), hint = placeholder or
description, and resource_id "web:<backendNodeId>". A password input's value never
enters the tree (the AX value is bullets anyway; the snapshot's input values are not read).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mika.uistate.tree import EMPTY_BOUNDS, MAX_DEPTH, Bounds, UiNode, UiTree, UiWindow

NAME_MAX = 2000  # characters of one accessible name kept in the tree (the listing cuts to 80)
_WS = re.compile(r"\s+")

# Roles a person acts on by clicking.
CLICK_ROLES = frozenset(
    {
        "link",
        "button",
        "checkbox",
        "radio",
        "switch",
        "tab",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "option",
        "combobox",
        "textbox",
        "searchbox",
        "slider",
        "spinbutton",
        "treeitem",
        "disclosuretriangle",
        "popupbutton",
        "togglebutton",
    }
)
CHECK_ROLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})
EDIT_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
# Roles that only hold text: their StaticText runs become their own text.
_SKIP_ROLES = frozenset({"InlineTextBox", "LineBreak", "ListMarker"})
_INTERNAL_NAMES = {
    "RootWebArea": "document",
    "WebArea": "document",
    "StaticText": "text",
    "Iframe": "iframe",
    "IframePresentational": "iframe",
}
# Containers without a name that say nothing by themselves and hold one thing: dropped.
_PLAIN = frozenset({"generic", "none", "presentation", "group", "section", "div"})


@dataclass
class _N:
    role: str
    bid: int | None = None
    text: str = ""
    hint: str = ""
    props: dict[str, Any] = field(default_factory=dict)
    children: list[_N] = field(default_factory=list)
    run: bool = False  # a StaticText run of its parent (joined to its neighbours without a space)
    more: list[int] = field(default_factory=list)  # backendNodeIds of runs merged into this text


def _clean(text: str) -> str:
    text = _WS.sub(" ", text or "").strip()
    return text if len(text) <= NAME_MAX else text[: NAME_MAX - 1] + "…"


def _value(entry: Any) -> Any:
    return entry.get("value") if isinstance(entry, dict) else None


def _role(node: dict[str, Any]) -> str:
    raw = str(_value(node.get("role")) or "none")
    return _INTERNAL_NAMES.get(raw, raw[:1].lower() + raw[1:] if raw[:1].isupper() and raw not in _SKIP_ROLES else raw)


def _props(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for prop in node.get("properties") or ():
        if isinstance(prop, dict) and "name" in prop:
            out[str(prop["name"])] = _value(prop.get("value"))
    return out


def _name_is_placeholder(node: dict[str, Any]) -> bool:
    name = node.get("name") or {}
    for source in name.get("sources") or ():
        if not isinstance(source, dict) or source.get("superseded") or "value" not in source:
            continue
        # The first source with a value is the one the name came from.
        return source.get("attribute") == "placeholder" or source.get("type") == "placeholder"
    return False


def _bid(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


class _Builder:
    def __init__(self, ax_nodes: list[dict[str, Any]], layout: dict[str, Any]) -> None:
        self.by_id: dict[str, dict[str, Any]] = {}
        for n in ax_nodes:
            if isinstance(n, dict) and "nodeId" in n:
                self.by_id.setdefault(str(n["nodeId"]), n)
        self.layout_nodes: dict[int, dict[str, Any]] = {
            int(k): v for k, v in (layout.get("nodes") or {}).items() if _bid(k) is not None and isinstance(v, dict)
        }
        # frameId of a child frame → backendNodeId of its <iframe> element
        self.frame_owner: dict[str, int] = {
            str(k): int(v) for k, v in (layout.get("frames") or {}).items() if _bid(v) is not None
        }
        self.warnings: list[str] = []
        self._cut = False
        self.frame_roots: dict[str, list[dict[str, Any]]] = {}

    def roots(self) -> list[dict[str, Any]]:
        return [n for n in self.by_id.values() if str(n.get("parentId") or "") not in self.by_id]

    def convert(self, node: dict[str, Any], depth: int, seen: set[str]) -> list[_N]:
        node_id = str(node.get("nodeId"))
        if node_id in seen:
            return []  # a cycle in odd input
        seen.add(node_id)
        if depth > MAX_DEPTH:
            if not self._cut:
                self.warnings.append(f"the page nests deeper than {MAX_DEPTH} levels; deeper parts are left out")
                self._cut = True
            return []
        raw_role = str(_value(node.get("role")) or "")
        if raw_role in _SKIP_ROLES:
            return []
        kids: list[_N] = []
        for cid in node.get("childIds") or ():
            child = self.by_id.get(str(cid))
            if child is not None:
                kids.extend(self.convert(child, depth + 1, seen))
        # A child frame's document hangs under its <iframe> element.
        bid = _bid(node.get("backendDOMNodeId"))
        if bid is not None:
            for frame_id, owner in self.frame_owner.items():
                if owner == bid:
                    for root in self.frame_roots.get(frame_id, ()):
                        kids.extend(self.convert(root, depth + 1, seen))
        if node.get("ignored"):
            return kids
        role = _role(node)
        name = _clean(str(_value(node.get("name")) or ""))
        if role == "text":
            # Runs keep their edge spaces until joined: "He" + "llo" is one word, "with " + "bold" two.
            raw = _WS.sub(" ", str(_value(node.get("name")) or ""))[:NAME_MAX]
            return [_N("text", bid, raw, run=True)] if raw.strip() else []
        props = _props(node)
        hint = ""
        if name and _name_is_placeholder(node):
            hint, name = name, ""
        description = _clean(str(_value(node.get("description")) or ""))
        if description and not hint and description != name:
            hint = description
        out = _N(role, bid, name, hint, props)
        if role in EDIT_ROLES or (props.get("editable") and role not in ("generic", "none")):
            kids = []  # what a field holds is its value, not lines of the page (and a password's bullets)
        kids = _merge_runs(kids)
        texts = [k for k in kids if k.role == "text" and not k.children]
        if name and role in CLICK_ROLES:
            # A control's content is its name (an icon, a label's words): no lines of its own.
            kids = [k for k in kids if k not in texts]
        elif name:
            # A text saying what the node's name says already is not a line of its own.
            key = name.casefold()
            kids = [k for k in kids if not (k in texts and _clean(k.text).casefold() in key)]
        elif texts and len(texts) == len(kids) and role not in CLICK_ROLES | {"document", "iframe"}:
            # A paragraph's inline runs ("Some text " + "bold") are one text.
            out.text = _clean(_join(texts))
            out.bid = out.bid if out.bid is not None else texts[0].bid
            kids = []
        out.children = kids
        facts = self.layout_nodes.get(bid) if bid is not None else None
        if (
            role in _PLAIN
            and not name
            and not hint
            and len(kids) == 1
            and not (facts and (facts.get("scrollable") or facts.get("clickable")))
        ):
            kids[0].run = False  # a text lifted out of its own box is not an inline run
            return kids
        if (
            role in _PLAIN
            and not out.text
            and not kids
            and not (facts and (facts.get("clickable") or facts.get("scrollable")))
        ):
            return []
        return [out]


def _merge_runs(kids: list[_N]) -> list[_N]:
    """Neighbouring inline runs ("A paragraph with " + "bold" + " and ") are one text; a
    link between them keeps its own line."""
    out: list[_N] = []
    for k in kids:
        prev = out[-1] if out else None
        if prev is not None and prev.run and k.run and not prev.children and not k.children:
            extra = [b for b in (*k.more, k.bid) if b is not None]
            out[-1] = _N("text", prev.bid, prev.text + k.text, run=True, more=[*prev.more, *extra])
        else:
            out.append(k)
    return out


def _join(texts: list[_N]) -> str:
    out = ""
    for i, t in enumerate(texts):
        glue = "" if i == 0 or (t.run and texts[i - 1].run) else " "
        out += glue + t.text
    return out


def _box(facts: dict[str, Any] | None) -> Bounds:
    if not facts:
        return EMPTY_BOUNDS
    box = facts.get("bounds")
    if not isinstance(box, list | tuple) or len(box) != 4:
        return EMPTY_BOUNDS
    try:
        left, top, right, bottom = (round(float(v)) for v in box)
    except (TypeError, ValueError):
        return EMPTY_BOUNDS
    if right < left or bottom < top:
        return EMPTY_BOUNDS
    return Bounds(left, top, right, bottom)


class _Finisher:
    def __init__(self, builder: _Builder, viewport: Bounds, host: str) -> None:
        self.b = builder
        self.viewport = viewport
        self.host = host
        self.order = 0

    def bounds_of(self, n: _N, kids: Iterable[UiNode]) -> Bounds:
        own = _box(self.b.layout_nodes.get(n.bid)) if n.bid is not None else EMPTY_BOUNDS
        for more in n.more:
            own = own.union(_box(self.b.layout_nodes.get(more)))
        if not own.empty:
            return own
        out = EMPTY_BOUNDS
        for k in kids:
            out = out.union(k.bounds)
        return out

    def finish(self, n: _N, depth: int, index: int, is_root: bool = False) -> UiNode:
        my_order = self.order
        self.order += 1
        kids = tuple(self.finish(k, depth + 1, i) for i, k in enumerate(n.children))
        facts = self.b.layout_nodes.get(n.bid, {}) if n.bid is not None else {}
        props = n.props
        role = n.role
        bounds = self.viewport if is_root else self.bounds_of(n, kids)
        editable = (role in EDIT_ROLES and (role != "combobox" or bool(props.get("editable")))) or (
            bool(props.get("editable")) and role not in ("generic", "text", "none", "document")
        )
        editable = editable and not props.get("readonly")
        password = bool(facts.get("password"))
        placeholder = str(facts.get("placeholder") or "")
        checked_value = props.get("checked", props.get("pressed"))
        checkable = role in CHECK_ROLES or "pressed" in props
        # A <label> forwards clicks to its field, which has a line of its own.
        clickable = role in CLICK_ROLES or (bool(facts.get("clickable")) and role != "labelText")
        visible = not bounds.empty and not bounds.intersection(self.viewport).empty
        return UiNode(
            class_name=f"web.{role}",
            text="" if password or is_root else _clean(n.text),
            resource_id=f"web:{n.bid}" if n.bid is not None else "",
            hint=n.hint or (placeholder if editable and placeholder != _clean(n.text) else ""),
            package=self.host,
            bounds=bounds,
            clickable=clickable and not editable and not is_root,
            checkable=checkable,
            checked=str(checked_value).lower() in ("true", "mixed"),
            enabled=not props.get("disabled"),
            focusable=bool(props.get("focusable")),
            focused=bool(props.get("focused")) and not is_root,
            scrollable=bool(facts.get("scrollable")) and not is_root,
            selected=bool(props.get("selected")),
            password=password,
            editable=editable,
            visible_to_user=visible or is_root,
            window=0,
            index=index,
            order=my_order,
            depth=depth,
            children=kids,
        )


def build_tree(ax_nodes: list[dict[str, Any]], layout: dict[str, Any]) -> UiTree:
    """One-window `UiTree` of the page (see the module doc); odd input gives a smaller tree
    and a warning, never an exception."""
    builder = _Builder(ax_nodes if isinstance(ax_nodes, list) else [], layout if isinstance(layout, dict) else {})
    layout = layout if isinstance(layout, dict) else {}
    width, height = _pair(layout.get("viewport"), (1280, 800))
    viewport = Bounds(0, 0, width, height)
    host = str(layout.get("host") or "")
    roots = builder.roots()
    frame_roots: dict[str, list[dict[str, Any]]] = {}
    main: list[dict[str, Any]] = []
    for r in roots:
        fid = str(r.get("frameId") or "")
        if fid and fid in builder.frame_owner:
            frame_roots.setdefault(fid, []).append(r)
        else:
            main.append(r)
    builder.frame_roots = frame_roots
    top = _N("document")
    seen: set[str] = set()
    for i, r in enumerate(main):
        converted = builder.convert(r, 1, seen)
        if i == 0 and len(converted) == 1 and converted[0].role == "document":
            top = converted[0]
        else:
            top.children.extend(converted)
    # Child frames whose <iframe> element is not in the tree still show, at the end.
    for frs in frame_roots.values():
        for r in frs:
            if str(r.get("nodeId")) not in seen:
                top.children.extend(builder.convert(r, 1, seen))
    if not builder.by_id:
        builder.warnings.append("the page gave no accessibility tree")
    root = _Finisher(builder, viewport, host).finish(top, 0, 0, is_root=True)
    window = UiWindow(index=0, root=root, package=host, display_id=None, bounds=viewport)
    return UiTree(rotation=0, windows=(window,), format="web", warnings=tuple(builder.warnings))


def _pair(value: Any, default: tuple[int, int]) -> tuple[int, int]:
    try:
        a, b = value
        return max(1, int(a)), max(1, int(b))
    except (TypeError, ValueError):
        return default


# ---------------------------------------------------------------- the layout facts


def _strings(snapshot: dict[str, Any]) -> list[str]:
    return [str(s) for s in snapshot.get("strings") or ()]


def _rare(table: Any) -> dict[int, Any]:
    """DOMSnapshot's "rare" columns: {index: [...], value: [...]} (value absent for booleans)."""
    if not isinstance(table, dict):
        return {}
    index = table.get("index") or []
    values = table.get("value")
    if values is None:
        return {int(i): True for i in index}
    return {int(i): v for i, v in zip(index, values, strict=False)}


def layout_from_snapshot(
    snapshot: dict[str, Any],
    metrics: dict[str, Any],
    host: str = "",
    styles: tuple[str, ...] = ("overflow-x", "overflow-y"),
) -> dict[str, Any]:
    """The `layout` argument of `build_tree` from one `DOMSnapshot.captureSnapshot`
    (asked with `computedStyles=styles`) and `Page.getLayoutMetrics`. Boxes become
    viewport CSS px (the main document's scroll taken off, a child frame's offset by
    its <iframe> box); input values in the snapshot are never looked at."""
    strings = _strings(snapshot)

    def s(i: Any) -> str:
        return strings[i] if isinstance(i, int) and 0 <= i < len(strings) else ""

    vv = metrics.get("cssVisualViewport") or metrics.get("visualViewport") or {}
    lv = metrics.get("cssLayoutViewport") or metrics.get("layoutViewport") or {}
    size = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
    viewport = (
        round(vv.get("clientWidth") or lv.get("clientWidth") or 0),
        round(vv.get("clientHeight") or lv.get("clientHeight") or 0),
    )
    scroll = (round(vv.get("pageX") or lv.get("pageX") or 0), round(vv.get("pageY") or lv.get("pageY") or 0))
    docs = snapshot.get("documents") or []
    offsets: dict[int, tuple[float, float]] = {0: (0.0, 0.0)} if docs else {}
    nodes: dict[int, dict[str, Any]] = {}
    frames: dict[str, int] = {}
    pending = list(range(len(docs)))
    # Parents before children: a document's offset is known once its owner's box is.
    for _ in range(len(docs) + 1):
        if not pending:
            break
        later = []
        for di in pending:
            if di not in offsets:
                later.append(di)
                continue
            doc = docs[di]
            ox, oy = offsets[di]
            ox -= float(doc.get("scrollOffsetX") or 0)
            oy -= float(doc.get("scrollOffsetY") or 0)
            dn = doc.get("nodes") or {}
            bids = dn.get("backendNodeId") or []
            names = dn.get("nodeName") or []
            attrs = dn.get("attributes") or []
            clickable = _rare(dn.get("isClickable"))
            content_doc = _rare(dn.get("contentDocumentIndex"))
            lay = doc.get("layout") or {}
            boxes: dict[int, tuple[float, float, float, float]] = {}
            for j, ni in enumerate(lay.get("nodeIndex") or []):
                try:
                    x, y, w, h = (float(v) for v in (lay.get("bounds") or [])[j])
                except (IndexError, TypeError, ValueError):
                    continue
                # An <iframe>'s document starts inside its border (clientLeft/Top).
                client = (lay.get("clientRects") or [])[j] if j < len(lay.get("clientRects") or []) else []
                inset = (
                    (float(client[0]), float(client[1]))
                    if isinstance(client, list) and len(client) == 4
                    else (0.0, 0.0)
                )
                boxes[ni] = (x + inset[0], y + inset[1], w, h)
                fact: dict[str, Any] = {"bounds": [x + ox, y + oy, x + ox + w, y + oy + h]}
                style = lay.get("styles") or []
                if j < len(style) and len(style[j]) >= 2 and ni < len(names) and s(names[ni]) not in ("HTML", "BODY"):
                    overflow = {s(style[j][0]), s(style[j][1])}
                    scroll_rect = lay.get("scrollRects") or []
                    client_rect = lay.get("clientRects") or []
                    if overflow & {"auto", "scroll"} and j < len(scroll_rect) and j < len(client_rect):
                        sr, cr = scroll_rect[j], client_rect[j]
                        if len(sr) == 4 and len(cr) == 4 and (sr[2] > cr[2] + 1 or sr[3] > cr[3] + 1):
                            fact["scrollable"] = True
                if ni < len(bids):
                    nodes[int(bids[ni])] = fact
            for ni, bid in enumerate(bids):
                placeholder = _attr(ni, names, attrs, s, "placeholder")
                password = _is_password(ni, names, attrs, s)
                if not (ni in clickable or password or placeholder):
                    continue
                extra = nodes.setdefault(int(bid), {})
                if ni in clickable:
                    extra["clickable"] = True
                if password:
                    extra["password"] = True
                if placeholder:
                    extra["placeholder"] = _clean(placeholder)
            for ni, child in content_doc.items():
                if ni in boxes and isinstance(child, int) and 0 <= child < len(docs):
                    x, y, _, _ = boxes[ni]
                    offsets[child] = (x + ox, y + oy)
                    fid = docs[child].get("frameId")
                    fid = s(fid) if isinstance(fid, int) else str(fid or "")
                    if fid and ni < len(bids):
                        frames[fid] = int(bids[ni])
        pending = later
    page_size = (round(size.get("width") or 0), round(size.get("height") or 0))
    return {
        "viewport": list(viewport),
        "scroll": list(scroll),
        "page_size": list(page_size),
        "host": host,
        "nodes": nodes,
        "frames": frames,
    }


def scrub_snapshot(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Drop what fields hold from a DOM snapshot before anything reads it: the input values,
    and the `value` attribute of password inputs (a page may write a password there)."""
    strings = snapshot.get("strings")
    strings = strings if isinstance(strings, list) else []

    def s(i: Any) -> str:
        return str(strings[i]) if isinstance(i, int) and 0 <= i < len(strings) else ""

    for doc in snapshot.get("documents") or ():
        nodes = doc.get("nodes") or {}
        nodes.pop("inputValue", None)
        nodes.pop("textValue", None)
        names = nodes.get("nodeName") or []
        attrs = nodes.get("attributes") or []
        for ni in range(min(len(names), len(attrs))):
            if not _is_password(ni, names, attrs, s):
                continue
            flat = attrs[ni] or []
            for k in range(0, len(flat) - 1, 2):
                if s(flat[k]).lower() == "value" and isinstance(flat[k + 1], int) and 0 <= flat[k + 1] < len(strings):
                    strings[flat[k + 1]] = ""
    return snapshot


def _attr(ni: int, names: list[Any], attrs: list[Any], s: Any, wanted: str) -> str:
    if ni >= len(names) or s(names[ni]) not in ("INPUT", "TEXTAREA") or ni >= len(attrs):
        return ""
    flat = attrs[ni] or []
    for k in range(0, len(flat) - 1, 2):
        if s(flat[k]).lower() == wanted:
            return s(flat[k + 1])
    return ""


def _is_password(ni: int, names: list[Any], attrs: list[Any], s: Any) -> bool:
    return (
        s(names[ni]) == "INPUT" and _attr(ni, names, attrs, s, "type").strip().lower() == "password"
        if ni < len(names)
        else False
    )
