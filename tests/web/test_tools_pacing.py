"""Page pacing at a non-fast pace (seed §6 一页一页看的节奏), through the web tools: the dwell
a page is owed is waited before the next page-changing action and reported as the call's
wait_ms (never told to the model); a new user message ends it and nothing is done; past a
site's page limit page-changing actions are refused with page_limit.

The run's clock and its sleep are the seams (as in tests/core/test_pace_runs.py): the
dwell's seconds pass on a clock the test owns, so no test waits 4–7 real seconds."""

from __future__ import annotations

import asyncio
import re

import pytest

from mika.cap.web import WebCapability
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from tests.phone.driver import step
from tests.web.tools_run import WebDriver, make_run, record, results_of


def paced_cap(chromium_path: str, now: list[float]) -> WebCapability:
    options = WebOptions(browser=chromium_path, pace="standard")
    return WebCapability(PlaywrightWebPort(options), options, clock=lambda: now[0])


def owned_sleep_seam(run, sleep) -> None:
    def seam(_event) -> None:
        loop = getattr(run, "loop", None)
        if loop is not None:
            loop.ctx.sleep = sleep

    run.subscribe(seam)


@pytest.mark.parametrize("run_pace", [None, "standard"])
async def test_the_second_page_of_a_site_is_dwelt_on_and_the_wait_is_in_wait_ms(
    tmp_path, site, chromium_path, run_pace
):
    # With the run itself at standard pace too, the page is dwelt on once: the action
    # entry's app dwell (made for phone apps) is not added on top of the page's.
    now = [1000.0]
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    driver = WebDriver(
        [
            step("web_navigate", url=site.url("/tools/page.html")),
            step("web_tap", pick="Go to the second page"),  # the first page of the site: no dwell
            step("web_tap", pick="Back to the tools page"),  # the second page: owed 4–7 s
            "done",
        ]
    )
    run = make_run(tmp_path, paced_cap(chromium_path, now), driver, clock=lambda: now[0], pace=run_pace)
    owned_sleep_seam(run, sleep)
    await asyncio.wait_for(run.run(), 60)
    taps = results_of(record(run), "web_tap")
    assert [t["code"] for t in taps] == ["done", "done"]
    assert taps[0]["wait_ms"] == 0
    assert len(sleeps) == 1 and 4.0 <= sleeps[0] <= 7.0, sleeps
    assert taps[1]["wait_ms"] == round(sleeps[0] * 1000)
    told = "\n".join(driver.results)
    assert not re.search(r"dwell|waited|\bpace\b", told, re.I) and str(taps[1]["wait_ms"]) not in told


async def test_a_user_message_during_the_dwell_skips_the_click(tmp_path, site, chromium_path):
    now = [1000.0]
    dwelling = asyncio.Event()

    async def sleep(seconds: float) -> None:
        dwelling.set()
        await asyncio.Event().wait()  # until the steer ends the race

    driver = WebDriver(
        [
            step("web_navigate", url=site.url("/tools/page.html")),
            step("web_tap", pick="Go to the second page"),
            step("web_tap", pick="Back to the tools page"),
            "stopped",
        ]
    )
    run = make_run(tmp_path, paced_cap(chromium_path, now), driver, clock=lambda: now[0])
    owned_sleep_seam(run, sleep)
    task = asyncio.create_task(run.run())
    await asyncio.wait_for(dwelling.wait(), 30)
    since = len(site.seen)
    now[0] += 0.4
    run.steer("stop, wrong page")
    await asyncio.wait_for(task, 30)
    taps = results_of(record(run), "web_tap")
    assert [t["code"] for t in taps] == ["done", "skipped_for_new_message"]
    assert taps[1]["wait_ms"] == 400
    assert not any(r.path == "/tools/page.html" for r in site.seen[since:])


async def test_past_the_page_limit_navigation_is_refused(tmp_path, site, chromium_path):
    now = [1000.0]

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    pages = [step("web_navigate", url=site.url(f"/tools/second.html?n={i}")) for i in range(21)]
    driver = WebDriver([*pages, step("web_scroll", direction="down"), "enough"])
    run = make_run(tmp_path, paced_cap(chromium_path, now), driver, clock=lambda: now[0])
    owned_sleep_seam(run, sleep)
    since = len(site.seen)
    await asyncio.wait_for(run.run(), 120)
    navs = results_of(record(run), "web_navigate")
    assert [n["code"] for n in navs[:20]] == ["done"] * 20
    assert navs[20]["code"] == "page_limit"
    assert "ask_user" in driver.results[20]
    assert not any(r.query.get("n") == "20" for r in site.seen[since:])
    assert results_of(record(run), "web_scroll")[0]["ok"]  # scrolling goes on


@pytest.mark.parametrize("loads_more", [True, False])
async def test_a_scroll_that_loaded_more_counts_as_a_new_page(tmp_path, site, chromium_path, loads_more):
    # Seed §6: a scroll down after which the page received JSON/text answers (infinite
    # scroll) brought a new page, so the next page-changing action owes that page's dwell.
    # The same scrolls on a list that loads nothing owe nothing.
    now = [1000.0]
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    steps = [step("web_navigate", url=site.url("/search/lazy/?q=coffee"))]
    if loads_more:
        # The button is below the fold: the whole page's numbers, then the shop's infinite
        # scroll starts after it.
        steps += [step("web_list_elements"), step("web_tap", pick_row="Load more")]
    steps += [step("web_scroll", direction="down", pages=10), step("web_scroll", direction="down", pages=10), "done"]
    driver = WebDriver(steps)
    run = make_run(tmp_path, paced_cap(chromium_path, now), driver, clock=lambda: now[0])
    owned_sleep_seam(run, sleep)
    await asyncio.wait_for(run.run(), 60)
    scrolls = results_of(record(run), "web_scroll")
    assert [s["code"] for s in scrolls] == ["done", "done"], scrolls
    more = [r for r in site.seen if r.path == "/api/more" and r.query.get("q") == "coffee"]
    if loads_more:
        assert more, "the scroll should have loaded the next batch"
        assert len(sleeps) == 1 and 4.0 <= sleeps[0] <= 7.0, sleeps
        assert scrolls[1]["wait_ms"] == round(sleeps[0] * 1000)
    else:
        assert sleeps == [] and scrolls[1]["wait_ms"] == 0
