"""The test site and the browser fixture work: Chromium loads a loopback page."""

from __future__ import annotations

from typing import Any

from tests.web.site_server import LocalSite


async def test_chromium_loads_the_loopback_site(raw_page: Any, site: LocalSite) -> None:
    response = await raw_page.goto(site.url("/"))
    assert response.status == 200
    assert await raw_page.title() == "Mika test site"
    rate_limited = await raw_page.goto(site.url("/status?code=429"))
    assert rate_limited.status == 429
    assert any(r.path == "/status" and r.query == {"code": "429"} for r in site.seen)
