"""Risk-control pages recognised from what a real page load gives: Chromium's status, title
and frame URLs, and the main text read through Mika's world (read_main_text).

The pages are the loopback ones under `site/page/` (a 访问异常 check, a sign-up form with a
reCAPTCHA widget frame at the path reCAPTCHA serves it from, a long article that only talks
about captchas) and the site's `/status?code=429`. The accessibility tree is wengine's part;
here it is an empty root, so only the facts above decide.
"""

from __future__ import annotations

from typing import Any

from mika.cap.web.barrier import Barrier, recognise
from mika.cap.web.main_text import read_main_text
from mika.cap.web.port import PageRead, PageState
from mika.uistate.tree import Bounds, UiNode, UiTree, UiWindow
from tests.web.site_server import LocalSite


async def load(page: Any, site: LocalSite, path: str) -> tuple[PageRead, str]:
    response = await page.goto(site.url(path))
    cdp = await page.context.new_cdp_session(page)
    text, _ = await read_main_text(cdp, 4000)
    root = UiNode(class_name="web.RootWebArea", bounds=Bounds(0, 0, 1280, 800))
    tree = UiTree(rotation=0, windows=(UiWindow(0, root, "web", None, Bounds(0, 0, 1280, 800)),), format="web")
    state = PageState(tab="t1", url=page.url, title=await page.title(), status=response.status if response else None)
    frames = tuple(f.url for f in page.frames[1:])
    return PageRead(state=state, tree=tree, viewport=(1280, 800), frames=frames), text


async def test_a_risk_control_page(raw_page: Any, site: LocalSite) -> None:
    read, text = await load(raw_page, site, "/page/risk.html")
    assert "访问异常" in text
    assert recognise(read, text) == Barrier("access_blocked", 'a short page saying "访问异常"')


async def test_a_captcha_widget_frame(raw_page: Any, site: LocalSite) -> None:
    read, text = await load(raw_page, site, "/page/signup.html")
    assert any("/recaptcha/api2/anchor" in f for f in read.frames)
    barrier = recognise(read, text)
    assert barrier is not None and barrier.kind == "captcha" and "reCAPTCHA" in barrier.evidence


async def test_a_rate_limit_status(raw_page: Any, site: LocalSite) -> None:
    read, text = await load(raw_page, site, "/status?code=429")
    assert recognise(read, text) == Barrier("rate_limited", "HTTP 429 Too Many Requests")


async def test_a_long_article_about_captchas_is_not_a_barrier(raw_page: Any, site: LocalSite) -> None:
    read, text = await load(raw_page, site, "/page/captcha_article.html")
    assert "访问异常" in text and "captcha" in text and len(text) > 2000
    assert recognise(read, text) is None
    assert recognise(read, "") is None  # and with no main text at all (the tree is empty here)


async def test_ordinary_pages_are_not_barriers(raw_page: Any, site: LocalSite) -> None:
    for path in ("/page/article.html", "/page/cjk.html", "/page/readonly.html", "/page/empty.html"):
        read, text = await load(raw_page, site, path)
        assert recognise(read, text) is None, path
