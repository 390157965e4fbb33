"""Reading the current tab into a versioned `Screen`, the way the phone reads a display.

`port.read()` gives the page's accessibility tree as a `UiTree` (no raw HTML ever comes
this far); `build_screen` numbers the elements in the viewport, and one `ScreenTracker`
hands out the versions, so an element number is tied to the page the model saw. A new
main document (a navigation, a reload) gets new numbers even when it happens to look the
same: a number shown on the page before can never press a button of the page after.

`read_all` numbers every element of the document, not just the viewport
(web_list_elements); its numbers are as good as the viewport's for tapping, because
the tap scrolls the element into view first.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from mika.cap.web.port import PageRead, WebPort
from mika.cap.web.sites import registrable_domain
from mika.uistate import Bounds, Screen, ScreenTracker, UiNode, UiTree, build_screen
from mika.uistate.elements import extract_elements
from mika.uistate.windows import classify_windows


def without_fragment(url: str) -> str:
    return (url or "").split("#", 1)[0]


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def site_of(url: str) -> str:
    """The registrable domain of an address (the site pages are counted by, and the `app`
    of an action's target); the host when it has none."""
    return registrable_domain(url) or host_of(url)


def tree_key(tree: UiTree) -> str:
    """A digest of what the page says and how its controls stand, without where they are
    and without the focus: a scroll or a click that only focused a button is no change of
    the page's content (the scroll position is compared on its own)."""
    h = hashlib.sha1()
    for n in tree.nodes():
        h.update(
            repr(
                (n.class_name, n.safe_text, n.content_desc, n.hint, n.checked, n.selected, n.enabled, n.password)
            ).encode("utf-8", "replace")
        )
    return h.hexdigest()


@dataclass(frozen=True)
class PageFacts:
    """What the surface compares before and after an action."""

    url: str
    document: str
    key: str
    scroll: tuple[int, int]
    dialog: str
    loading: bool

    @staticmethod
    def of(read: PageRead) -> PageFacts:
        return PageFacts(
            read.state.url,
            read.document,
            tree_key(read.tree),
            tuple(read.scroll),  # type: ignore[arg-type]
            read.dialog,
            read.state.loading,
        )

    def same_place(self, other: PageFacts) -> bool:
        return without_fragment(self.url) == without_fragment(other.url) and self.document == other.document


def _all_visible(node: UiNode) -> UiNode:
    kids = tuple(_all_visible(c) for c in node.children)
    if node.visible_to_user and kids == node.children:
        return node
    return replace(node, visible_to_user=True, children=kids)


def _document_frame(tree: UiTree, viewport: tuple[int, int]) -> Bounds:
    frame = Bounds(0, 0, viewport[0], viewport[1])
    for n in tree.nodes():
        if not n.bounds.empty:
            frame = frame.union(n.bounds)
    return frame


def whole_page_screen(read: PageRead) -> Screen:
    """Every element of the document numbered, off-screen ones too (their bounds lie
    outside the viewport)."""
    tree = replace(read.tree, windows=tuple(replace(w, root=_all_visible(w.root)) for w in read.tree.windows))
    frame = _document_frame(tree, read.viewport)
    return Screen(
        tree=tree,
        elements=extract_elements(tree, frame),
        windows=classify_windows(tree, frame),
        size=read.viewport,
        notes=("whole page",),
    )


class WebReader:
    def __init__(self, port: WebPort) -> None:
        self.port = port
        self.tracker = ScreenTracker()
        self.shown_version: int | None = None  # the version whose listing the model last got
        self.last: PageRead | None = None  # the last read of the page
        self.tabs = 1  # tabs open, as last seen
        self._lock = asyncio.Lock()
        self._stale = False
        # The last listing shown numbered the whole document (web_list_elements): the
        # reads that check an action's number against it number the whole document too.
        self.whole_shown = False

    @property
    def current(self) -> Screen | None:
        return None if self._stale else self.tracker.current

    @property
    def facts(self) -> PageFacts | None:
        return PageFacts.of(self.last) if self.last is not None else None

    def forget(self) -> None:
        """Someone else may have used the page (a takeover): read it afresh first."""
        self._stale = True

    async def read_page(self) -> PageRead:
        """One read of the page, without numbering it (the settle's polls)."""
        return await self.port.read()

    async def read(self, *, whole: bool | None = None, page: PageRead | None = None) -> Screen:
        """A read of the page, numbered; `whole` None: the way the last listing shown was."""
        if whole is None:
            whole = self.whole_shown
        async with self._lock:
            read = page if page is not None else await self.port.read()
            screen = whole_page_screen(read) if whole else build_screen(read.tree, size=read.viewport)
            if self.last is not None and (read.document != self.last.document or read.state.tab != self.last.state.tab):
                # Another document (or tab): every number shown so far is stale.
                self.tracker.mark_moved()
            self.last = read
            self._stale = False
            return self.tracker.update(screen)

    async def count_tabs(self) -> int:
        try:
            self.tabs = len(await self.port.tabs()) or 1
        except Exception:  # the count is a remark in the head line; a failure must not break a read
            pass
        return self.tabs

    def mark_shown(self, screen: Screen) -> None:
        self.shown_version = screen.version
        self.whole_shown = "whole page" in screen.notes
