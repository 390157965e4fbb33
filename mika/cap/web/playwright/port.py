"""`PlaywrightWebPort`: the one `WebPort`, Playwright's async API over Chromium.

Cheap to build; the browser starts on the first call that needs a page. Reading goes
through CDP (the accessibility tree, one DOM snapshot for the boxes, the layout metrics,
the frame tree) and never calls `Runtime.enable`; input is real mouse and key events.

Choices worth knowing:
- Mobile pages (`site_modes`): a browser context cannot change `is_mobile` after it is
  made, so a tab showing a mobile site gets CDP emulation on that tab alone —
  `Emulation.setDeviceMetricsOverride(mobile=True)` with a phone-sized viewport, touch
  emulation, and a mobile user agent through `Emulation.setUserAgentOverride` — and a
  desktop site clears it again.
- Page language: Chromium's `--lang` / `--accept-lang` flags, so the Accept-Language
  header and navigator.language(s) say "en-US,en" / "zh-CN,zh" (a mobile tab's user-agent
  override repeats it); no language set: nothing is overridden.
- Only http(s) (`url_policy`): checked on `open`, and again for every request through
  `context.route` (aborted when refused) and for every main-frame navigation a page makes
  (sent back to about:blank, noted).
- JavaScript dialogs are kept pending (a listener is set, so Playwright does not dismiss
  them); `read()` reports the text and `answer_dialog` answers.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import os
import random
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from mika.action.pace import GesturePacing, TypingPacing, graphemes
from mika.atomic_write import ensure_dir
from mika.cap.web import language
from mika.cap.web.options import TABS_IN_ALL, WebOptions
from mika.cap.web.page_tree import build_tree, layout_from_snapshot, scrub_snapshot
from mika.cap.web.playwright.browser import find_browser, playwright_chromium_path
from mika.cap.web.playwright.tab_budget import PROCESS_TABS, TabBudget
from mika.cap.web.port import (
    Download,
    PageRead,
    PageState,
    ScreencastSink,
    TabInfo,
    UrlRefused,
    WaitResult,
    WebError,
)
from mika.cap.web.site_modes import SiteModes
from mika.cap.web.url_policy import check_url, is_allowed

# Flags for a machine without a network beyond loopback: no background fetches to hosts
# that cannot be reached.
CHROMIUM_FLAGS = (
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--no-first-run",
    "--disable-quic",
)
MOBILE_VIEWPORT = (390, 844)
MOBILE_UA = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Mobile Safari/537.36"
)
NAV_TIMEOUT_MS = 30_000
LOAD_GRACE_MS = 3_000  # after the DOM, how long `open` waits for the load event
MAX_CHILD_FRAMES = 8  # child frames whose accessibility trees are read with the page
_SAFE_NAME = re.compile(r"[^\w.\- ()\[\]+,@=]+", re.UNICODE)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


@dataclass
class _Tab:
    id: str
    page: Any
    cdp: Any = None
    status: int | None = None
    loading: bool = False
    mobile: bool = False
    dialog: Any = None
    cast_handler: Any = None
    data_responses: int = 0  # JSON/text answers to the page's fetch/XHR (a "load more")
    redirects_guarded: bool = False  # its page answers are held at their headers (_guard_redirects)
    dialog_shown: asyncio.Event = field(default_factory=asyncio.Event)

    def on_dialog(self, dialog: Any) -> None:
        self.dialog = dialog
        self.dialog_shown.set()


@dataclass
class _Active:
    download: Any
    name: str
    url: str
    claimed: str = ""
    task: Any = None
    done: asyncio.Event = field(default_factory=asyncio.Event)


class PlaywrightWebPort:
    """A run's browser tabs (see the module doc). `budget`: the process-wide tab budget
    (shared by default; tests may pass their own)."""

    def __init__(self, options: WebOptions | None = None, *, budget: TabBudget | None = None) -> None:
        self.options = options or WebOptions()
        self.budget = budget if budget is not None else PROCESS_TABS
        self.site_modes = SiteModes(self.options.site_modes_file)
        self.notes: list[str] = []  # things the run should hear about (refused navigations, closed popups)
        if self.site_modes.notice:
            self.notes.append(self.site_modes.notice)
        self._pw: Any = None
        self._browser: Any = None
        self._context: Any = None
        self._tabs: dict[str, _Tab] = {}
        self._current: str | None = None
        self._ids = itertools.count(1)
        self._launch_lock = asyncio.Lock()
        self._own_pages = 0  # pages this port is opening itself (not popups)
        self._downloads: list[Download] = []
        self._active: list[_Active] = []
        self._tmp_downloads: tempfile.TemporaryDirectory[str] | None = None
        self._sink: ScreencastSink | None = None
        self._cast_tab: str | None = None
        self._last_frame = 0.0
        # The newest frame that came sooner than `max_fps` allows (base64 JPEG, tab, size),
        # sent when it is due unless a newer one replaces it first (`_hold_frame`).
        self._held_frame: tuple[str, str, tuple[int, int]] | None = None
        self._held_timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False
        self._popups: list[str] = []
        self._blocked_pages: set[int] = set()  # id() of pages whose navigation was just refused
        # Asked before a tab's main frame loads a page (the run's payment judgement, bound
        # by GatedWebPort): False and the navigation is aborted like a refused address.
        self._navigation_guard: Callable[[str], bool] | None = None
        self._popups_closed = 0  # popups closed at once for the tab limit
        self._changed = asyncio.Condition()  # a popup became a tab, a download ended
        self._rng = random.Random()
        self._gesture = GesturePacing.instant() if self.options.pace == "fast" else GesturePacing(self._rng)
        self._mouse = (0.0, 0.0)
        self._desktop_ua = ""
        self.executable = ""
        self.launch_args: tuple[str, ...] = ()  # the Chromium flags of this port's browser

    # ------------------------------------------------------------ launching

    async def _ensure(self) -> None:
        if self._context is not None:
            return
        if self._closed:
            raise WebError("The browser of this run was closed; start a new run to open pages.", code="page_closed")
        async with self._launch_lock:
            if self._context is not None:
                return
            await self._launch()

    async def _launch(self) -> None:
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import async_playwright

        opts = self.options
        pw = await async_playwright().start()
        try:
            self.executable = find_browser(opts.browser, playwright_path=playwright_chromium_path(pw))
            args = list(CHROMIUM_FLAGS)
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                args.append("--no-sandbox")  # Chromium refuses to start its sandbox as root
            self._tmp_downloads = tempfile.TemporaryDirectory(prefix="mika-dl-")
            common: dict[str, Any] = {
                "viewport": {"width": opts.viewport[0], "height": opts.viewport[1]},
                "accept_downloads": True,
            }
            try:
                loc = language.locale(opts.language)
                accept = language.accept_language(opts.language)
            except ValueError as exc:
                loc = accept = None
                self.notes.append(f"The page language was left to the system: {exc}.")
            if loc and accept:
                # Chromium's own language flags: the header and navigator.languages both
                # say "zh-CN,zh" (Playwright's `locale` would narrow them to "zh-CN").
                args += [f"--lang={loc}", f"--accept-lang={accept}"]
            self.launch_args = tuple(args)
            launch: dict[str, Any] = {
                "executable_path": self.executable,
                "headless": opts.headless,
                "args": args,
                "downloads_path": self._tmp_downloads.name,
            }
            try:
                if opts.profile_dir is not None:
                    ensure_dir(opts.profile_dir)
                    os.chmod(opts.profile_dir, 0o700)
                    context = await pw.chromium.launch_persistent_context(str(opts.profile_dir), **launch, **common)
                else:
                    self._browser = await pw.chromium.launch(**launch)
                    context = await self._browser.new_context(**common)
            except PlaywrightError as exc:
                text = str(exc)
                if (
                    "ProcessSingleton" in text
                    or "SingletonLock" in text
                    or ("profile" in text.lower() and "in use" in text)
                ):
                    raise WebError(
                        f"The browser profile {opts.profile_dir} is in use by another browser; close it and try again.",
                        code="profile_locked",
                    ) from None
                raise WebError(
                    f"Chromium ({self.executable}) did not start: {_first_line(exc)}", code="no_browser"
                ) from None
        except BaseException:
            await pw.stop()
            self._cleanup_tmp()
            raise
        self._pw = pw
        self._context = context
        await context.route("**/*", self._route)
        context.on("page", self._on_page)
        # A persistent context opens with a blank page: it becomes the first tab when needed.
        for page in list(context.pages):
            if not self._adopt(page, popup=False):
                await page.close()

    def _cleanup_tmp(self) -> None:
        if self._tmp_downloads is not None:
            with contextlib.suppress(OSError):
                self._tmp_downloads.cleanup()
            self._tmp_downloads = None

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------ URL policy in the browser

    def set_navigation_guard(self, guard: Callable[[str], bool] | None) -> None:
        """`guard(url)` is asked before any tab's main frame loads `url` — and, for a
        redirect, before the browser follows it — and False refuses it."""
        self._navigation_guard = guard
        for tab in list(self._tabs.values()):
            with contextlib.suppress(RuntimeError):
                self._spawn(self._guard_redirects(tab))

    async def _route(self, route: Any) -> None:
        url = route.request.url
        if not is_allowed(url):
            self._note(f"A page tried to load {url[:120]!r}; it was blocked (only http and https are opened).")
            await self._refuse(route)
            return
        guard = self._navigation_guard
        if guard is not None and self._main_frame_navigation(route.request) and not guard(url):
            self._note(f"The page did not open {url[:120]!r}: it leads to a payment nobody approved.")
            await self._refuse(route)
            return
        with contextlib.suppress(Exception):
            await route.continue_()

    @staticmethod
    def _main_frame_navigation(request: Any) -> bool:
        try:
            return bool(request.is_navigation_request()) and request.frame.parent_frame is None
        except Exception:
            return False

    async def _guard_redirects(self, tab: _Tab) -> None:
        """The browser follows a redirect without asking the route again, so a tab's page
        answers are also held at their headers (CDP Fetch, response stage, documents only;
        the body streams on untouched): a 3xx whose target the guard refuses is failed
        there, before the browser sends the next request."""
        if self._navigation_guard is None or tab.redirects_guarded:
            return
        tab.redirects_guarded = True
        try:
            cdp = await self._cdp(tab)
            cdp.on("Fetch.requestPaused", lambda event: self._spawn(self._on_paused(tab, cdp, event)))
            await cdp.send(
                "Fetch.enable",
                {"patterns": [{"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"}]},
            )
        except Exception as exc:
            tab.redirects_guarded = False
            self._note(f"Redirects in {tab.id} could not be checked before they are followed: {_first_line(exc)}.")

    async def _on_paused(self, tab: _Tab, cdp: Any, event: dict[str, Any]) -> None:
        request_id = event.get("requestId")
        guard = self._navigation_guard
        try:
            status = int(event.get("responseStatusCode") or 0)
            headers = {
                str(h.get("name", "")).lower(): str(h.get("value", "")) for h in event.get("responseHeaders") or []
            }
            location = headers.get("location", "")
            if guard is not None and 300 <= status < 400 and location:
                url = str(event.get("request", {}).get("url", ""))
                hop = urljoin(url, location)
                if not is_allowed(hop) or not guard(hop):
                    self._note(f"{url[:120]!r} redirected to {hop[:120]!r}; it was not followed.")
                    self._blocked_pages.add(id(tab.page))
                    await cdp.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"})
                    return
        except Exception:
            pass  # a malformed answer is the browser's to handle: let it go on as it would
        with contextlib.suppress(Exception):
            await cdp.send("Fetch.continueRequest", {"requestId": request_id})

    async def _refuse(self, route: Any) -> None:
        with contextlib.suppress(Exception):
            request = route.request
            page = request.frame.page
            if request.is_navigation_request() and request.frame == page.main_frame:
                # Its error page is undone when it shows (a popup may not be a tab yet);
                # marked before the abort, whose error page can show before abort returns.
                self._blocked_pages.add(id(page))
        with contextlib.suppress(Exception):
            await route.abort("blockedbyclient")

    async def _check_error_page(self, tab: _Tab) -> None:
        """Chromium shows its error page: undone when the navigation was a refused one (the
        route marked it, or the address it tried says so) or a popup never showed a page."""
        refused = id(tab.page) in self._blocked_pages
        self._blocked_pages.discard(id(tab.page))
        if not refused:
            with contextlib.suppress(Exception):
                info = await (await self._cdp(tab)).send("Target.getTargetInfo")
                tried = str(info.get("targetInfo", {}).get("url", ""))
                refused = bool(tried) and not tried.startswith("chrome-error:") and not is_allowed(tried)
        if refused or (tab.id in self._popups and tab.status is None):
            await self._undo_blocked(tab)

    def _note(self, text: str) -> None:
        self.notes.append(text)
        with contextlib.suppress(RuntimeError):
            self._spawn(self._notify())

    async def _undo_blocked(self, tab: _Tab) -> None:
        """A page sent itself (or a popup) to a refused address and Chromium shows its
        error page: a popup that never showed a page is closed, a tab goes back."""
        if tab.id in self._popups and tab.status is None:
            self._note(f"The new tab {tab.id} the page opened was closed: its address was refused or did not load.")
            with contextlib.suppress(Exception):
                await tab.page.close()
            return
        failure = ""
        for _ in range(3):
            # The error page replaces the page's renderer: until it stands, history calls
            # answer "not attached to an active page".
            try:
                await tab.page.wait_for_load_state("domcontentloaded", timeout=5000)
                await tab.page.go_back(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
            except Exception as exc:
                failure = _first_line(exc)
                continue
            self._note(f"The tab {tab.id} went back to {tab.page.url[:120]!r}.")
            return
        self._note(f"The tab {tab.id} shows the browser's error page for the refused address ({failure}).")

    def _on_frame_navigated(self, tab: _Tab, frame: Any) -> None:
        if frame != tab.page.main_frame:
            return
        tab.loading = True
        url = frame.url
        if url.startswith("chrome-error:"):
            self._spawn(self._check_error_page(tab))
            return
        if url == "about:blank" or url.startswith("chrome-error:") or is_allowed(url):
            return
        self.notes.append(f"The page in {tab.id} went to {url[:120]!r}; it was sent back to a blank page.")
        self._spawn(self._blank(tab))

    async def _blank(self, tab: _Tab) -> None:
        with contextlib.suppress(Exception):
            await tab.page.goto("about:blank")

    # ------------------------------------------------------------ tabs

    def _adopt(self, page: Any, *, popup: bool) -> _Tab | None:
        if len(self._tabs) >= self.options.tabs_per_run or not self.budget.take():
            return None
        tab = _Tab(id=f"t{next(self._ids)}", page=page)
        self._tabs[tab.id] = tab
        page.on("framenavigated", lambda frame: self._on_frame_navigated(tab, frame))
        page.on("load", lambda _page: setattr(tab, "loading", False))
        page.on("response", lambda response: self._on_response(tab, response))
        page.on("dialog", tab.on_dialog)
        page.on("download", lambda download: self._on_download(download))
        page.on("close", lambda _page: self._on_close(tab))
        if self._current is None:
            self._current = tab.id
        if self._navigation_guard is not None:
            self._spawn(self._guard_redirects(tab))
        return tab

    def _on_page(self, page: Any) -> None:
        if self._own_pages > 0:
            self._own_pages -= 1
            return
        if any(t.page is page for t in self._tabs.values()):
            return
        tab = self._adopt(page, popup=True)
        if tab is None:
            self._popups_closed += 1
            self._spawn(page.close())
            self._note(
                "A page opened a new window past the tab limit; it was closed (close a tab with web_tabs to make room)."
            )
            return
        self._popups.append(tab.id)
        self._note(f"The page opened a new tab {tab.id}.")
        if str(page.url).startswith("chrome-error:"):
            self._spawn(self._undo_blocked(tab))  # refused before it became a tab

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait_until(self, ready: Any, timeout_s: float) -> bool:
        """Wait until `ready()` holds, checked again whenever the port sees a change (a tab
        opened or closed, a download ended, a navigation refused or undone, a note);
        False at the timeout. Events, not a clock."""
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(ready), timeout_s)
            except TimeoutError:
                return False
        return True

    @property
    def popups(self) -> tuple[str, ...]:
        """Ids of the tabs pages opened themselves, in order."""
        return tuple(self._popups)

    async def wait_for_popup(self, after: int | None = None, timeout_s: float = 5.0) -> str | None:
        """The id of the tab a page opened itself after the first `after` ones (default:
        the next one from now); None when none opened within the timeout."""
        seen = len(self._popups) if after is None else after
        ok = await self.wait_until(lambda: len(self._popups) > seen, timeout_s)
        return self._popups[seen] if ok else None

    async def wait_for_download(self, after: int | None = None, timeout_s: float = 10.0) -> Download | None:
        """The download that ended after the first `after` ones (default: the next one from
        now) — saved, refused or cancelled; None at the timeout."""
        seen = len(self._downloads) if after is None else after
        ok = await self.wait_until(lambda: len(self._downloads) > seen, timeout_s)
        return self._downloads[seen] if ok else None

    def _on_response(self, tab: _Tab, response: Any) -> None:
        with contextlib.suppress(Exception):
            if response.frame == tab.page.main_frame and response.request.is_navigation_request():
                tab.status = response.status
            elif response.request.resource_type in ("fetch", "xhr") and _is_data(response.headers):
                tab.data_responses += 1

    def data_responses(self) -> int:
        tab = self._tabs.get(self._current or "")
        return tab.data_responses if tab is not None else 0

    def _on_close(self, tab: _Tab) -> None:
        if self._tabs.pop(tab.id, None) is not None:
            self.budget.give_back()
            self._spawn(self._notify())
        if self._cast_tab == tab.id:
            self._cast_tab = None
        if self._current == tab.id:
            self._current = next(reversed(self._tabs), None) if self._tabs else None
            if self._sink is not None and self._current is not None:
                self._spawn(self._start_cast())

    def _limit_error(self) -> WebError:
        if len(self._tabs) >= self.options.tabs_per_run:
            return WebError(
                f"This run already has {len(self._tabs)} tabs open, the most one run may have "
                f"({self.options.tabs_per_run}); close one with web_tabs first.",
                code="tab_limit",
            )
        return WebError(
            f"All runs together already have {self.budget.used} browser tabs open, the most Mika keeps "
            f"({self.budget.limit}); close a tab with web_tabs first.",
            code="tab_limit",
        )

    async def _new_tab(self) -> _Tab:
        await self._ensure()
        if len(self._tabs) >= self.options.tabs_per_run or self.budget.used >= self.budget.limit:
            raise self._limit_error()
        self._own_pages += 1
        try:
            page = await self._context.new_page()
        except Exception as exc:
            self._own_pages = max(0, self._own_pages - 1)
            raise WebError(f"A new tab could not be opened: {_first_line(exc)}", code="web_error") from None
        tab = self._adopt(page, popup=False)
        if tab is None:
            await page.close()
            raise self._limit_error()
        self._current = tab.id
        if self._sink is not None:
            await self._start_cast()  # the preview follows the run to its new tab
        return tab

    async def _tab(self, *, create: bool = True) -> _Tab:
        await self._ensure()
        if self._current is not None and self._current in self._tabs:
            return self._tabs[self._current]
        if self._tabs:
            self._current = next(iter(self._tabs))
            return self._tabs[self._current]
        if not create:
            raise WebError("No tab is open; open a page with web_navigate first.", code="page_closed")
        return await self._new_tab()

    async def _tab_free(self) -> _Tab:
        """The current tab, for a call its renderer must answer: with a JavaScript dialog
        showing it answers nothing, so the dialog is answered first."""
        tab = await self._tab()
        if tab.dialog is not None:
            raise WebError(
                f"The page in {tab.id} shows a dialog ({_dialog_text(tab.dialog)[:120]!r}); "
                "answer it first (Enter accepts, Escape dismisses).",
                code="dialog",
            )
        return tab

    async def _cdp(self, tab: _Tab) -> Any:
        if tab.cdp is None:
            tab.cdp = await self._context.new_cdp_session(tab.page)
        return tab.cdp

    # ------------------------------------------------------------ pages

    async def open(self, url: str, *, new_tab: bool = False) -> PageState:
        check_url(url)
        await self._ensure()
        tab = await self._new_tab() if new_tab else await self._tab()
        if self._sink is not None and self._cast_tab != tab.id:
            await self._start_cast()  # asked for before the browser started
        await self._apply_mode(tab, url)
        await self._guard_redirects(tab)
        from playwright.async_api import Error as PlaywrightError

        tab.dialog = None
        try:
            response = await tab.page.goto(url, wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
        except PlaywrightError as exc:
            text = _first_line(exc)
            if "Timeout" in text:
                raise WebError(
                    f"The page {url} did not load within {NAV_TIMEOUT_MS // 1000} s.", code="timeout"
                ) from None
            if "Download is starting" in text:
                self.notes.append(f"{url} is a download, not a page; it goes to the downloads folder.")
                return await self._state(tab)
            if "ERR_BLOCKED_BY_CLIENT" in text or "ERR_UNSAFE_REDIRECT" in text:
                raise UrlRefused(
                    f"The page {url} sent the browser to an address that is not opened (only http and https)."
                ) from None
            raise WebError(f"The page {url} could not be loaded: {text}", code="navigation_failed") from None
        if response is not None:
            tab.status = response.status
        # Frames and images finish after the DOM: a short wait for the load event (not an
        # error when it does not come — a slow page is read as it stands).
        with contextlib.suppress(Exception):
            await tab.page.wait_for_load_state("load", timeout=LOAD_GRACE_MS)
        return await self._state(tab)

    async def _apply_mode(self, tab: _Tab, url: str) -> None:
        mobile = self.site_modes.is_mobile(url)
        if mobile == tab.mobile:
            return
        cdp = await self._cdp(tab)
        accept = language.accept_language(self.options.language)
        if mobile:
            w, h = MOBILE_VIEWPORT
            await cdp.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": w, "height": h, "deviceScaleFactor": 3, "mobile": True},
            )
            await cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
            ua: dict[str, Any] = {"userAgent": MOBILE_UA, "platform": "Android"}
        else:
            await cdp.send("Emulation.clearDeviceMetricsOverride")
            await cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": False})
            if not self._desktop_ua:
                version = await cdp.send("Browser.getVersion")
                self._desktop_ua = str(version.get("userAgent", "")).replace("HeadlessChrome", "Chrome")
            ua = {"userAgent": self._desktop_ua}
        if accept:
            ua["acceptLanguage"] = accept
        await cdp.send("Emulation.setUserAgentOverride", ua)
        tab.mobile = mobile

    async def set_site_mode(self, url: str, mode: str) -> str:
        """Remember desktop/mobile for the site of `url` and apply it to the current tab
        (the page is reloaded when it shows that site). Returns the site name."""
        site = self.site_modes.set(url, mode)
        if self._context is not None and self._current in self._tabs:
            tab = self._tabs[self._current]
            await self._apply_mode(tab, tab.page.url)
            if is_allowed(tab.page.url):
                with contextlib.suppress(Exception):
                    await tab.page.reload(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
        return site

    async def _state(self, tab: _Tab) -> PageState:
        title = ""
        url = tab.page.url
        with contextlib.suppress(Exception):
            info = await (await self._cdp(tab)).send("Target.getTargetInfo")
            title = str(info.get("targetInfo", {}).get("title", ""))
            url = str(info.get("targetInfo", {}).get("url", url)) or url
        if title == url or title == urlsplit(url).netloc + urlsplit(url).path:
            title = ""  # Chromium shows the address when a page has no title
        return PageState(tab=tab.id, url=url, title=title, status=tab.status, loading=tab.loading, mobile=tab.mobile)

    async def state(self) -> PageState:
        return await self._state(await self._tab())

    async def read(self) -> PageRead:
        tab = await self._tab()
        cdp = await self._cdp(tab)
        if tab.dialog is not None:
            # The page's renderer waits on the dialog: it answers no DOM or accessibility
            # call until the dialog is answered, so the read is the dialog alone.
            state = await asyncio.wait_for(self._state(tab), 5)
            w, h = self.options.viewport
            tree = build_tree([], {"viewport": [w, h], "host": urlsplit(tab.page.url).hostname or ""})
            return PageRead(state=state, tree=tree, viewport=(w, h), dialog=_dialog_text(tab.dialog))
        try:
            ax, snapshot, metrics, frame_tree = await self._capture(cdp)
        except Exception:  # a document being replaced answers nothing: once more when it stands
            try:
                with contextlib.suppress(Exception):
                    await tab.page.wait_for_load_state("domcontentloaded", timeout=NAV_TIMEOUT_MS)
                ax, snapshot, metrics, frame_tree = await self._capture(cdp)
            except Exception as exc:
                raise WebError(
                    f"The page in {tab.id} could not be read: {_first_line(exc)}", code="page_closed"
                ) from None
        scrub_snapshot(snapshot)  # field values are not read (passwords)
        nodes = list(ax.get("nodes") or [])
        children = _descendant_frames(frame_tree.get("frameTree", {}))
        frames_urls = tuple(str(f.url) for f in tab.page.frames[1:])
        for k, frame in enumerate(children[:MAX_CHILD_FRAMES]):
            fid = frame.get("id")
            try:
                sub = await cdp.send("Accessibility.getFullAXTree", {"frameId": fid})
            except Exception:
                continue
            nodes.extend(_prefixed(sub.get("nodes") or [], f"f{k}:"))
        host = urlsplit(tab.page.url).hostname or ""
        layout = layout_from_snapshot(snapshot, metrics, host)
        tree = build_tree(nodes, layout)
        state = await self._state(tab)
        main = frame_tree.get("frameTree", {}).get("frame", {})
        dialog = _dialog_text(tab.dialog) if tab.dialog is not None else ""
        return PageRead(
            state=state,
            tree=tree,
            viewport=tuple(layout["viewport"]),
            scroll=tuple(layout["scroll"]),
            page_size=tuple(layout["page_size"]),
            frames=frames_urls,
            dialog=dialog,
            document=str(main.get("loaderId", "")),
        )

    @staticmethod
    async def _capture(cdp: Any) -> tuple[Any, Any, Any, Any]:
        """The four CDP answers one read is made of, asked together."""
        ax, snapshot, metrics, frame_tree = await asyncio.gather(
            cdp.send("Accessibility.getFullAXTree"),
            cdp.send(
                "DOMSnapshot.captureSnapshot",
                {"computedStyles": ["overflow-x", "overflow-y"], "includeDOMRects": True},
            ),
            cdp.send("Page.getLayoutMetrics"),
            cdp.send("Page.getFrameTree"),
        )
        return ax, snapshot, metrics, frame_tree

    async def answer_dialog(self, accept: bool, text: str | None = None) -> str:
        """Answer the current tab's pending JavaScript dialog (OK / Cancel, a prompt's
        text); returns the dialog's text, "" when none was showing."""
        tab = await self._tab()
        dialog, tab.dialog = tab.dialog, None
        tab.dialog_shown.clear()
        if dialog is None:
            return ""
        message = str(dialog.message)
        with contextlib.suppress(Exception):
            if accept:
                await dialog.accept(text) if text is not None else await dialog.accept()
            else:
                await dialog.dismiss()
        return message

    async def main_text(self, budget_chars: int) -> tuple[str, bool]:
        from mika.cap.web.main_text import read_main_text

        tab = await self._tab_free()
        return await read_main_text(await self._cdp(tab), budget_chars)

    async def evaluate_readonly(self, script: str, *, timeout_s: float = 5.0) -> Any:
        from mika.cap.web.isolated import evaluate_isolated

        tab = await self._tab_free()
        return await evaluate_isolated(await self._cdp(tab), script, timeout_s=timeout_s)

    # ------------------------------------------------------------ acting

    @staticmethod
    def _backend_id(handle: str) -> int | None:
        if not isinstance(handle, str) or not handle.startswith("web:"):
            return None
        try:
            return int(handle[4:])
        except ValueError:
            return None

    async def element_box(self, handle: str) -> tuple[float, float, float, float] | None:
        bid = self._backend_id(handle)
        if bid is None:
            return None
        cdp = await self._cdp(await self._tab_free())
        try:
            with contextlib.suppress(Exception):
                await cdp.send("DOM.scrollIntoViewIfNeeded", {"backendNodeId": bid})
            quads = (await cdp.send("DOM.getContentQuads", {"backendNodeId": bid})).get("quads") or []
        except Exception:
            return None
        if not quads:
            return None
        q = quads[0]
        xs, ys = q[0::2], q[1::2]
        return (min(xs), min(ys), max(xs), max(ys))

    async def _input(self, tab: _Tab, action: Any) -> None:
        """Run one input action; a JavaScript dialog it opens ends the wait (the browser
        holds the event until the dialog is answered, and `answer_dialog` does that)."""
        if tab.dialog is not None:
            action.close()
            raise WebError(
                f"The page in {tab.id} shows a dialog ({tab.dialog.message[:120]!r}); answer it first.", code="dialog"
            )
        tab.dialog_shown.clear()
        task = asyncio.get_running_loop().create_task(action)
        shown = asyncio.get_running_loop().create_task(tab.dialog_shown.wait())
        try:
            done, _ = await asyncio.wait({task, shown}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            shown.cancel()
        if task in done:
            task.result()
            return
        self._tasks.add(task)  # ends when the dialog is answered
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def click(self, x: float, y: float) -> None:
        tab = await self._tab()
        await self._input(tab, self._click(tab.page, x, y))
        self._mouse = (x, y)

    async def _click(self, page: Any, x: float, y: float) -> None:
        if self._gesture.is_instant:
            await page.mouse.click(x, y)
            return
        # A short move from where the pointer was, a pause, a press held like a finger's.
        await page.mouse.move(x, y, steps=6 + self._rng.randint(0, 6))
        await asyncio.sleep(self._gesture.pre_touch_ms() / 1000)
        await page.mouse.down()
        await asyncio.sleep(self._gesture.tap_hold_ms() / 1000)
        await page.mouse.up()

    async def focus(self, handle: str) -> bool:
        bid = self._backend_id(handle)
        if bid is None:
            return False
        cdp = await self._cdp(await self._tab_free())
        try:
            await cdp.send("DOM.focus", {"backendNodeId": bid})
        except Exception:
            return False
        return True

    async def type_text(self, text: str) -> None:
        tab = await self._tab()
        await self._input(tab, self._type(tab.page, text))

    async def _type(self, page: Any, text: str) -> None:
        plan = TypingPacing.for_pace(self.options.pace, self._rng).plan(text)
        written = ""
        for chunk in plan:
            if chunk.delay_ms:
                await asyncio.sleep(chunk.delay_ms / 1000)
            await _type_piece(page, chunk.prefix[len(written) :])
            written = chunk.prefix

    async def clear_focused(self) -> None:
        page = (await self._tab_free()).page
        await page.keyboard.press("ControlOrMeta+A")
        await page.keyboard.press("Backspace")

    async def field_value(self, handle: str) -> str | None:
        bid = self._backend_id(handle)
        if bid is None:
            return None
        cdp = await self._cdp(await self._tab_free())
        try:
            node = (await cdp.send("DOM.describeNode", {"backendNodeId": bid})).get("node", {})
            attrs = node.get("attributes") or []
            pairs = dict(zip(attrs[0::2], attrs[1::2], strict=False))
            if str(node.get("nodeName", "")).upper() == "INPUT" and pairs.get("type", "").strip().lower() == "password":
                return "***"  # a password's value is never read
            obj = await _resolve_isolated(cdp, bid)
            result = await cdp.send(
                "Runtime.callFunctionOn",
                {
                    "objectId": obj.get("objectId"),
                    "functionDeclaration": (
                        "function(){if(this.type==='password')return '***';"
                        "return ('value' in this && typeof this.value==='string')?this.value:(this.innerText||'')}"
                    ),
                    "returnByValue": True,
                },
            )
        except Exception:
            return None
        with contextlib.suppress(Exception):
            await cdp.send("Runtime.releaseObject", {"objectId": obj.get("objectId")})
        value = result.get("result", {}).get("value")
        return value if isinstance(value, str) else None

    async def press_key(self, key: str) -> None:
        """With a JavaScript dialog showing, Enter accepts it and Escape dismisses it (as
        in a browser window); other keys wait for the dialog to be answered."""
        tab = await self._tab()
        if tab.dialog is not None and key in ("Enter", "Escape"):
            await self.answer_dialog(key == "Enter")
            return
        try:
            await self._input(tab, tab.page.keyboard.press(key))
        except WebError:
            raise
        except Exception as exc:
            raise WebError(f"The key {key!r} is not known: {_first_line(exc)}", code="bad_key") from None

    async def scroll(self, dx: float, dy: float, at: tuple[float, float] | None = None) -> None:
        page = (await self._tab_free()).page
        if at is None:
            size = page.viewport_size or {"width": self.options.viewport[0], "height": self.options.viewport[1]}
            at = (size["width"] / 2, size["height"] / 2)
        await page.mouse.move(at[0], at[1])
        self._mouse = at
        await page.mouse.wheel(dx, dy)

    async def back(self) -> bool:
        tab = await self._tab()
        try:
            response = await tab.page.go_back(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
        except Exception as exc:
            raise WebError(f"Going back in {tab.id} failed: {_first_line(exc)}", code="navigation_failed") from None
        if response is None:
            return False
        tab.status = response.status
        return True

    async def tabs(self) -> list[TabInfo]:
        if self._context is None:
            return []
        out = []
        for tab in list(self._tabs.values()):
            s = await self._state(tab)
            out.append(TabInfo(id=tab.id, url=s.url, title=s.title, current=tab.id == self._current))
        return out

    async def switch_tab(self, tab: str) -> PageState:
        await self._ensure()
        if tab not in self._tabs:
            raise WebError(f"There is no tab {tab!r}; web_tabs lists the open ones.", code="no_tab")
        self._current = tab
        with contextlib.suppress(Exception):
            await self._tabs[tab].page.bring_to_front()
        if self._sink is not None:
            await self._start_cast()
        return await self._state(self._tabs[tab])

    async def close_tab(self, tab: str) -> None:
        await self._ensure()
        target = self._tabs.get(tab)
        if target is None:
            raise WebError(f"There is no tab {tab!r}; web_tabs lists the open ones.", code="no_tab")
        if len(self._tabs) == 1:
            # The last tab stays, empty: a run always has a place to open the next page.
            target.dialog = None
            target.status = None
            await self._blank(target)
            return
        await target.page.close()
        self._on_close(target)

    async def wait_for(
        self,
        *,
        text: str | None = None,
        role: str | None = None,
        name: str | None = None,
        network_quiet: bool = False,
        timeout_s: float = 10.0,
    ) -> WaitResult:
        page = (await self._tab()).page
        from playwright.async_api import Error as PlaywrightError

        start = time.monotonic()
        timeout_ms = max(1.0, timeout_s * 1000)
        waits: list[tuple[str, Any]] = []
        if text:
            waits.append((f"text {text!r}", page.get_by_text(text).first.wait_for(state="visible", timeout=timeout_ms)))
        if role or name:
            if role:
                loc = page.get_by_role(role, name=name) if name else page.get_by_role(role)
            else:
                loc = page.get_by_label(name).or_(page.get_by_text(name))
            what = f"element {role or ''} {name or ''}".replace("  ", " ").strip()
            waits.append((what, loc.first.wait_for(state="visible", timeout=timeout_ms)))
        if network_quiet:
            waits.append(("network quiet", page.wait_for_load_state("networkidle", timeout=timeout_ms)))
        if not waits:
            raise WebError("Nothing to wait for: give a text, an element or network quiet.", code="bad_wait")
        try:
            for _, coro in waits:
                await coro
        except PlaywrightError:
            for _, coro in waits:
                with contextlib.suppress(Exception):
                    coro.close()
            return WaitResult(met=False, waited_s=round(time.monotonic() - start, 3), what="timeout")
        return WaitResult(met=True, waited_s=round(time.monotonic() - start, 3), what=" and ".join(w for w, _ in waits))

    async def screenshot(self, *, full_page: bool = False) -> bytes:
        page = (await self._tab_free()).page
        try:
            data: bytes = await page.screenshot(full_page=full_page, type="png")
        except Exception as exc:
            raise WebError(f"The screenshot failed: {_first_line(exc)}", code="web_error") from None
        return data

    # ------------------------------------------------------------ downloads

    def _on_download(self, download: Any) -> None:
        name = self._safe_name(str(download.suggested_filename or "download"))
        active = _Active(download=download, name=name, url=str(download.url))
        self._active.append(active)
        active.task = asyncio.get_running_loop().create_task(self._finish_download(active))
        self._tasks.add(active.task)
        active.task.add_done_callback(self._tasks.discard)

    def _safe_name(self, suggested: str) -> str:
        base = os.path.basename(suggested.replace("\\", "/"))
        base = _SAFE_NAME.sub("_", base).strip(" .")
        base = base.replace("..", "_") or "download"
        base = base[:120]
        target_dir = self.options.downloads_dir
        if target_dir is None:
            return base
        stem, dot, ext = base.rpartition(".")
        if not dot:
            stem, ext = base, ""
        taken = {d.name for d in self._downloads} | {a.name for a in self._active}
        candidate = base
        for n in itertools.count(2):
            if candidate not in taken and not (Path(target_dir) / candidate).exists():
                return candidate
            candidate = f"{stem}-{n}.{ext}" if ext else f"{stem}-{n}"
        return candidate

    async def _watch_size(self, active: _Active, cap: int) -> bool:
        """True when the download grew past the cap (then it is cancelled). Watches the
        file Chromium writes into the port's private download folder."""
        assert self._tmp_downloads is not None
        folder = Path(self._tmp_downloads.name)
        while not active.done.is_set():
            claimed = {a.claimed for a in self._active if a is not active}
            for name, size in _files(folder):
                if name in claimed:
                    continue
                active.claimed = active.claimed or name
                if name == active.claimed and size > cap:
                    return True
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(active.done.wait(), 0.05)
        return False

    async def _finish_download(self, active: _Active) -> None:
        download = active.download
        target_dir = self.options.downloads_dir
        cap = self.options.download_cap_mb * 1024 * 1024
        try:
            if target_dir is None:
                with contextlib.suppress(Exception):
                    await download.cancel()
                self._downloads.append(
                    Download(active.name, active.url, 0, done=False, error="refused: this run has no downloads folder")
                )
                self.notes.append(f"A download of {active.name} was refused: this run has no downloads folder.")
                return
            watcher = asyncio.get_running_loop().create_task(self._watch_size(active, cap))
            path_task = asyncio.get_running_loop().create_task(download.path())
            done, _ = await asyncio.wait({watcher, path_task}, return_when=asyncio.FIRST_COMPLETED)
            over = watcher in done and watcher.result()
            if over:
                with contextlib.suppress(Exception):
                    await download.cancel()
                with contextlib.suppress(Exception):
                    await path_task
                with contextlib.suppress(Exception):
                    await download.delete()
                self._remove_partial(active)
                self._downloads.append(_over_cap(active, self.options.download_cap_mb))
                return
            active.done.set()
            with contextlib.suppress(Exception):
                await watcher
            try:
                temp = await path_task
            except Exception as exc:
                self._downloads.append(Download(active.name, active.url, 0, done=False, error=_first_line(exc)))
                return
            failure = await download.failure()
            if failure:
                self._downloads.append(Download(active.name, active.url, 0, done=False, error=str(failure)))
                return
            size = _size(Path(temp))
            if size > cap:
                with contextlib.suppress(Exception):
                    await download.delete()
                self._downloads.append(_over_cap(active, self.options.download_cap_mb))
                return
            ensure_dir(target_dir)
            final = Path(target_dir) / active.name
            await download.save_as(final)
            with contextlib.suppress(OSError):
                os.chmod(final, 0o600)  # a download is data: never executable
            with contextlib.suppress(Exception):
                await download.delete()
            self._downloads.append(Download(active.name, active.url, size))
        finally:
            active.done.set()
            if active in self._active:
                self._active.remove(active)
            await self._notify()

    def _remove_partial(self, active: _Active) -> None:
        """Chromium leaves a cancelled download's partial file (`<id>.crdownload`): gone."""
        if self._tmp_downloads is None or not active.claimed:
            return
        stem = active.claimed.split(".", 1)[0]
        for name, _ in _files(Path(self._tmp_downloads.name)):
            if name.split(".", 1)[0] == stem:
                with contextlib.suppress(OSError):
                    (Path(self._tmp_downloads.name) / name).unlink()

    async def storage_state(self) -> dict[str, Any]:
        return dict(await self._open_context().storage_state())

    async def add_cookies(self, cookies: list[dict[str, Any]]) -> None:
        await self._open_context().add_cookies(cookies)

    def _open_context(self) -> Any:
        # Only a browser the run already opened: a hand-over never launches one.
        if self._context is None:
            raise WebError("the run's browser has no page open to hand over", code="page_closed")
        return self._context

    def downloads_now(self) -> tuple[list[Download], list[str]]:
        return list(self._downloads), [a.name for a in self._active if not a.done.is_set()]

    async def downloads(self) -> list[Download]:
        pending = [a.task for a in self._active if a.task is not None]
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        return list(self._downloads)

    # ------------------------------------------------------------ screencast

    def screencast(self, sink: ScreencastSink | None) -> None:
        self._sink = sink
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # started on the next call inside the run's loop
        if self._context is None:
            return
        self._spawn(self._start_cast() if sink is not None else self._stop_cast())

    async def _stop_cast(self) -> None:
        tab = self._tabs.get(self._cast_tab or "")
        self._cast_tab = None
        self._drop_held_frame()
        if tab is None or tab.cdp is None:
            return
        with contextlib.suppress(Exception):
            await tab.cdp.send("Page.stopScreencast")
        if tab.cast_handler is not None:
            with contextlib.suppress(Exception):
                tab.cdp.remove_listener("Page.screencastFrame", tab.cast_handler)
            tab.cast_handler = None

    async def _start_cast(self) -> None:
        if self._sink is None:
            return
        tab = await self._tab()
        if self._cast_tab == tab.id:
            return
        await self._stop_cast()
        cdp = await self._cdp(tab)

        def on_frame(params: dict[str, Any]) -> None:
            session_id = params.get("sessionId")
            self._spawn(_ack(cdp, session_id))
            sink = self._sink
            if sink is None or self._cast_tab != tab.id:
                return
            meta = params.get("metadata") or {}
            size = (int(meta.get("deviceWidth") or 0), int(meta.get("deviceHeight") or 0))
            frame = (str(params.get("data") or ""), tab.id, size)
            due = self._last_frame + 1.0 / sink.max_fps if sink.max_fps > 0 else 0.0
            if time.monotonic() < due:
                self._hold_frame(frame, due)
            else:
                self._send_frame(frame)

        tab.cast_handler = on_frame
        cdp.on("Page.screencastFrame", on_frame)
        self._cast_tab = tab.id
        # A new tab's first picture is not held behind the last one of the tab it replaces.
        self._last_frame = 0.0
        w, h = self.options.viewport
        await cdp.send("Page.startScreencast", {"format": "jpeg", "quality": 70, "maxWidth": w, "maxHeight": h})

    def _hold_frame(self, frame: tuple[str, str, tuple[int, int]], due: float) -> None:
        """Keep a frame that came too soon instead of dropping it: Chromium sends a frame
        only when the page repaints, so a dropped last frame of a burst (or a new tab's
        only one, for a page that then stays still) would never be followed by another
        and the picture would stay stale. A newer frame replaces the held one."""
        self._held_frame = frame
        if self._held_timer is None:
            delay = max(0.0, due - time.monotonic())
            self._held_timer = asyncio.get_running_loop().call_later(delay, self._send_held_frame)

    def _send_held_frame(self) -> None:
        self._held_timer = None
        frame, self._held_frame = self._held_frame, None
        if frame is not None:
            self._send_frame(frame)

    def _drop_held_frame(self) -> None:
        if self._held_timer is not None:
            self._held_timer.cancel()
            self._held_timer = None
        self._held_frame = None

    def _send_frame(self, frame: tuple[str, str, tuple[int, int]]) -> None:
        data, tab_id, size = frame
        sink = self._sink
        if sink is None or self._cast_tab != tab_id:
            return  # the screencast stopped or moved to another tab while it was held
        self._last_frame = time.monotonic()
        with contextlib.suppress(Exception):
            sink.on_frame(base64.b64decode(data), tab_id, size)

    # ------------------------------------------------------------ closing

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._sink = None
        if self._context is None:
            self._cleanup_tmp()
            return
        with contextlib.suppress(Exception):
            await self._stop_cast()
        for a in list(self._active):
            if a.task is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(a.task), 5)
        count = len(self._tabs)
        self._tabs.clear()
        self.budget.give_back(count)
        with contextlib.suppress(Exception):
            await self._context.close()
        if self._browser is not None:
            with contextlib.suppress(Exception):
                await self._browser.close()
        with contextlib.suppress(Exception):
            await self._pw.stop()
        for task in list(self._tasks):
            task.cancel()
        self._context = self._browser = self._pw = None
        self._cleanup_tmp()


def _files(folder: Path) -> list[tuple[str, int]]:
    """(name, size) of the files in the private download folder (a few stat calls)."""
    out = []
    with contextlib.suppress(OSError):
        for f in folder.iterdir():
            with contextlib.suppress(OSError):
                out.append((f.name, f.stat().st_size))
    return out


def _size(path: Path) -> int:
    return path.stat().st_size


def _dialog_text(dialog: Any) -> str:
    try:
        return f"{dialog.type}: {dialog.message}"
    except Exception:
        return ""


def _over_cap(active: _Active, cap_mb: int) -> Download:
    return Download(
        active.name,
        active.url,
        0,
        done=False,
        error=f"cancelled: bigger than the {cap_mb} MB download cap; nothing was kept",
    )


async def _ack(cdp: Any, session_id: Any) -> None:
    with contextlib.suppress(Exception):
        await cdp.send("Page.screencastFrameAck", {"sessionId": session_id})


async def _resolve_isolated(cdp: Any, bid: int) -> dict[str, Any]:
    """The element as an object of an isolated world of the main frame, where the page's
    own scripts cannot redefine `value` or notice the read; a node of a child frame (not
    in that world's document) is resolved in its own frame's page world instead."""
    try:
        frame_id = (await cdp.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]
        world = await cdp.send("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": "mika-field"})
        resolved = await cdp.send(
            "DOM.resolveNode", {"backendNodeId": bid, "executionContextId": world["executionContextId"]}
        )
        return dict(resolved.get("object", {}))
    except Exception:
        resolved = await cdp.send("DOM.resolveNode", {"backendNodeId": bid})
        return dict(resolved.get("object", {}))


