"""`WebPort`: what the web tools need from a browser, and the values it hands back.

The web tools, the page reader and the web surface speak only this protocol; the one
implementation is `mika.cap.web.playwright` (Playwright's async API over Chromium, with
CDP for the accessibility tree, real input events and the screencast). Keeping the line
here lets the tools be read without knowing Playwright, and keeps Playwright's imports out
of every run that never opens a page.

Coordinates are CSS pixels of the tab's viewport (what `Bounds` in a `PageRead` tree
carry). Every call acts on the run's current tab unless it names one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from mika.uistate.tree import UiTree


class WebError(Exception):
    """A browser call failed; the message is one sentence for the model or the user.

    `code` is the tool-result code the web tools report (e.g. `url_refused`,
    `navigation_failed`, `tab_limit`, `no_browser`, `page_closed`, `timeout`)."""

    def __init__(self, message: str, code: str = "web_error") -> None:
        super().__init__(message)
        self.code = code


class UrlRefused(WebError):
    """Only http(s) pages are opened: file:, chrome:, javascript:, data: … are refused."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="url_refused")


class NoBrowser(WebError):
    """No Chromium to drive; the message names both ways to get one."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="no_browser")


@dataclass(frozen=True)
class TabInfo:
    id: str  # stable for the tab's life ("t1", "t2", …)
    url: str
    title: str
    current: bool = False


@dataclass(frozen=True)
class PageState:
    """Where a tab is: its address, title, the main document's HTTP status, loading or not."""

    tab: str
    url: str
    title: str = ""
    status: int | None = None  # HTTP status of the last main-document response
    loading: bool = False
    mobile: bool = False  # the tab shows the mobile version of the site


@dataclass(frozen=True)
class PageRead:
    """One read of a tab: the accessibility tree as platform-free nodes, and facts about it.

    `tree` is a `UiTree` with one window whose nodes carry the page's roles and names
    (class_name "web.<role>", e.g. "web.button", "web.link", "web.textbox"), their
    viewport bounds in CSS px, states (checked, selected, focused, disabled via
    `enabled`), `editable` for text fields and `password` for password fields (their value
    is never read), and `resource_id` "web:<backendNodeId>" (a stable handle for the
    element while the document lives; `element_handle` turns it back into a target).
    Nodes outside the viewport are kept with `visible_to_user=False`.
    """

    state: PageState
    tree: UiTree
    viewport: tuple[int, int]  # CSS px
    scroll: tuple[int, int] = (0, 0)  # scrollX, scrollY of the main frame
    page_size: tuple[int, int] = (0, 0)  # scrollWidth, scrollHeight of the document
    frames: tuple[str, ...] = ()  # URLs of child frames (captcha frames are recognised by these)
    dialog: str = ""  # a JavaScript alert/confirm/prompt the page is showing, its text
    document: str = ""  # an id of the main document: changes when the page is replaced


@dataclass(frozen=True)
class Download:
    name: str  # the file name inside the workspace's downloads/ folder
    url: str
    size: int  # bytes written
    done: bool = True
    error: str = ""  # why it was stopped (e.g. over the size cap), "" when complete


@dataclass(frozen=True)
class WaitResult:
    met: bool
    waited_s: float
    what: str = ""  # which condition ended the wait (text / element / network quiet / timeout)


@dataclass
class ScreencastSink:
    """Where the live page pictures go (the TUI preview): JPEG bytes, the tab, the frame size."""

    on_frame: Callable[[bytes, str, tuple[int, int]], None]
    max_fps: float = 5.0  # at most this many a second (0: no cap); the newest of a burst is sent late, never dropped
    meta: dict[str, Any] = field(default_factory=dict)


