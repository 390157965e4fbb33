"""The platform's UI tree as plain values, and the parser for Android hierarchy dumps.

Two dump formats reach us and both go through `parse_hierarchy`:

* `uiautomator dump`: one line, one window, `<?xml … standalone='yes' ?>` header, no
  `visible-to-user` / `display-id` (older Androids) and sometimes no header at all.
* uiautomator2 `dump_hierarchy()`: pretty-printed, several top-level `<node>`s (one per
  window: status bar, gesture overlays, the app, dialogs) with `visible-to-user`,
  `drawing-order`, `hint`, `display-id`.

Bounds are kept exactly as the device reported them (already in the rotated frame, so a
landscape dump has 1920-wide roots); a dialog-only dump keeps roots that do not start at
0,0. Text is kept as it came — mojibake included — because "fixing" it would be a guess.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field

from mika.uistate.errors import HierarchyError


@dataclass(frozen=True)
class Bounds:
    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return max(0, self.right - self.left)

    @property
    def height(self) -> int:
        return max(0, self.bottom - self.top)

    @property
    def area(self) -> int:
        return self.width * self.height

    @property
    def empty(self) -> bool:
        return self.area == 0

    @property
    def centre(self) -> tuple[int, int]:
        return ((self.left + self.right) // 2, (self.top + self.bottom) // 2)

    def contains(self, x: float, y: float) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom

    def intersection(self, other: Bounds) -> Bounds:
        left, top = max(self.left, other.left), max(self.top, other.top)
        right, bottom = min(self.right, other.right), min(self.bottom, other.bottom)
        if right <= left or bottom <= top:
            return Bounds(0, 0, 0, 0)
        return Bounds(left, top, right, bottom)

    def union(self, other: Bounds) -> Bounds:
        if self.empty:
            return other
        if other.empty:
            return self
        return Bounds(
            min(self.left, other.left),
            min(self.top, other.top),
            max(self.right, other.right),
            max(self.bottom, other.bottom),
        )

    def as_list(self) -> list[int]:
        return [self.left, self.top, self.right, self.bottom]

    def __str__(self) -> str:
        return f"[{self.left},{self.top}][{self.right},{self.bottom}]"


EMPTY_BOUNDS = Bounds(0, 0, 0, 0)
MAX_DEPTH = 300  # Android's own view trees stay far below this; deeper input is garbage

# Classes that take typed text; dumps carry no `editable` attribute, so the class decides.
_EDITABLE_CLASSES = (
    "EditText",
    "AutoCompleteTextView",
    "MultiAutoCompleteTextView",
    "SearchAutoComplete",
    "ExtractEditText",
    "TextInputEditText",
)


@dataclass(frozen=True)
class UiNode:
    """One node of the tree. `text` is raw: never show it for password nodes."""

    class_name: str
    text: str = ""
    resource_id: str = ""
    content_desc: str = ""
    hint: str = ""
    package: str = ""
    bounds: Bounds = EMPTY_BOUNDS
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    selected: bool = False
    password: bool = False
    editable: bool = False
    visible_to_user: bool = True
    naf: bool = False  # "not accessibility friendly": uiautomator's mark for unlabeled controls
    display_id: int | None = None
    window: int = 0  # index of the top-level window this node belongs to
    drawing_order: int | None = None
    index: int = 0  # position among its siblings, as the dump says
    order: int = 0  # pre-order position in the whole tree; unique per tree
    depth: int = 0
    children: tuple[UiNode, ...] = ()

    @property
    def short_class(self) -> str:
        return self.class_name.rsplit(".", 1)[-1]

    @property
    def short_id(self) -> str:
        """`com.app:id/send_btn` → `send_btn`."""
        rid = self.resource_id
        return rid.split(":id/", 1)[1] if ":id/" in rid else rid

    @property
    def safe_text(self) -> str:
        """The text fit for showing anyone: nothing from password fields."""
        return "" if self.password else self.text

    def walk(self) -> Iterator[UiNode]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(frozen=True)
class UiWindow:
    index: int
    root: UiNode
    package: str
    display_id: int | None
    bounds: Bounds


@dataclass(frozen=True)
class UiTree:
    rotation: int
    windows: tuple[UiWindow, ...]
    format: str  # "uiautomator" (one window) or "u2" (uiautomator2 multi-window)
    warnings: tuple[str, ...] = field(default=())

    def nodes(self) -> Iterator[UiNode]:
        for window in self.windows:
            yield from window.root.walk()

    @property
    def bounds(self) -> Bounds:
        """Union of the window roots: the part of the screen the dump covers."""
        out = EMPTY_BOUNDS
        for window in self.windows:
            out = out.union(window.bounds)
        return out

    @property
    def display_ids(self) -> tuple[int, ...]:
        return tuple(sorted({w.display_id for w in self.windows if w.display_id is not None}))

    def node_count(self) -> int:
        return sum(1 for _ in self.nodes())


_BOUNDS_RE = re.compile(r"\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]")
# XML 1.0 forbids these characters even as references; Android writes them anyway
# (e.g. a NUL inside a chat message). They are replaced, not dropped, so offsets in
# the text stay comparable with what the app shows.
_BAD_CHAR_REF = re.compile(r"&#(?:x0*(?:[0-8bBcCeE]|1[0-9a-fA-F])|0*(?:[0-8]|1[124-9]|2[0-9]|3[01]));")
_SURROGATES = re.compile("[\ud800-\udfff]")
_BAD_RAW_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def parse_bounds(value: str) -> Bounds | None:
    m = _BOUNDS_RE.fullmatch(value.strip()) if value else None
    if not m:
        return None
    left, top, right, bottom = (int(g) for g in m.groups())
    return Bounds(left, top, right, bottom)


def _decode(xml: str | bytes) -> str:
    if isinstance(xml, str):
        # Lone surrogates (from a mis-decoded capture) cannot be XML; make them U+FFFD.
        return _SURROGATES.sub("\ufffd", xml).lstrip("\ufeff")
    data = bytes(xml)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        # A dump saved through a UTF-16 shell redirect (PowerShell) is still a dump.
        return data.decode("utf-16").lstrip("\ufeff")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    # Mojibake is kept as is; only bytes that are not UTF-8 at all get replaced.
    return data.decode("utf-8", errors="replace")


def _isolate(text: str) -> str:
    """Cut the `<hierarchy>…</hierarchy>` element out of whatever surrounds it.

    `adb shell uiautomator dump /dev/tty` appends "UI hierchary dumped to: /dev/tty";
    some tools prefix log lines. Neither is part of the tree.
    """
    start = text.find("<hierarchy")
    if start < 0:
        stripped = text.strip()
        if not stripped:
            raise HierarchyError("the dump is empty", kind="empty")
        lowered = stripped.lower()
        if "null root node" in lowered:
            raise HierarchyError(
                "the device returned no window (null root node)", excerpt=stripped[:60], kind="null_root"
            )
        if "could not get idle state" in lowered:
            raise HierarchyError(
                "the screen never went idle long enough to dump", excerpt=stripped[:60], kind="idle_timeout"
            )
        raise HierarchyError("there is no <hierarchy> element", excerpt=stripped[:60], kind="no_hierarchy")
    end = text.rfind("</hierarchy>")
    if end < 0:
        # `<hierarchy rotation="0"/>` is a valid, empty dump.
        selfclosed = re.match(r"<hierarchy\b[^>]*/>", text[start:])
        if selfclosed:
            return selfclosed.group(0)
        raise HierarchyError(
            "the dump is truncated: it never closes </hierarchy>", excerpt=text[start : start + 60], kind="truncated"
        )
    head = text[:start]
    if "<!DOCTYPE" in head or "<!ENTITY" in text[start:end]:
        # Device dumps never declare entities; refusing them rules out entity bombs.
        raise HierarchyError("the dump declares a DOCTYPE or entities, which a device dump never does", kind="doctype")
    return text[start : end + len("</hierarchy>")]


def _flag(attrs: dict[str, str], name: str, default: bool = False) -> bool:
    value = attrs.get(name)
    if value is None:
        return default
    return value.strip().lower() == "true"


def _int(attrs: dict[str, str], name: str) -> int | None:
    value = attrs.get(name)
    if value is None or not value.strip().lstrip("-").isdigit():
        return None
    return int(value)


class _Builder:
    def __init__(self) -> None:
        self.order = 0
        self.warnings: list[str] = []

    def node(self, el: ET.Element, window: int, depth: int, inherited_display: int | None) -> UiNode:
        if depth > MAX_DEPTH:
            raise HierarchyError(
                f"nodes are nested deeper than {MAX_DEPTH} levels, which no real screen is", kind="too_deep"
            )
        attrs = el.attrib
        order = self.order
        self.order += 1
        raw_bounds = attrs.get("bounds", "")
        bounds = parse_bounds(raw_bounds)
        if bounds is None:
            if raw_bounds:
                self.warnings.append(f"node {order} has unreadable bounds {raw_bounds!r}; treated as empty")
            bounds = EMPTY_BOUNDS
        class_name = attrs.get("class", "")
        display_id = _int(attrs, "display-id")
        if display_id is None:
            display_id = inherited_display
        children = tuple(self.node(child, window, depth + 1, display_id) for child in el if child.tag == "node")
        editable = _flag(attrs, "editable") or class_name.endswith(_EDITABLE_CLASSES)
        return UiNode(
            class_name=class_name,
            text=attrs.get("text", ""),
            resource_id=attrs.get("resource-id", ""),
            content_desc=attrs.get("content-desc", ""),
            hint=attrs.get("hint", ""),
            package=attrs.get("package", ""),
            bounds=bounds,
            clickable=_flag(attrs, "clickable"),
            long_clickable=_flag(attrs, "long-clickable"),
            checkable=_flag(attrs, "checkable"),
            checked=_flag(attrs, "checked"),
            enabled=_flag(attrs, "enabled", True),
            focusable=_flag(attrs, "focusable"),
            focused=_flag(attrs, "focused"),
            scrollable=_flag(attrs, "scrollable"),
            selected=_flag(attrs, "selected"),
            password=_flag(attrs, "password"),
            editable=editable,
            visible_to_user=_flag(attrs, "visible-to-user", True),
            naf=_flag(attrs, "NAF"),
            display_id=display_id,
            window=window,
            drawing_order=_int(attrs, "drawing-order"),
            index=_int(attrs, "index") or 0,
            order=order,
            depth=depth,
            children=children,
        )


def _parse_xml(text: str) -> ET.Element:
    try:
        return ET.fromstring(text)
    except ET.ParseError:
        pass
    repaired = _BAD_RAW_CHARS.sub("\ufffd", _BAD_CHAR_REF.sub("\ufffd", text))
    try:
        return ET.fromstring(repaired)
    except ET.ParseError as exc:
        raise HierarchyError(f"it is not well-formed XML ({exc})") from None


def parse_hierarchy(xml: str | bytes) -> UiTree:
    """Parse either dump format into a `UiTree`; raise `HierarchyError` if it isn't one."""
    text = _isolate(_decode(xml))
    root = _parse_xml(text)
    if root.tag != "hierarchy":
        raise HierarchyError(f"the root element is <{root.tag}>, not <hierarchy>")
    rotation = _int(root.attrib, "rotation") or 0
    builder = _Builder()
    windows: list[UiWindow] = []
    for el in root:
        if el.tag != "node":
            continue
        index = len(windows)
        node = builder.node(el, index, 0, None)
        windows.append(
            UiWindow(index=index, root=node, package=node.package, display_id=node.display_id, bounds=node.bounds)
        )
    u2_marks = ("visible-to-user", "display-id")
    is_u2 = len(windows) > 1 or any(mark in text[:4000] for mark in u2_marks)
    return UiTree(
        rotation=rotation,
        windows=tuple(windows),
        format="u2" if is_u2 else "uiautomator",
        warnings=tuple(builder.warnings),
    )
