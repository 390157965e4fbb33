"""A run with the phone and the web (issue 15): both capabilities' real surfaces, joined,
and each call reaches only its own — the phone's on the simulated phone through a real
adb server, the web's over real Chromium and the loopback test site."""

from __future__ import annotations

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.web import WebCapability
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.runtypes.result import OutcomeStatus
from mika.tool.surface import JoinedSurface
from tests.assembly.test_web_links import make_run
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import record, results_of
from tests.web.conftest import chromium_path, site  # noqa: F401  (fixtures)


@pytest.fixture
def phone_cap(sim_phone) -> PhoneCapability:
    return PhoneCapability(AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump"))


@pytest.fixture
def web_cap(chromium_path) -> WebCapability:  # noqa: F811
    options = WebOptions(browser=chromium_path)
    return WebCapability(PlaywrightWebPort(options), options)


async def test_phone_steps_reach_the_phone_and_web_steps_the_page(tmp_path, sim_phone, phone_cap, web_cap, site):  # noqa: F811
    driver = ListingDriver(
        [
            step("web_navigate", url=site.url("/engine/button.html")),
            step("phone_launch_app", app="时钟"),
            step("phone_tap", pick="Timer", role="button"),
            step("web_navigate", url=site.url("/engine/second.html")),
            "Both done.",
        ]
    )
    run = make_run(tmp_path, [phone_cap, web_cap], driver, read_only=False)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    joined = run.loop.ctx.surface
    assert isinstance(joined, JoinedSurface)
    assert joined.by_capability == {"phone": phone_cap.surface, "web": web_cap.surface}

    page1, launch, tap, page2 = driver.results
    # Web steps: the web surface's effect and page listing, nothing of the phone.
    for text in (page1, page2):
        assert '<untrusted source="page"' in text and '<untrusted source="screen"' not in text
    assert "about:blank → " in page1 and "Press me" in page1
    # The web surface's "before" of the second page is its own last page, whatever the
    # phone did in between.
    assert "/engine/button.html → " in page2 and "The second page" in page2
    # Phone steps: the phone surface's effect and screen listing, nothing of the page.
    for text in (launch, tap):
        assert '<untrusted source="screen"' in text and '<untrusted source="page"' not in text
    assert "com.android.launcher3 → com.google.android.deskclock" in launch
    assert "DeskClock → com.google.android.deskclock/com.android.deskclock.TimerActivity" in tap
    # The record: phone results say their display (the phone surface added it), web ones don't.
    results = {(e["name"], e["call_id"]): e for e in record(run) if e["type"] == "tool_result"}
    for (name, _), e in results.items():
        if name.startswith("web_"):
            assert e["capability"] == "web" and e["display"] == {}
        else:
            assert e["capability"] == "phone" and e["display"].get("mode") == "main"
    assert len(results_of(record(run), "web_navigate")) == 2
