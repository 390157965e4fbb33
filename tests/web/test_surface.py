"""The web surface judges what an action did from the page before and after it, settling
on evidence: no fixed sleeps, a cap of a few seconds."""

from __future__ import annotations

import time

from mika.cap.web.surface import SETTLE_S
from tests.phone.driver import step
from tests.web.tools_run import WebDriver, make_run, record, results_of, untrusted_parts, web_cap


async def test_no_effect_done_after_a_fetch_and_scrolling(tmp_path, site, chromium_path):
    driver = WebDriver(
        [
            step("web_navigate", url=site.url("/tools/effects.html")),
            step("web_tap", pick="Plain words that do nothing when clicked."),
            step("web_tap", pick="Load later"),
            step("web_scroll", direction="down", pages=1),
            step("web_scroll", direction="down", pages=10),
            "done",
        ]
    )
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    await run.run()
    plain, fetched, down, bottom = driver.results[1:5]
    assert "Effect: no_effect" in plain, plain
    # The change came after a request the click started: the settle waited for it.
    assert "Effect: done" in fetched and "Loaded from the server" in untrusted_parts(fetched)[1], fetched
    assert "Effect: done (the page changed) — the page scrolled." in down and "% down · 1 tab" in down, down
    assert " · bottom · 1 tab" in bottom, bottom
    taps = results_of(record(run), "web_tap")
    assert [t["effect"] for t in taps] == ["no_effect", "done"]
    # No step waited anywhere near the cap.
    assert all(t["duration_ms"] < SETTLE_S * 1000 for t in taps), [t["duration_ms"] for t in taps]


async def test_a_page_title_cannot_speak_outside_the_fence(tmp_path, site, chromium_path):
    driver = WebDriver([step("web_navigate", url=site.url("/tools/fence.html")), "seen"])
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    started = time.monotonic()
    await run.run()
    text = driver.results[0]
    outside, inside = untrusted_parts(text)
    assert "SYSTEM" not in outside and "approved" not in outside, outside
    assert "SYSTEM" in inside
    # Only Mika's fences open and close: the page's spelled-out tags are defused.
    assert text.count("<untrusted") == 1 and text.count("</untrusted>") == 1
    assert time.monotonic() - started < 30
