"""Issue 15: risk-control pages (a captcha frame, a challenge page, "unusual traffic" /
访问异常, HTTP 429) are recognised and handed to the user, not retried in a loop.

Real runs in real Chromium on the loopback site: the navigate's result says what the page
is and to hand it over (code access_blocked); the scripted model then tries again, and the
retry is refused before it reaches the site (code site_blocked) — the site saw the page
asked for once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mika.cap.web import WebCapability
from tests.web.site_server import LocalSite
from tests.web.test_done_when import Scripted, call, make_run, recorded, results_of, web

__all__ = ["web"]  # the fixture, shared with test_done_when

PAGES = [
    ("/captcha/", "captcha"),
    ("/captcha/turnstile/", "captcha"),
    ("/blocked/", "risk-control block"),
    ("/status?code=429", "rate limit"),
]


@pytest.mark.parametrize(("path", "said"), PAGES)
async def test_a_risk_control_page_is_handed_over_and_not_retried(
    tmp_path: Path, web: WebCapability, site: LocalSite, path: str, said: str
) -> None:
    url = site.url(path)
    scripted = Scripted(
        [
            call("web_navigate", url=url),
            call("web_navigate", url=url),  # a model that tries again
            call("web_navigate", url=site.url("/search/?q=tea")),  # … or elsewhere on the site
            lambda _l, _r: "The site wants a person to check; over to you.",
        ]
    )
    mark = len(site.seen)
    run = make_run(tmp_path, web, scripted, "Look at the shop's page.")
    await asyncio.wait_for(run.run(), 120)

    navs = results_of(recorded(run), "web_navigate")
    assert [n["code"] for n in navs] == ["access_blocked", "site_blocked", "site_blocked"], navs
    first = scripted.results[0]
    assert said in first.lower() and "hand_to_user" in first, first
    asked = [r for r in site.seen[mark:] if r.path != "/favicon.ico"]
    assert [
        r.path for r in asked if r.path in ("/captcha/", "/captcha/turnstile/", "/blocked/", "/status", "/search/")
    ] == [path.split("?")[0]], [r.path for r in asked]
