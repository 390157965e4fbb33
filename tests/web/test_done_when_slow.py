"""Slow pages through the tools, in real runs: a page whose body arrives 1.5 s after its
head is shown whole after web_navigate (the navigate waits for the document, not a
clock); a page whose content appears by script 4 s later is waited for with web_wait_for
(a real condition: the text), and the wait ends when the text shows."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from mika.cap.web import WebCapability
from mika.runtypes.result import OutcomeStatus
from tests.web.site_server import LocalSite
from tests.web.test_done_when import Scripted, call, make_run, recorded, results_of, web

__all__ = ["web"]  # the fixture, shared with test_done_when


async def test_a_slow_body_is_shown_whole_after_the_navigate(
    tmp_path: Path, web: WebCapability, site: LocalSite
) -> None:
    scripted = Scripted([call("web_navigate", url=site.url("/slow/?ms=1500")), lambda _l, _r: "Read."])
    run = make_run(tmp_path, web, scripted, "What is the roast schedule?")
    result = await asyncio.wait_for(run.run(), 120)
    assert result.status is OutcomeStatus.ANSWERED
    assert "Served after 1500 ms." in scripted.results[0] and "Next roast: Kenya Nyeri AA" in scripted.results[0]


async def test_content_that_appears_later_is_waited_for_by_its_text(
    tmp_path: Path, web: WebCapability, site: LocalSite
) -> None:
    scripted = Scripted(
        [
            call("web_navigate", url=site.url("/slow/script/?ms=4000")),
            call("web_wait_for", text="In stock: 14 bags", timeout_s=20),
            lambda _l, _r: "Kenya Nyeri AA is in stock.",
        ]
    )
    run = make_run(tmp_path, web, scripted, "Is the Kenyan coffee in stock?")
    result = await asyncio.wait_for(run.run(), 120)
    assert result.status is OutcomeStatus.ANSWERED
    assert "In stock: 14 bags" not in scripted.results[0]  # not there when the page opened
    waited = scripted.results[1]
    assert "In stock: 14 bags of Kenya Nyeri AA in Hangzhou" in waited and "Reserve a bag" in waited
    m = re.search(r"The wait ended after ([0-9.]+) s", waited)
    assert m and float(m.group(1)) < 20, waited  # it ended on the text, not at its timeout
    assert [w["ok"] for w in results_of(recorded(run), "web_wait_for")] == [True]
