"""A takeover of a browser page (a login, a captcha): what the takeover card's two
choices do with the run's browser.

`operate`: the preview's clicks and keys go to the page as real input events
(`mika.assembly.live_page.PageInput`). `window`: the page opens in a visible Chromium
window, and what the user does there (a login's cookies) is the run's afterwards.

Why not the run's profile folder itself: Chromium lets one browser at a time use a
profile, and the run's port cannot start again once closed (its `close()` is final), so
closing the run's headless browser to free the folder would end the run's browsing. The
window is therefore a browser of its own that starts with the run's cookies and site
storage (`storage_state` of the run's browser context) and gives its cookies back when the
user says Done (`add_cookies` into the run's context, which a persistent profile keeps);
then the run's tab opens the address the user left. What does not come back: site storage
written in the window (localStorage) and the window's history. No desktop display (a
server, an SSH session) refuses the window with one sentence; operating from the preview
works everywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Iterable
from typing import Any

from mika.assembly.live_page import LivePage, PageInput
from mika.cap.web.port import WebError
from mika.cap.web.url_policy import is_allowed


def desktop_display() -> bool:
    """Whether a visible window can be shown: macOS and Windows always have a desktop;
    elsewhere an X or Wayland display must be set."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class PageWindow:
    """A visible Chromium window on one page, seeded with the run's cookies and storage."""

    def __init__(self) -> None:
        self._pw: Any = None
        self._browser: Any = None
        self.context: Any = None
        self.page: Any = None

    async def open(self, executable: str, storage: dict, url: str, *, headless: bool = False) -> None:
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import async_playwright

        from mika.cap.web.playwright.port import CHROMIUM_FLAGS

        args = list(CHROMIUM_FLAGS)
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to start its sandbox as root
        self._pw = await async_playwright().start()
        try:
            self._browser = await self._pw.chromium.launch(executable_path=executable, headless=headless, args=args)
            # No fixed viewport: the window is the user's to size.
            self.context = await self._browser.new_context(storage_state=storage, no_viewport=True)
            # The window keeps to the run's rule: http(s) pages only.
            await self.context.route("**/*", self._route)
            self.page = await self.context.new_page()
            await self.page.goto(url, wait_until="domcontentloaded")
        except PlaywrightError as exc:
            await self.close()
            raise WebError(
                f"the browser window did not open: {str(exc).splitlines()[0]}", code="window_failed"
            ) from None

    @staticmethod
    async def _route(route: Any) -> None:
        if is_allowed(route.request.url):
            await route.continue_()
        else:
            await route.abort("blockedbyclient")

    async def where(self) -> str:
        """The address of the window's page now ("" when the user closed it)."""
        pages = list(self.context.pages) if self.context is not None else []
        return pages[-1].url if pages else ""

    async def cookies(self) -> list[dict]:
        return await self.context.cookies() if self.context is not None else []

    async def close(self) -> None:
        for closer in (self.context, self._browser):
            if closer is not None:
                with contextlib.suppress(Exception):
                    await closer.close()
        if self._pw is not None:
            with contextlib.suppress(Exception):
                await self._pw.stop()
        self._pw = self._browser = self.context = self.page = None


class PageTakeover:
    def __init__(
        self,
        page: LivePage,
        capabilities: Iterable[Any] = (),
        *,
        question_id: str = "",
        headless_window: bool = False,
    ) -> None:
        self.page = page
        self.question_id = question_id
        self.options = page.options or next(
            (getattr(c, "options", None) for c in capabilities if getattr(c, "id", "") == "web"), None
        )
        # A window nobody sees: only for machines without a desktop that test the hand-over.
        self.headless_window = headless_window
        self.window: PageWindow | None = None
        self.window_url = ""

    def input(self) -> PageInput:
        """The preview's hands on the page (made on the run's loop, used from the input thread)."""
        return PageInput(self.page.port, asyncio.get_running_loop())

    def _run_context(self) -> Any:
        # The run's Playwright context: the WebPort protocol has no cookie calls (yet), so
        # the hand-over reads the Playwright port's own context.
        context = getattr(self.page.port, "_context", None)
        if context is None:
            raise WebError("the run's browser has no page open to hand over", code="page_closed")
        return context

    async def open_window(self) -> str:
        """The page in a visible browser window with the run's cookies; its address."""
        if not self.headless_window and not desktop_display():
            raise WebError("there is no desktop display to open a browser window on", code="no_display")
        context = self._run_context()
        state = await self.page.port.state()
        storage = await context.storage_state()
        window = PageWindow()
        executable = getattr(self.page.port, "executable", "") or getattr(self.options, "browser", "")
        await window.open(executable, storage, state.url, headless=self.headless_window)
        self.window, self.window_url = window, state.url
        return state.url

    async def finish(self) -> None:
        """Done or Skip: the window's cookies go to the run's browser, the window closes,
        and the run's tab opens the address the user left."""
        window, self.window = self.window, None
        if window is None:
            return
        try:
            url = await window.where() or self.window_url
            cookies = await window.cookies()
        finally:
            await window.close()
        if cookies:
            await self._run_context().add_cookies(cookies)
        if url and is_allowed(url):
            await self.page.port.open(url)
        self.page.start()
