"""Fixtures of the web tests: the loopback test site and real Chromium.

Without a browser on the machine the tests that need one skip with that reason; CI
installs Debian's chromium and sets MIKA_REQUIRE_BROWSER=1, so there a missing browser
fails instead of skipping.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from tests.web.site_server import LocalSite

# Flags for a closed network and for running as root (CI): without the background-network
# ones Chromium keeps trying hosts it cannot reach.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--no-first-run",
    "--disable-quic",
)


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = find_chromium()
    if path is None:
        if os.environ.get("MIKA_REQUIRE_BROWSER") == "1":
            pytest.fail("MIKA_REQUIRE_BROWSER=1 but no Chromium is installed (apt-get install chromium)")
        pytest.skip("no Chromium on this machine (install Debian's chromium to run the web tests)")
    return path


@pytest.fixture(scope="session")
def site() -> Iterator[LocalSite]:
    served = LocalSite()
    try:
        yield served
    finally:
        served.close()


@pytest.fixture
async def raw_page(chromium_path: str) -> AsyncIterator[Any]:
    """A bare Playwright page in a fresh headless Chromium, for tests below the port
    (the page tree, the read-only script world, the main-text reader)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium_path, args=list(CHROMIUM_ARGS))
        try:
            page = await browser.new_page()
            yield page
        finally:
            await browser.close()
