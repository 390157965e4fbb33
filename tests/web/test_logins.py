"""Logins live in the persistent profile: a cookie survives a restart of the port with
the same profile, `list_logins` names the site, `logout` removes it; a profile in use by a
running browser is a clear error. Real Chromium, real profile folder."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

import tests.web.engine_routes  # noqa: F401 - registers /engine/login and /engine/whoami
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.cap.web.playwright.logins import SiteLogin, list_logins, logout
from mika.cap.web.playwright.tab_budget import TabBudget
from mika.cap.web.port import WebError
from tests.web.site_server import LocalSite


async def _who(options: WebOptions, site: LocalSite) -> str:
    port = PlaywrightWebPort(options, budget=TabBudget())
    try:
        await port.open(site.url("/engine/whoami"))
        read = await port.read()
        return next(n.text for n in read.tree.nodes() if n.text in ("signed in", "anonymous"))
    finally:
        await port.close()


async def test_a_login_survives_a_restart_and_logout_removes_it(
    chromium_path: str, site: LocalSite, tmp_path: Path
) -> None:
    profile = tmp_path / "browser" / "profile"
    options = WebOptions(browser=chromium_path, profile_dir=profile)
    port = PlaywrightWebPort(options, budget=TabBudget())
    try:
        await port.open(site.url("/engine/login"))
    finally:
        await port.close()
    assert stat.S_IMODE(profile.stat().st_mode) == 0o700
    assert await _who(options, site) == "signed in"  # a new browser, the same profile
    assert await list_logins(options) == [SiteLogin("127.0.0.1", 1)]
    assert await logout(options, "http://127.0.0.1/anything") == 1
    assert await _who(options, site) == "anonymous"


async def test_logout_all_and_a_profile_never_used(chromium_path: str, site: LocalSite, tmp_path: Path) -> None:
    options = WebOptions(browser=chromium_path, profile_dir=tmp_path / "profile")
    assert await list_logins(options) == []  # no folder yet: nothing to open
    assert await logout(options, None) == 0
    port = PlaywrightWebPort(options, budget=TabBudget())
    try:
        await port.open(site.url("/engine/login"))
    finally:
        await port.close()
    assert await logout(options, "example.com") == 0  # another site's logout removes nothing
    assert await logout(options, None) == 1


async def test_a_profile_in_use_is_a_clear_error(chromium_path: str, site: LocalSite, tmp_path: Path) -> None:
    options = WebOptions(browser=chromium_path, profile_dir=tmp_path / "profile")
    port = PlaywrightWebPort(options, budget=TabBudget())
    try:
        await port.open(site.url("/engine/login"))
        with pytest.raises(WebError) as err:
            await list_logins(options)
        assert err.value.code == "profile_locked" and "in use" in str(err.value)
    finally:
        await port.close()


async def test_no_profile_and_a_bad_site_name(tmp_path: Path) -> None:
    with pytest.raises(WebError, match="No browser profile"):
        await list_logins(WebOptions(profile_dir=None))
    with pytest.raises(WebError, match="names no site"):
        await logout(WebOptions(profile_dir=tmp_path), "")
