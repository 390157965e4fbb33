"""One on-screen element as laid out for a frame: the same object feeds the accessibility
dumps (uiautomator, uiautomator2), the Pillow renderer and hit-testing, so what the tree
says and what the pixels show cannot drift apart."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

Bounds = tuple[int, int, int, int]


@dataclass
class Node:
    cls: str
    bounds: Bounds
    package: str = ""
    text: str = ""
    rid: str = ""
    desc: str = ""
    hint: str = ""
    checkable: bool = False
    checked: bool = False
    clickable: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    long_clickable: bool = False
    password: bool = False
    selected: bool = False
    children: list[Node] = field(default_factory=list)
    # -- for the engine and the renderer, never dumped --------------------------------
    role: str = ""  # how it is painted: bar, title, button, row, text, field, switch, …
    paint: str = ""  # text that appears only in pixels (canvas pages, password dots)
    sub: str = ""  # second line of a row, painted and dumped as a child TextView
    on_tap: list[dict[str, Any]] | None = None
    on_long: list[dict[str, Any]] | None = None
    on_submit: list[dict[str, Any]] | None = None
    field: str | None = None  # the screen field an EditText or checkbox edits
    bind: str | None = None  # the data path a switch toggles
    item: Any = None  # the list item this node was built from
    list_id: str | None = None
    horizontal: bool = False  # a list that scrolls sideways (a carousel)
    wheel: dict[str, Any] | None = None  # a wheel picker: field, min, max, wrap, row (px)
    style: str = ""  # renderer hints: "big", "out", "in", "primary", "danger", …

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            yield from child.walk()

    def contains(self, x: int, y: int) -> bool:
        left, top, right, bottom = self.bounds
        return left <= x < right and top <= y < bottom

    @property
    def center(self) -> tuple[int, int]:
        left, top, right, bottom = self.bounds
        return (left + right) // 2, (top + bottom) // 2


@dataclass
class Window:
    """A top-level window: status bar, an app, the keyboard, a dialog. Listed bottom to top."""

    kind: str  # "status", "app", "ime", "dialog", "keyguard", "toast"
    root: Node
    title: str
    package: str
    secure: bool = False
