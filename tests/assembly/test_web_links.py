"""phone_open_link → Mika's browser (issue 15): a web link a read-only run only needs to
read is read in Mika's own browser, the phone's screen untouched; otherwise the phone
opens it as before.

Real parts: the phone capability on the simulated phone through a real adb server, the
web capability over real Chromium (PlaywrightWebPort) and the loopback test site, the
real TaskRun / executor, and the assembly's own `bind_phone` (which tells the phone that
the run has a browser). The scripted model reads the real results (tests.phone.driver).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.assembly.assembly import bind_phone
from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.web import WebCapability
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.model.retry import RetryPolicy
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.phone.driver import ListingDriver, step
from tests.web.conftest import chromium_path, site  # noqa: F401  (fixtures)

BROWSER_APP = "com.mika.browser"  # the simulated phone's browser, which takes http VIEW intents


@pytest.fixture
def phone_cap(sim_phone) -> PhoneCapability:
    return PhoneCapability(AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump"))


@pytest.fixture
def web_cap(chromium_path, tmp_path) -> WebCapability:  # noqa: F811
    options = WebOptions(browser=chromium_path, downloads_dir=tmp_path / "downloads")
    return WebCapability(PlaywrightWebPort(options), options)


def make_run(tmp_path: Path, caps_extra: list, driver: ListingDriver, *, read_only: bool) -> TaskRun:
    spec = RunSpec(
        goal="what does the page say?",
        provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED),
        conversation_id="c-links",
        read_only=read_only,
    )
    caps = capabilities_for(spec, RunEnvironment(extra=caps_extra))
    opts = RunOptions(pacing=False, state_dir=tmp_path, retry=RetryPolicy(base_delay=0.01, max_delay=0.05))
    run = TaskRun(spec, driver.model, caps, opts)
    bind_phone(caps, run.emit, spec)  # the assembly's own binding: the phone learns the run has a browser
    return run


def foreground(sim_phone) -> str:
    return sim_phone.device.world.state().get("foreground", "") or sim_phone.shell(
        "dumpsys window | grep mCurrentFocus"
    )


async def test_a_read_only_run_reads_the_link_in_mikas_browser_and_leaves_the_phone(
    tmp_path,
    sim_phone,
    phone_cap,
    web_cap,
    site,  # noqa: F811
):
    url = site.url("/engine/second.html?from=phone-link-ro")
    before = foreground(sim_phone)
    driver = ListingDriver([step("phone_open_link", url=url), "The second page."])
    run = make_run(tmp_path, [phone_cap, web_cap], driver, read_only=True)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    text = driver.results[0]
    assert "Mika's own browser" in text and "not on the phone" in text
    assert "The second page" in text  # what the page says, read from the loopback site
    assert any(req.path == "/engine/second.html" and req.query.get("from") == "phone-link-ro" for req in site.seen)
    # The phone's screen is untouched: no browser app came up, nothing moved.
    assert foreground(sim_phone) == before
    assert BROWSER_APP not in sim_phone.shell("dumpsys window | grep mCurrentFocus")


async def test_a_read_only_run_refuses_an_app_link_rather_than_open_the_phone(
    tmp_path,
    sim_phone,
    phone_cap,
    web_cap,
):
    before = foreground(sim_phone)
    driver = ListingDriver([step("phone_open_link", url="mikashop://checkout"), "Could not."])
    run = make_run(tmp_path, [phone_cap, web_cap], driver, read_only=True)
    await run.run()
    assert "read-only" in driver.results[0]
    assert foreground(sim_phone) == before


async def test_a_run_that_acts_opens_the_link_on_the_phone_as_before(
    tmp_path,
    sim_phone,
    phone_cap,
    web_cap,
    site,  # noqa: F811
):
    url = site.url("/engine/second.html?from=phone-link-rw")
    driver = ListingDriver([step("phone_open_link", url=url), "Opened."])
    run = make_run(tmp_path, [phone_cap, web_cap], driver, read_only=False)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert f"Opened {url}" in driver.results[0]
    assert BROWSER_APP in sim_phone.shell("dumpsys window | grep mCurrentFocus")
    assert not any(req.query.get("from") == "phone-link-rw" for req in site.seen)  # Mika's browser never went there


async def test_without_the_web_a_link_opens_on_the_phone(tmp_path, sim_phone, phone_cap, site):  # noqa: F811
    url = site.url("/engine/second.html?from=phone-link-noweb")
    driver = ListingDriver([step("phone_open_link", url=url), "Opened."])
    run = make_run(tmp_path, [phone_cap], driver, read_only=False)
    await run.run()
    assert f"Opened {url}" in driver.results[0]
    assert BROWSER_APP in sim_phone.shell("dumpsys window | grep mCurrentFocus")
    assert not any(req.query.get("from") == "phone-link-noweb" for req in site.seen)


async def test_a_read_only_run_without_the_web_is_not_offered_the_link(tmp_path, sim_phone, phone_cap):
    before = foreground(sim_phone)
    driver = ListingDriver([step("phone_open_link", url="https://example.org/"), "No."])
    run = make_run(tmp_path, [phone_cap], driver, read_only=True)
    await run.run()
    assert "no tool named 'phone_open_link'" in driver.results[0]
    assert foreground(sim_phone) == before


@pytest.mark.parametrize(
    "path",
    [
        "/shop/checkout?item=tea",
        "/PAY?amount=30",
        "/order/confirm",
        "/buy-now?id=3",
        "/%63heckout",  # percent-escaped
        "/%2563heckout",  # escaped twice
    ],
)
async def test_a_read_only_run_never_opens_a_payment_address_in_the_browser(
    tmp_path,
    sim_phone,
    phone_cap,
    web_cap,
    site,  # noqa: F811
    path,
):
    before = foreground(sim_phone)
    seen = len(site.seen)
    driver = ListingDriver([step("phone_open_link", url=site.url(path)), "Not opened."])
    run = make_run(tmp_path, [phone_cap, web_cap], driver, read_only=True)
    await run.run()
    assert "[read_only]" in driver.results[0] or "only reads" in driver.results[0], driver.results[0]
    assert "checkout, payment or order" in driver.results[0]
    assert len(site.seen) == seen  # the site was never asked
    assert foreground(sim_phone) == before


async def test_a_named_app_does_not_take_a_read_only_link_to_the_phone(
    tmp_path,
    sim_phone,
    phone_cap,
    web_cap,
    site,  # noqa: F811
):
    url = site.url("/engine/second.html?from=phone-link-app")
    before = foreground(sim_phone)
    driver = ListingDriver([step("phone_open_link", url=url, app="com.mika.browser"), "Read."])
    run = make_run(tmp_path, [phone_cap, web_cap], driver, read_only=True)
    await run.run()
    assert "Mika's own browser" in driver.results[0], driver.results[0]
    assert any(req.query.get("from") == "phone-link-app" for req in site.seen)
    assert foreground(sim_phone) == before


async def test_a_link_the_browser_refuses_is_said_so_and_the_phone_is_not_used(
    tmp_path,
    sim_phone,
    phone_cap,
    web_cap,
    site,  # noqa: F811
):
    # The browser's URL policy refuses a scheme in capitals; the phone does not step in.
    url = site.url("/engine/second.html?from=phone-link-caps").replace("http://", "HTTP://", 1)
    before = foreground(sim_phone)
    driver = ListingDriver([step("phone_open_link", url=url), "No."])
    run = make_run(tmp_path, [phone_cap, web_cap], driver, read_only=True)
    await run.run()
    text = driver.results[0]
    assert "could not read" in text and "the phone was not used" in text and "Read HTTP" not in text
    assert not any(req.query.get("from") == "phone-link-caps" for req in site.seen)
    assert foreground(sim_phone) == before


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "intent://x#Intent;end", "no scheme"])
async def test_a_read_only_run_refuses_links_that_are_no_web_pages(tmp_path, sim_phone, phone_cap, web_cap, url):
    before = foreground(sim_phone)
    driver = ListingDriver([step("phone_open_link", url=url), "No."])
    run = make_run(tmp_path, [phone_cap, web_cap], driver, read_only=True)
    await run.run()
    assert "[bad_arguments]" in driver.results[0] or "bad_arguments" in driver.results[0], driver.results[0]
    assert foreground(sim_phone) == before


@pytest.mark.parametrize("url", ["https://shop.mika.example/%63heckout?item=tea", "mikashop://%2563heckout"])
async def test_an_escaped_checkout_link_is_still_a_payment_step_on_the_phone(tmp_path, sim_phone, phone_cap, url):
    before = foreground(sim_phone)
    driver = ListingDriver([step("phone_open_link", url=url), "Not done."])
    run = make_run(tmp_path, [phone_cap], driver, read_only=False)  # unattended: nobody to approve
    await run.run()
    assert "approval_unavailable" in driver.results[0], driver.results[0]
    assert foreground(sim_phone) == before
