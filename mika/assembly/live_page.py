"""The live page of a running run, for faces that show or drive its browser (the TUI's
preview and a takeover of a page): the faces reach a run's page only through here.

One `LivePage` per run that has the web capability. `start()` asks the capability's port
for its screencast (`port.screencast(ScreencastSink(...))`, JPEG frames of the current tab
at ≤ `max_fps`); the newest frame is kept, frames that repeat the last one are dropped,
and whoever watches (a worker thread of the preview) waits for a newer one with
`wait_newer`. `stop()` ends the screencast (no preview watches, or the run ended). The
port's frames arrive on the run's event loop; the watcher waits in its own thread, so the
hand-over is a `threading.Condition`.

A takeover of a page drives the same port: `PageInput` turns the preview's clicks and keys
(made on the preview's input thread) into the port's real input events on the run's loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mika.cap.web.port import PageState, ScreencastSink, WebError

MAX_FPS = 5.0


@dataclass(frozen=True)
class PageFrame:
    number: int  # 1, 2, … per LivePage: a watcher asks for one newer than the last it drew
    jpeg: bytes
    tab: str
    size: tuple[int, int]  # as the port reported it (the frame's pixels)


def web_port_of(capabilities: Iterable[Any]) -> Any:
    """The browser port of a run's web capability (id "web"), or None."""
    for cap in capabilities:
        if getattr(cap, "id", "") == "web" and getattr(cap, "port", None) is not None:
            return cap.port
    return None


def page_label(state: PageState | None) -> str:
    """What the preview's title line says for a page: its host, then its title (the host
    first: a narrow preview cuts the end, and where the page is matters most)."""
    if state is None:
        return ""
    host = urlsplit(state.url).hostname or ""
    title = " ".join(state.title.split())
    if len(title) > 40:
        title = title[:39] + "…"
    return " · ".join(p for p in (host, title) if p)


