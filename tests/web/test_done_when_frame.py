"""A same-origin iframe through the tools, in a real run: the frame's table is in the
page's listing, and typing and tapping inside the frame work like anywhere else."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mika.cap.web import WebCapability
from mika.model.testing import Reply
from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import number_for
from tests.web.site_server import LocalSite
from tests.web.test_done_when import Scripted, call, make_run, recorded, results_of, tap, web

__all__ = ["web"]  # the fixture, shared with test_done_when


async def test_a_framed_form_is_read_typed_into_and_submitted(
    tmp_path: Path, web: WebCapability, site: LocalSite
) -> None:
    scripted = Scripted(
        [
            call("web_navigate", url=site.url("/frame/")),
            lambda listing, _r: Reply.call(
                "web_type_text", element=number_for(listing, "Postcode", role="input"), text="310000"
            ),
            tap("Get a quote", role="button"),
            lambda listing, _r: "Shipping to 310000 costs ¥12." if "Rate for 310000: ¥12" in listing else listing,
        ]
    )
    run = make_run(tmp_path, web, scripted, "What does shipping to 310000 cost?")
    result = await asyncio.wait_for(run.run(), 120)
    assert result.status is OutcomeStatus.ANSWERED
    assert result.answer == "Shipping to 310000 costs ¥12.", result.answer
    opened = scripted.results[0]
    assert "Carrier rates 运费" in opened and "Mainland China 中国大陆" in opened  # the frame's content, listed
    events = recorded(run)
    assert [t["ok"] for t in results_of(events, "web_type_text")] == [True]
    assert [t["ok"] for t in results_of(events, "web_tap")] == [True]
