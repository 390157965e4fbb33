"""The other web tools in one real run each: every element of a long page, tabs, waits,
diagnose, back, clearing a field, a screenshot."""

from __future__ import annotations

import json
import re

from tests.phone.driver import step
from tests.web.tools_run import WebDriver, make_run, record, results_of, untrusted_parts, web_cap


async def test_list_elements_numbers_the_whole_page_and_its_numbers_tap(tmp_path, site, chromium_path):
    driver = WebDriver(
        [
            step("web_navigate", url=site.url("/tools/effects.html")),
            step("web_list_elements"),
            step("web_tap", pick_row="Bottom button"),
            "done",
        ]
    )
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    await run.run()
    listed = driver.results[1]
    assert "Bottom button" not in untrusted_parts(driver.results[0])[1]  # not in view at first
    rows = [json.loads(line) for line in untrusted_parts(listed)[1].splitlines() if line.startswith("{")]
    bottom = next(r for r in rows if r["label"] == "Bottom button")
    assert bottom["where"] == "below"
    tapped = driver.results[2]
    assert re.search(r"Tapped button <untrusted [^>]*>Bottom button</untrusted>\.", tapped) and "Effect: done" in tapped
    assert 'button "Bottom pressed"' in untrusted_parts(tapped)[1]


async def test_tabs_wait_diagnose_back_clear_and_screenshot(tmp_path, site, chromium_path):
    driver = WebDriver(
        [
            step("web_navigate", url=site.url("/tools/page.html")),
            step("web_tabs", action="new", url=site.url("/tools/second.html")),
            step("web_wait_for", text="You arrived on the second page"),
            step("web_tabs", action="switch", tab="t1"),
            step("web_tabs", action="close", tab="t2"),
            step("web_type_text", pick="Search words", role="input", text="green tea"),
            step("web_clear_text", pick="Search words", role="input"),
            step("web_tap", pick="Go to the second page"),
            step("web_back"),
            step("web_diagnose"),
            step("web_screenshot"),
            step("web_wait_for", text="Never on this page", timeout_s=0.5),
            "done",
        ]
    )
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    await run.run()
    r = driver.results
    assert "in a new tab (t2)" in r[1] and "t2 (current)" in r[1] and "2 tabs" in r[1]
    assert r[2].startswith("The wait ended after") and "/tools/second.html" in r[2]
    assert "Switched to tab t1" in r[3] and "t1 (current)" in r[3]
    assert "Closed tab t2" in r[4] and "t2" not in r[4].split("Closed tab t2", 1)[1]
    assert "Cleared the field." in r[6]
    assert "Went back one page." in r[8] and "Effect: place_changed" in r[8] and '== page "Tools page"' in r[8]
    assert "Nothing stands in the way" in r[9]
    assert "Screenshot of the page attached." in r[10]
    assert r[11].startswith("[timeout] Not met within 0.5 s") and "/tools/page.html" in r[11]
    shot = results_of(record(run), "web_screenshot")[0]
    assert shot["ok"] and shot["frame"]
