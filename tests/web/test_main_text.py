"""The page's main text (web_read_page), readability-style, read through Mika's isolated world.

Real Chromium on the loopback pages under `site/page/`: an article among navigation,
header, footer, aside, cookie banner and fixed-widget noise with hidden text of every
kind; a Chinese page; a page that builds 3000 paragraphs (the cut); a page of plain divs
(the densest block); an empty page. `cut_to_budget` is also checked on its own.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mika.cap.web.main_text import cut_to_budget, read_main_text
from mika.cap.web.port import WebError
from tests.web.site_server import LocalSite


async def open_page(page: Any, site: LocalSite, path: str) -> Any:
    await page.goto(site.url(path))
    return await page.context.new_cdp_session(page)


async def test_article_without_the_noise(raw_page: Any, site: LocalSite) -> None:
    cdp = await open_page(raw_page, site, "/page/article.html")
    html_before = await raw_page.content()
    text, cut = await read_main_text(cdp, 4000)
    assert not cut
    lines = text.split("\n")
    assert lines[0] == "# Trail shoes, tested for a month"
    assert "By Lin, 3 May" in lines  # the article's own header stays
    assert "We ran 200 km in the Ridge 3 on wet rock and forest paths. The grip held up well." in lines
    assert "# What we liked" in lines
    assert "- Grip on wet rock" in lines and "- Weight: 280 g a shoe" in lines  # inline bold folded in
    assert "Size | Price" in lines and "42 | ¥699" in lines
    assert lines[-1] == "Verdict: buy them if you run in the rain."
    for noise in (
        "Shop home", "Deals", "Site banner heading", "Men", "Women", "cookies", "Accept all",
        "ASIDE TEXT", "Related", "FIXED CHAT", "FOOTER TEXT", "About", "Tags:", "SCRIPT TEXT",
        "HIDDEN", ".gone", "<", ">",
    ):  # fmt: skip
        assert noise not in text, noise
    assert "  " not in text  # whitespace folded
    assert await raw_page.content() == html_before  # read only


async def test_chinese_text(raw_page: Any, site: LocalSite) -> None:
    cdp = await open_page(raw_page, site, "/page/cjk.html")
    text, cut = await read_main_text(cdp, 2000)
    assert not cut
    assert text.split("\n") == [
        "# 订单 20260501 详情",
        "您的订单已发货，预计 明天送达。快递公司：顺丰速运。",  # the ideographic space folded too
        "- 商品：跑鞋 一双",
        "- 金额：¥699",
        "如有问题请联系客服。",
    ]
    short, cut = await read_main_text(cdp, 25)
    assert cut and len(short) <= 25
    assert short == "# 订单 20260501 详情"  # cut on the line edge


async def test_a_huge_page_is_cut_on_an_edge(raw_page: Any, site: LocalSite) -> None:
    cdp = await open_page(raw_page, site, "/page/huge.html")
    await raw_page.wait_for_function("document.querySelectorAll('p').length === 3000")
    text, cut = await read_main_text(cdp, 5000)
    assert cut
    assert 3000 <= len(text) <= 5000
    assert text.startswith("# The long report\nParagraph 1 starts here.")
    assert text.endswith("a little longer.")  # a whole paragraph, not half a word
    assert "Paragraph 3000" not in text


async def test_densest_block_without_main_or_article(raw_page: Any, site: LocalSite) -> None:
    cdp = await open_page(raw_page, site, "/page/divsoup.html")
    text, cut = await read_main_text(cdp, 3000)
    assert not cut
    assert text.split("\n") == [
        "First post: the battery lasts about two days with normal use, which is better than my old phone.",
        "Second post: charging from zero to full takes roughly ninety minutes with the bundled charger.",
        "Third post: in cold weather the battery drops faster, so keep the phone in an inner pocket.",
    ]


async def test_an_empty_page(raw_page: Any, site: LocalSite) -> None:
    cdp = await open_page(raw_page, site, "/page/empty.html")
    assert await read_main_text(cdp, 1000) == ("", False)
    with pytest.raises(WebError):
        await read_main_text(cdp, 0)


async def test_password_values_and_typed_text_never_appear(raw_page: Any, site: LocalSite) -> None:
    cdp = await open_page(raw_page, site, "/page/readonly.html")
    await raw_page.fill("#pw", "typed-secret")
    text, _ = await read_main_text(cdp, 4000)
    assert "secret" not in text
    assert "# Order 42" in text.split("\n")


async def test_shares_the_locked_world_with_read_only_scripts(raw_page: Any, site: LocalSite) -> None:
    # After reading the text, a script in the same world still cannot write (the reader did
    # not unlock anything), and the page's own world never saw either.
    from mika.cap.web.isolated import evaluate_isolated

    cdp = await open_page(raw_page, site, "/page/readonly.html")
    counters = "JSON.stringify([pageMutations, pageClicks, pageEvents.length])"
    before = json.loads(await raw_page.evaluate(counters))
    await read_main_text(cdp, 1000)
    with pytest.raises(WebError) as caught:
        await evaluate_isolated(cdp, "document.body.innerHTML = ''", timeout_s=3)
    assert caught.value.code == "blocked"
    assert await raw_page.evaluate("typeof window.__mikaRO") == "undefined"
    assert json.loads(await raw_page.evaluate(counters)) == before


# ---------------------------------------------------------------- the cut on its own


def test_cut_prefers_a_line_edge() -> None:
    text = "First paragraph is here.\nSecond paragraph is a bit longer than that.\nThird."
    assert cut_to_budget(text, 70) == ("First paragraph is here.\nSecond paragraph is a bit longer than that.", True)


def test_cut_falls_back_to_a_sentence_then_a_word() -> None:
    text = "One sentence here. Another sentence that goes on and on without a stop"
    # the only sentence edge (18) is too early for a 40-character budget: cut at a word
    assert cut_to_budget(text, 40) == ("One sentence here. Another sentence", True)
    assert cut_to_budget("Short one. " + "x" * 10 + ". Then a very long tail without end", 30) == (
        "Short one. xxxxxxxxxx.",
        True,
    )
    assert cut_to_budget("第一句话很长很长很长。第二句", 13) == ("第一句话很长很长很长。", True)
    # no edge at all (CJK without spaces or a late sentence end): the budget itself
    head, cut = cut_to_budget("这是第一句话。这是第二句话，很长很长很长很长很长很长", 20)
    assert cut and len(head) == 20


def test_cut_keeps_short_text_whole() -> None:
    assert cut_to_budget("short", 100) == ("short", False)
    assert cut_to_budget("", 10) == ("", False)
    assert cut_to_budget("abc", 0) == ("", True)


async def test_open_shadow_roots_are_read_as_rendered(raw_page: Any, site: LocalSite) -> None:
    cdp = await open_page(raw_page, site, "/page/shadow.html")
    text, _ = await read_main_text(cdp, 2000)
    assert text.split("\n") == [
        "# Product notes",
        "Shadow text before the slot.",
        "Light child in the slot.",
        "After the component.",
    ]
