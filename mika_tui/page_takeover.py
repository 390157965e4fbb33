"""A takeover of a browser page (a login, a captcha): what the takeover card's two
choices do with the run's browser.

`operate`: the preview's clicks and keys go to the page as real input events
(`mika.assembly.live_page.PageInput`). `window`: the page opens in a visible Chromium
window on the run's own profile, so what the user does there (a login's cookies) is what
the run has afterwards. Chromium lets one browser at a time use a profile, so the run's
headless browser is closed first (releasing the profile) and, when the user says Done, the
window is closed and the run's browser opens again on the page the user left. The limits
are said, not hidden: no desktop display (a server, an SSH session) or a throwaway profile
(nothing would be shared) refuse the window with one sentence; operating from the preview
still works there.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from mika.assembly.live_page import LivePage, PageInput
from mika.cap.web.port import WebError


def desktop_display() -> bool:
    """Whether a visible window can be shown: macOS and Windows always have a desktop;
    elsewhere an X or Wayland display must be set."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _visible_port(options: Any) -> Any:
    from mika.cap.web.playwright import PlaywrightWebPort

    return PlaywrightWebPort(replace(options, headless=False))


class PageTakeover:
    def __init__(
        self,
        page: LivePage,
        capabilities: Iterable[Any] = (),
        *,
        question_id: str = "",
        make_window: Callable[[Any], Any] = _visible_port,
    ) -> None:
        self.page = page
        self.question_id = question_id
        self.options = page.options or next(
            (getattr(c, "options", None) for c in capabilities if getattr(c, "id", "") == "web"), None
        )
        self.make_window = make_window
        self.window: Any = None
        self.window_url = ""

    def input(self) -> PageInput:
        """The preview's hands on the page (made on the run's loop, used from the input thread)."""
        return PageInput(self.page.port, asyncio.get_running_loop())

    async def open_window(self) -> str:
        """The page in a visible browser window on the run's profile; its address."""
        options = self.options
        if options is None or getattr(options, "profile_dir", None) is None:
            raise WebError(
                "this run's browser keeps no profile, so a window would not share its logins", code="no_profile"
            )
        if not desktop_display():
            raise WebError("there is no desktop display to open a browser window on", code="no_display")
        port = self.page.port
        state = await port.state()
        self.window_url = state.url
        self.page.stop()
        await port.close()  # Chromium allows one browser per profile: the run's lets go first
        window = self.make_window(options)
        try:
            await window.open(self.window_url)
        except BaseException:
            await window.close()
            await self._back_to(self.window_url)
            raise
        self.window = window
        return self.window_url

    async def finish(self) -> None:
        """Done or Skip: a window is closed and the run's browser opens where the user left."""
        window, self.window = self.window, None
        if window is None:
            return
        url = self.window_url
        try:
            url = (await window.state()).url or url
        except WebError:
            pass  # the user closed the window themselves: the page they were sent to
        finally:
            await window.close()
        await self._back_to(url)

    async def _back_to(self, url: str) -> None:
        await self.page.port.open(url)
        self.page.start()
