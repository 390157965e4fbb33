"""`mika web logins list|logout`: the sites the persistent profile is logged in to.

A login is what the profile's cookies say: the cookies are grouped by their site
(registrable-domain-ish, `mika.cap.web.site_modes.site_of`), and logging out of a site
removes every cookie of it and its subdomains. The profile is opened headless for the
look; a profile in use by a running browser is a `WebError` saying so.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from mika.cap.web.options import WebOptions
from mika.cap.web.playwright.browser import find_browser, playwright_chromium_path
from mika.cap.web.port import WebError
from mika.cap.web.site_modes import site_of


@dataclass(frozen=True)
class SiteLogin:
    site: str
    cookies: int


def _profile_locked(options: WebOptions) -> WebError:
    return WebError(
        f"The browser profile {options.profile_dir} is in use by a running browser (a Mika run or a "
        "browser window); close it, then try again.",
        code="profile_locked",
    )


@contextlib.asynccontextmanager
async def _profile(options: WebOptions) -> AsyncIterator[Any]:
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import async_playwright

    from mika.cap.web.playwright.port import CHROMIUM_FLAGS

    if options.profile_dir is None:
        raise WebError("No browser profile is set, so there are no logins to list.", code="no_profile")
    if not options.profile_dir.exists():
        yield None
        return
    pw = await async_playwright().start()
    try:
        exe = find_browser(options.browser, playwright_path=playwright_chromium_path(pw))
        args = list(CHROMIUM_FLAGS)
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")
        try:
            context = await pw.chromium.launch_persistent_context(
                str(options.profile_dir), executable_path=exe, headless=True, args=args
            )
        except PlaywrightError as exc:
            text = str(exc)
            if "ProcessSingleton" in text or "SingletonLock" in text or "already in use" in text:
                raise _profile_locked(options) from None
            raise WebError(
                f"The browser profile could not be opened: {text.splitlines()[0][:300]}", code="no_browser"
            ) from None
        try:
            yield context
        finally:
            with contextlib.suppress(Exception):
                await context.close()
    finally:
        await pw.stop()


async def list_logins(options: WebOptions) -> list[SiteLogin]:
    """Sites with cookies in the profile, most cookies first (then by name)."""
    async with _profile(options) as context:
        if context is None:
            return []
        counts: dict[str, int] = {}
        for cookie in await context.cookies():
            site = site_of(str(cookie.get("domain", "")).lstrip("."))
            if site:
                counts[site] = counts.get(site, 0) + 1
    return [SiteLogin(site, n) for site, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


async def logout(options: WebOptions, site: str | None) -> int:
    """Remove the cookies of `site` (and its subdomains), or of every site when None.
    Returns how many were removed."""
    wanted = site_of(site) if site is not None else None
    if site is not None and not wanted:
        raise WebError(f"{site!r} names no site; give one like example.com.", code="bad_site")
    async with _profile(options) as context:
        if context is None:
            return 0
        before = await context.cookies()
        if wanted is None:
            await context.clear_cookies()
            return len(before)
        pattern = re.compile(r"^\.?(?:.*\.)?" + re.escape(wanted) + r"$", re.IGNORECASE)
        mine = [c for c in before if site_of(str(c.get("domain", "")).lstrip(".")) == wanted]
        if mine:
            await context.clear_cookies(domain=pattern)
        after = await context.cookies()
        return len(before) - len(after)