class LivePage:
    def __init__(
        self,
        port: Any,
        *,
        max_fps: float = MAX_FPS,
        options: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.port = port
        self.options = options  # the run's WebOptions (its viewport), when known
        self.max_fps = max(0.5, min(MAX_FPS, max_fps))
        self._clock = clock
        self._cond = threading.Condition()
        self._latest: PageFrame | None = None
        self._digest = b""
        self._delivered = 0  # the number of the last frame a watcher was given
        self._next_due = float("-inf")  # when the watcher may have the next one
        self.running = False
        self.error = ""
        self.kept = 0
        self.dropped_same = 0
        self.superseded = 0  # replaced by a newer frame before a watcher took it
        self.state: PageState | None = None
        # No cap at the port (max_fps 0): a port that thins frames by time drops the last
        # of a burst, and the screencast sends no more until the page changes again, so
        # the preview would keep a stale picture. The thinning is done here instead,
        # keeping the newest (`wait_newer`).
        self.sink = ScreencastSink(on_frame=self.on_frame, max_fps=0)

    # -- the screencast ---------------------------------------------------------------------

    def start(self) -> None:
        """Ask the port for frames of its current tab. Asked again at each web step: the
        port starts its screencast only once its browser runs, and follows a new tab
        when asked again. A port that cannot is said in `error`."""
        try:
            self.port.screencast(self.sink)
        except WebError as exc:
            self._fail(str(exc))
            return
        self.running = True
        self.error = ""

    def stop(self) -> None:
        if not self.running:
            return
        self.running = False
        try:
            self.port.screencast(None)
        except WebError:
            pass  # the browser is gone already: nothing is sent any more either way
        with self._cond:
            self._cond.notify_all()

    def on_frame(self, jpeg: bytes, tab: str, size: tuple[int, int]) -> None:
        """The port's sink: the newest frame is kept unless it repeats the last one. A
        burst faster than `max_fps` is thinned where it is watched (`wait_newer`), so the
        last frame of a burst is never the one dropped."""
        digest = hashlib.blake2b(jpeg, digest_size=16).digest()
        with self._cond:
            if digest == self._digest:
                self.dropped_same += 1
                return
            if self._latest is not None and self._latest.number > self._delivered:
                self.superseded += 1  # the watcher never saw the one this replaces
            number = self._latest.number + 1 if self._latest is not None else 1
            self._latest = PageFrame(number, bytes(jpeg), tab, (int(size[0]), int(size[1])))
            self._digest = digest
            self.kept += 1
            self._cond.notify_all()

    def latest(self) -> PageFrame | None:
        with self._cond:
            return self._latest

    def wait_newer(self, after: int, timeout: float) -> PageFrame | None:
        """The newest frame numbered above `after`, at most `max_fps` a second, waiting up
        to `timeout` s; None if none came (or the screencast failed: see `error`)."""
        deadline = self._clock() + timeout
        with self._cond:
            while True:
                now = self._clock()
                ready = self._latest is not None and self._latest.number > after
                if ready and now >= self._next_due:
                    frame = self._latest
                    assert frame is not None
                    self._delivered = frame.number
                    self._next_due = now + 1 / self.max_fps
                    return frame
                if now >= deadline or self.error:
                    return None
                # Not ready: until a frame comes; ready but early: until it is due (the
                # frame-rate cap — a newer frame arriving meanwhile replaces it).
                until = min(deadline, self._next_due) if ready else deadline
                self._cond.wait(max(0.0, until - now))

    def _fail(self, error: str) -> None:
        with self._cond:
            self.error = error
            self._cond.notify_all()

    # -- what the page is -------------------------------------------------------------------

    async def refresh_state(self) -> PageState | None:
        """Where the current tab is now (title, address) for the preview's title line."""
        try:
            self.state = await self.port.state()
        except WebError:
            return self.state
        return self.state

    @property
    def label(self) -> str:
        return page_label(self.state)

    @property
    def viewport(self) -> tuple[int, int] | None:
        """The tab's viewport in CSS px: what a takeover click is mapped into. A frame's
        size is the screencast's device width and height (CSS px, whatever the JPEG's
        own scale); before the first frame, the run's options say it."""
        frame = self.latest()
        if frame is not None and frame.size[0] > 0 and frame.size[1] > 0:
            return frame.size
        wanted = getattr(self.options, "viewport", None)
        return (int(wanted[0]), int(wanted[1])) if wanted else None


class PageInput:
    """The user's hands on the run's page from the preview (a takeover of a page): the
    same calls as a display's input (`tap`, `swipe`, `text`, `key`), made from the
    preview's input thread, run as the port's real input events on the run's loop."""

    # The terminal's key names → the page's DOM key names (what the preview sends).
    KEY_NAMES = {
        "escape": "Escape",
        "backspace": "Backspace",
        "delete": "Delete",
        "enter": "Enter",
        "tab": "Tab",
        "up": "ArrowUp",
        "down": "ArrowDown",
        "left": "ArrowLeft",
        "right": "ArrowRight",
        "pageup": "PageUp",
        "pagedown": "PageDown",
        "home": "Home",
        "end": "End",
    }

    def __init__(self, port: Any, loop: asyncio.AbstractEventLoop, *, timeout_s: float = 15.0) -> None:
        self.port = port
        self.loop = loop
        self.timeout_s = timeout_s
        self.display = -1  # not a phone display: the preview's checks read it

    def _run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(self.timeout_s)
        except TimeoutError:
            future.cancel()
            raise WebError(f"the page did not take the input within {self.timeout_s:g} s", code="timeout") from None

    def tap(self, x: float, y: float) -> None:
        self._run(self.port.click(float(x), float(y)))

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int = 300) -> None:
        # A drag on a page is a scroll the other way (the content follows the finger).
        self._run(self.port.scroll(float(x1 - x2), float(y1 - y2), (float(x1), float(y1))))

    def text(self, s: str) -> None:
        self._run(self.port.type_text(s))

    def key(self, name: str) -> None:
        self._run(self.port.press_key(name))

    def scroll(self, dx: float, dy: float, at: tuple[float, float] | None = None) -> None:
        self._run(self.port.scroll(dx, dy, at))

    def back(self) -> None:
        self._run(self.port.back())


class LivePages:
    """The live page of each run, by run id (kept by the assembly; a face without one keeps its own)."""

    def __init__(self) -> None:
        self._pages: dict[str, LivePage] = {}

    def get(self, run_id: str) -> LivePage | None:
        return self._pages.get(run_id)

    def frames(self, run_id: str, capabilities: Iterable[Any] = ()) -> LivePage | None:
        """The run's live page, its screencast started (on the run's loop: the port's
        objects live there); None when the run has no web capability."""
        page = self._pages.get(run_id)
        if page is None:
            caps = list(capabilities)
            port = web_port_of(caps)
            if port is None:
                return None
            options = next((getattr(c, "options", None) for c in caps if getattr(c, "id", "") == "web"), None)
            page = self._pages[run_id] = LivePage(port, options=options)
        page.start()
        return page

    def ended(self, run_id: str) -> None:
        page = self._pages.pop(run_id, None)
        if page is not None:
            page.stop()

    def close(self) -> None:
        for run_id in list(self._pages):
            self.ended(run_id)
