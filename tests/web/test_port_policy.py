"""Adversarial: every route a page has to walk Mika's browser off http(s) — a redirect,
a meta refresh, `location = …`, a link, `window.open`, a target=_blank link, an address
with a password in it — ends on the page it started from, with nothing of the local
machine read. Real Chromium against the loopback site; nothing mocked."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

import tests.web.engine_routes  # noqa: F401 - registers the /engine/ dynamic pages
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.cap.web.playwright.tab_budget import TabBudget
from mika.cap.web.port import UrlRefused, WebError
from tests.web.site_server import LocalSite


@pytest.fixture
async def port(chromium_path: str) -> AsyncIterator[PlaywrightWebPort]:
    made = PlaywrightWebPort(WebOptions(browser=chromium_path), budget=TabBudget())
    yield made
    await made.close()


async def _nothing_local_was_shown(port: PlaywrightWebPort) -> None:
    for tab in await port.tabs():
        assert tab.url.startswith(("http://127.0.0.1", "about:blank")), tab
    read = await port.read()
    texts = " ".join(n.text for n in read.tree.nodes())
    assert "root:x:0:0" not in texts and "chrome://" not in read.state.url


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "chrome://settings",
        "javascript:alert(document.cookie)",
        "data:text/html,<h1>hi</h1>",
        "view-source:http://127.0.0.1/",
        "about:config",
        "http://user:pw@127.0.0.1/",
    ],
)
async def test_the_model_cannot_open_other_schemes(port: PlaywrightWebPort, url: str) -> None:
    with pytest.raises(UrlRefused):
        await port.open(url)
    with pytest.raises(UrlRefused):
        await port.open(url, new_tab=True)


@pytest.mark.parametrize("path", ["/engine/redirect-file", "/engine/redirect-chrome"])
async def test_a_redirect_to_a_refused_scheme_is_refused(port: PlaywrightWebPort, site: LocalSite, path: str) -> None:
    with pytest.raises(WebError) as err:
        await port.open(site.url(path))
    assert err.value.code in ("url_refused", "navigation_failed")
    await _nothing_local_was_shown(port)


@pytest.mark.parametrize("path", ["/engine/meta-file.html", "/engine/location-chrome.html"])
async def test_a_page_moving_itself_to_a_refused_scheme_stays_put(
    port: PlaywrightWebPort, site: LocalSite, path: str
) -> None:
    await port.open(site.url(path))
    assert (await port.wait_for(network_quiet=True, timeout_s=10)).met
    state = await port.state()
    assert state.url == site.url(path)
    await _nothing_local_was_shown(port)


async def test_links_and_window_open_to_file_do_nothing(port: PlaywrightWebPort, site: LocalSite) -> None:
    await port.open(site.url("/engine/open-file.html"))
    read = await port.read()
    for label in ("Local file link", "Local file in new tab", "Open a file window", "View source"):
        target = next(n for n in read.tree.nodes() if n.text == label)
        box = await port.element_box(target.resource_id)
        assert box is not None
        await port.click((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        await port.wait_for(network_quiet=True, timeout_s=10)
        await _nothing_local_was_shown(port)
    assert (await port.state()).url == site.url("/engine/open-file.html")


async def test_a_page_cannot_navigate_or_pop_up_an_address_with_a_password(
    port: PlaywrightWebPort, site: LocalSite
) -> None:
    """Chromium would open these; the port's route check aborts them before any request,
    the tab goes back to where it was and the popup is closed."""
    page_url = site.url("/engine/creds.html")
    await port.open(page_url)

    def blocked() -> int:
        return sum("blocked" in n for n in port.notes)

    target = next(n for n in (await port.read()).tree.nodes() if n.text == "Go with a password")
    box = await port.element_box(target.resource_id)
    assert box is not None
    await port.click((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    assert await port.wait_until(lambda: any("went back" in n for n in port.notes), 10), port.notes
    assert blocked() == 1 and (await port.state()).url == page_url

    target = next(n for n in (await port.read()).tree.nodes() if n.text == "Popup with a password")
    box = await port.element_box(target.resource_id)
    assert box is not None
    await port.click((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    assert await port.wait_until(lambda: blocked() == 2 and len(port._tabs) == 1 and bool(port.popups), 10), port.notes
    assert port.popups == ("t2",)  # the popup came, refused, and was closed
    assert not [r for r in site.seen if r.path.startswith(("/engine/creds-target", "/engine/creds-popup"))]
    assert [t.url for t in await port.tabs()] == [page_url]
    assert any("t2" in n and "closed" in n for n in port.notes)
