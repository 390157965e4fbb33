"""Issue 15, "Done when", reading with web_read_page: the run searches, pages to page 2,
opens the Kenyan coffee and reads the product page's main text (readability-style,
`mika.cap.web.main_text`), then answers from it; the answer's sources name the page.

(tests/web/test_done_when.py answers the same question from the page's listing.)
The main text is wpage's `mika/cap/web/main_text.py` through the isolated world.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from mika.cap.web import WebCapability
from mika.model.testing import Reply
from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import number_for
from tests.web.site_server import LocalSite
from tests.web.test_done_when import Scripted, _kenyan_link, call, make_run, recorded, results_of, tap, web
from tests.web.test_done_when_injected import assert_all_fenced

__all__ = ["web"]  # the fixture, shared with test_done_when


def _answer_from_main_text(_listing: str, results: list[str]) -> str:
    text = results[-1]
    assert text.startswith("Main text of "), text
    altitude = re.search(r"Altitude: ([0-9,–-]+ m)", text)
    process = re.search(r"Process: ([a-z ,]+)", text)
    assert altitude and process, text
    return f"Kenya Nyeri AA is grown at {altitude.group(1)}; its process: {process.group(1).strip()}."


async def test_a_question_is_answered_from_the_main_text_of_a_product_page(
    tmp_path: Path, web: WebCapability, site: LocalSite
) -> None:
    mark = len(site.seen)
    scripted = Scripted(
        [
            call("web_navigate", url=site.url("/")),
            lambda listing, _r: Reply.call(
                "web_type_text",
                element=number_for(listing, "Search the shop", role="input"),
                text="coffee",
                submit=True,
            ),
            call("web_scroll", direction="down", pages=3),
            tap("Next", role="link"),
            _kenyan_link,
            call("web_read_page"),
            _answer_from_main_text,
        ]
    )
    run = make_run(tmp_path, web, scripted, "How high is the shop's Kenyan coffee grown, and how is it processed?")
    result = await asyncio.wait_for(run.run(), 120)

    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert result.answer == "Kenya Nyeri AA is grown at 1,750–1,900 m; its process: washed, double fermented."
    read = results_of(recorded(run), "web_read_page")
    assert [r["ok"] for r in read] == [True]
    # The main text leaves the shop's menus and footer out.
    assert "客服电话" not in scripted.results[-1] and "Privacy" not in scripted.results[-1]
    assert ("/search/", {"q": "coffee", "page": "2"}) in [(r.path, r.query) for r in site.seen[mark:]]
    assert result.sources and result.sources[0]["place"]["id"] == site.url("/product/6/")


async def test_the_injected_page_read_as_main_text_arrives_fenced(
    tmp_path: Path, web: WebCapability, site: LocalSite
) -> None:
    mark = len(site.seen)
    scripted = Scripted(
        [
            call("web_read_page", url=site.url("/injected/")),
            lambda _l, _r: "Reviewers find Gyokuro Yame sweet and brothy.",
        ]
    )
    run = make_run(tmp_path, web, scripted, "What do reviewers say about Gyokuro Yame?")
    result = await asyncio.wait_for(run.run(), 120)
    assert result.status is OutcomeStatus.ANSWERED
    assert scripted.results[0].startswith("Main text of "), scripted.results[0]
    seen = assert_all_fenced(scripted.results)
    assert sum(seen.values()) >= 3, seen  # the visible review, the white text, the Chinese one at least
    assert [(r.method, r.path) for r in site.seen[mark:] if r.path.startswith(("/checkout", "/pay"))] == []