def _descendant_frames(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """Every frame below the main one, parents before children."""
    out: list[dict[str, Any]] = []
    todo = list(tree.get("childFrames") or [])
    while todo and len(out) < MAX_CHILD_FRAMES:
        node = todo.pop(0)
        out.append(node.get("frame", {}))
        todo.extend(node.get("childFrames") or [])
    return out


def _prefixed(nodes: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    """A child frame's AX nodes with ids that cannot clash with the main frame's."""
    out = []
    for n in nodes:
        m = dict(n)
        m["nodeId"] = prefix + str(n.get("nodeId"))
        if n.get("parentId") is not None:
            m["parentId"] = prefix + str(n["parentId"])
        m["childIds"] = [prefix + str(c) for c in n.get("childIds") or ()]
        out.append(m)
    return out


async def _type_piece(page: Any, text: str) -> None:
    """Key events for what a keyboard has (ASCII), insertText for the rest (CJK, emoji),
    the way an input method commits them."""
    run = ""
    ascii_run = True
    for g in graphemes(text):
        is_ascii = g.isascii()
        if run and is_ascii != ascii_run:
            await (page.keyboard.type(run) if ascii_run else page.keyboard.insert_text(run))
            run = ""
        ascii_run = is_ascii
        run += g
    if run:
        await (page.keyboard.type(run) if ascii_run else page.keyboard.insert_text(run))


__all__ = ["TABS_IN_ALL", "PlaywrightWebPort"]


def _is_data(headers: dict[str, str]) -> bool:
    """A response that brings the page more to show: JSON or text (not images, fonts, scripts)."""
    kind = (headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    return kind.endswith(("/json", "+json")) or kind in ("text/plain", "text/html", "application/x-ndjson")
