"""The compact text the model reads for a screen: one line per element, never XML.

    Screen v3 · com.tencent.mm · 720x1608
    == app
    1 button "搜索"
    2 item "张三 · 你好 · 12:01"
    3 input "Search" (hint) focused
    4 list #chat_list
    5 text "Orders · Out for delivery · ¥68.00"
    == status bar com.android.systemui
    9 text "12:30"

Labels come from text, then content-desc, then hint (marked), then a readable
resource-id (`#name`); an element with none of these shows where it is (`@x,y`). A
text label is followed by the content-desc in parentheses when that says more
(`button "−" ("Decrease brightness")`): an icon's text alone often names nothing.
Password text never appears: a password field shows its hint and `password filled`.

What a line leaves out because it is said already (benchmarks/listing_tokens.py measures
it, mika.uistate.recall checks nothing the model can act on is lost): a window header
names its package only when it is not the foreground app the head names; a `list`
line does not add `scrollable`, an `input` line not `editable` (the role says it; the
Element keeps every state); texts with nothing to act on between them share a line
(mika.uistate.elements).

Its fixed sentences (prompts/feedback/listing_*.md) are format, not instructions; short on purpose.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Protocol

from mika.resources import prompt
from mika.uistate.elements import Element
from mika.uistate.seen_text import SeenText
from mika.uistate.tree import Bounds
from mika.uistate.windows import WindowInfo


class Screen(Protocol):
    """What a listing reads of a screen (mika.uistate.screen.Screen, which renders its own
    listing with this module: so this side names only what it reads)."""

    @property
    def version(self) -> int: ...
    @property
    def size(self) -> tuple[int, int] | None: ...
    @property
    def elements(self) -> tuple[Element, ...]: ...
    @property
    def tree_blind(self) -> bool: ...
    @property
    def seen_text(self) -> tuple[SeenText, ...]: ...
    @property
    def display_id(self) -> int: ...
    @property
    def activity(self) -> str: ...
    @property
    def notes(self) -> tuple[str, ...]: ...
    @property
    def frame(self) -> Bounds: ...
    @property
    def foreground_package(self) -> str: ...
    def window(self, index: int) -> WindowInfo | None: ...


_KIND_WORDS = {
    "app": "app",
    "dialog": "dialog",
    "system": "system",
    "keyboard": "keyboard",
    "status_bar": "status bar",
    "nav_bar": "navigation bar",
    "overlay": "overlay",
}


# A state the role word already says: every `list` scrolls and every `input` takes text
# (mika.uistate.roles), so the line need not say it twice.
_IMPLIED = {"list": "scrollable", "input": "editable"}


# The fixed sentences of a listing live in prompts/feedback/ with every other text the model reads.
def _note(name: str) -> str:
    return prompt(f"feedback/listing_{name}.md")


def _quote(text: str) -> str:
    # JSON string quoting: inner quotes stay readable as \" and nothing is lost.
    return json.dumps(text, ensure_ascii=False)


def element_line(e: Element) -> str:
    if e.label_source == "id":
        label = f"#{e.label}"
    elif e.label:
        label = _quote(e.label) + (" (hint)" if e.label_source == "hint" else "")
        if e.desc:
            # What the description adds to the text: `button "−" ("Decrease brightness")`.
            label += f" ({_quote(e.desc)})"
    else:
        x, y = e.centre
        label = f"@{x},{y}"
    parts = [str(e.number), e.role, label, *(s for s in e.states if s != _IMPLIED.get(e.role))]
    return " ".join(parts)


@dataclass(frozen=True)
class ListingParts:
    """A listing cut where Mika's words and the app's meet, so the phone can fence the app's.

    `head` (version, package, size), `remarks` and `notes` (Mika's sentences) are Mika's;
    `elements` (window headers and element lines) and `seen` (text read from pixels) hold
    what the app shows.
    """

    head: str
    elements: str
    remarks: str
    seen: str
    notes: str

    def join(self) -> str:
        return "\n".join(p for p in (self.head, self.elements, self.remarks, self.seen, self.notes) if p)


def listing_parts(screen: Screen) -> ListingParts:
    head = [f"Screen v{screen.version}"]
    if screen.foreground_package:
        head.append(screen.foreground_package)
    frame = screen.frame
    # A dialog-only dump does not show how big the screen is; say nothing rather than guess.
    if not frame.empty and (screen.size or (frame.left == 0 and frame.top == 0)):
        head.append(f"{frame.right}x{frame.bottom}")
    if screen.display_id:
        head.append(f"display {screen.display_id}")
    if screen.activity:
        head.append(screen.activity)
    lines: list[str] = []
    by_window: dict[int, list[Element]] = {}
    for e in screen.elements:
        by_window.setdefault(e.window, []).append(e)
    for index, elements in by_window.items():
        info = screen.window(index)
        kind = _KIND_WORDS.get(info.kind, info.kind) if info else "window"
        package = info.package if info else ""
        # The head names the foreground app already; a window of another app is named.
        if package == screen.foreground_package:
            package = ""
        lines.append(f"== {kind} {package}".rstrip())
        lines.extend(element_line(e) for e in elements)
    remarks: list[str] = []  # Mika's sentences between the elements and the text read from pixels
    if not screen.elements:
        remarks.append(_note("empty"))
    if screen.tree_blind:
        remarks.append(_note("blind"))
    elif screen.seen_text:
        remarks.append(_note("seen"))
    seen = []
    for s in screen.seen_text:
        x, y = s.centre
        seen.append(f"- {_quote(s.text)} @{x},{y}")
    return ListingParts(
        " · ".join(head), "\n".join(lines), "\n".join(remarks), "\n".join(seen), "\n".join(screen.notes)
    )


def render_listing(screen: Screen) -> str:
    return listing_parts(screen).join()