class WebPort(Protocol):
    """The run's browser tabs. Every method is async; errors are `WebError`s."""

    async def open(self, url: str, *, new_tab: bool = False) -> PageState:
        """Load `url` in the current tab (or a new one) and wait for its DOM; UrlRefused
        for anything but http(s); WebError(code="tab_limit") past the tab limits."""
        ...

    async def state(self) -> PageState: ...

    async def read(self) -> PageRead:
        """The current tab's accessibility tree and facts (two CDP calls, no raw HTML)."""
        ...

    async def main_text(self, budget_chars: int) -> tuple[str, bool]:
        """The page's main text (readability-style, no menus or footers), cut to the
        budget; True when it was cut."""
        ...

    async def element_box(self, handle: str) -> tuple[float, float, float, float] | None:
        """Scroll the element (`resource_id` of a PageRead node) into view and give its
        viewport box (left, top, right, bottom); None when the element is gone."""
        ...

    async def click(self, x: float, y: float) -> None:
        """A real mouse click (move, press, release) at viewport point x, y."""
        ...

    async def focus(self, handle: str) -> bool:
        """Focus the element behind `handle`; False when it is gone."""
        ...

    async def type_text(self, text: str) -> None:
        """Type into the focused element with real key events (CJK via insertText)."""
        ...

    async def clear_focused(self) -> None:
        """Empty the focused text field (select all, delete)."""
        ...

    async def field_value(self, handle: str) -> str | None:
        """What a text field now holds (typed text is read back); "***" for a password
        field; None when the element is gone."""
        ...

    async def press_key(self, key: str) -> None:
        """A key by its DOM name: Enter, Escape, Tab, ArrowDown, PageDown, Backspace …"""
        ...

    async def scroll(self, dx: float, dy: float, at: tuple[float, float] | None = None) -> None:
        """Mouse-wheel scroll by dx, dy CSS px at a point (the viewport centre by default)."""
        ...

    async def back(self) -> bool:
        """History back in the current tab; False when there is nothing to go back to."""
        ...

    async def tabs(self) -> list[TabInfo]: ...

    async def switch_tab(self, tab: str) -> PageState: ...

    async def close_tab(self, tab: str) -> None: ...

    async def wait_for(
        self,
        *,
        text: str | None = None,
        role: str | None = None,
        name: str | None = None,
        network_quiet: bool = False,
        timeout_s: float = 10.0,
    ) -> WaitResult:
        """Wait for real conditions: a text on the page, an element (role and/or name),
        or the network to be quiet; never a fixed sleep."""
        ...

    async def screenshot(self, *, full_page: bool = False) -> bytes:
        """PNG of the current tab's viewport (or the whole page)."""
        ...

    async def evaluate_readonly(self, script: str, *, timeout_s: float = 5.0) -> Any:
        """Run `script` in an isolated world where writes, clicks, navigation and the
        network are blocked (WebError code `blocked` / `blocked_network` says which);
        password fields read as "***". Returns its JSON-able value."""
        ...

    def data_responses(self) -> int:
        """How many JSON or text responses to the page's own scripts (fetch/XHR) the
        current tab has received so far: a scroll down after which this grew loaded more
        (seed §6: that counts as a new page for the page pacing)."""
        ...

    def downloads_now(self) -> tuple[list[Download], list[str]]:
        """Without waiting: the downloads that ended so far (saved, refused or cut), and
        the names of those still coming in."""
        ...

    async def storage_state(self) -> dict[str, Any]:
        """The run's cookies and site storage (Playwright's storage-state shape), for a
        hand-over window that starts logged in like the run; WebError(code="page_closed")
        when no browser is open."""
        ...

    async def add_cookies(self, cookies: list[dict[str, Any]]) -> None:
        """Cookies a person's hand-over window made, given back to the run's browser."""
        ...

    async def downloads(self) -> list[Download]:
        """Files this run's pages downloaded into the workspace (never opened or run)."""
        ...

    def screencast(self, sink: ScreencastSink | None) -> None:
        """Send the current tab's frames to `sink` (None stops)."""
        ...

    async def close(self) -> None: ...
