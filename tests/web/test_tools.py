"""The web tools through real runs: real Chromium on the loopback site, the real executor,
a scripted model that picks element numbers from the listings it is given."""

from __future__ import annotations

import re

from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import ListingDriver, step
from tests.web.tools_run import WebDriver, behind_the_back, make_run, record, results_of, untrusted_parts, web_cap


async def test_navigate_then_observe_gives_a_fenced_listing_and_no_html(tmp_path, site, chromium_path):
    url = site.url("/tools/page.html")
    driver = ListingDriver([step("web_navigate", url=url), step("web_observe"), "seen"])
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    opened, observed = driver.results[0], driver.results[1]
    assert f"Opened {url}" in opened and "Effect: place_changed" in opened
    assert f"Page {url} · all in view · 1 tab" in opened
    outside, inside = untrusted_parts(opened)
    # The page's words (its title, its labels) are inside the fence, never in Mika's lines.
    assert "Tools page" not in outside and "Click me" not in outside
    assert (
        '== page "Tools page"' in inside and 'button "Click me"' in inside and 'link "Go to the second page"' in inside
    )
    assert f'<untrusted source="page" url="{url}">' in opened
    for text in (opened, observed):
        assert "<button" not in text and "<input" not in text and "onclick" not in text and "<script" not in text
    # Read again with nothing changed: the same numbers hold, said in Mika's words.
    assert "Nothing changed since screen v" in observed
    events = record(run)
    assert results_of(events, "web_navigate")[0]["effect"] == "place_changed"
    assert results_of(events, "web_observe")[0]["ok"]


async def test_a_tap_on_a_button_is_done_and_on_a_link_changes_the_place(tmp_path, site, chromium_path):
    driver = ListingDriver(
        [
            step("web_navigate", url=site.url("/tools/page.html")),
            step("web_tap", pick="Click me"),
            step("web_tap", pick="Go to the second page"),
            "done",
        ]
    )
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    await run.run()
    pressed, followed = driver.results[1], driver.results[2]
    # the page's label stays inside its own fence in Mika's sentence
    assert re.search(r"Tapped button <untrusted [^>]*>Click me</untrusted>\.", pressed) and "Effect: done" in pressed
    assert 'button "Clicked 1 times"' in untrusted_parts(pressed)[1]
    assert "Effect: place_changed" in followed and f"Page {site.url('/tools/second.html')}" in followed
    assert '== page "Second page"' in followed
    effects = [e["effect"] for e in results_of(record(run), "web_tap")]
    assert effects == ["done", "place_changed"]


async def test_a_number_from_a_page_that_changed_meanwhile_is_stale(tmp_path, site, chromium_path):
    cap = web_cap(chromium_path)
    driver = ListingDriver(
        [step("web_navigate", url=site.url("/tools/page.html")), step("web_tap", pick="Click me"), "stopped"]
    )

    async def elsewhere() -> None:
        await cap.port.open(site.url("/tools/second.html"))

    behind_the_back(driver, 2, elsewhere)  # the model picks "Click me" from the first page
    run = make_run(tmp_path, cap, driver)
    await run.run()
    stale = driver.results[1]
    assert stale.startswith("[stale_element] Element 4"), stale
    assert "Nothing was done" in stale
    assert '== page "Second page"' in stale  # the fresh listing comes with it
    assert results_of(record(run), "web_tap")[0]["code"] == "stale_element"


async def test_typed_cjk_text_is_read_back_and_a_password_is_never_echoed(tmp_path, site, chromium_path):
    secrets: list[str] = []
    cap = web_cap(chromium_path, redact=secrets.append)
    driver = WebDriver(
        [
            step("web_navigate", url=site.url("/tools/page.html")),
            step("web_type_text", pick="Search words", role="input", text="乌龙茶 oolong"),
            step("web_type_text", pick_state="password", text="hunter2-秘密"),
            "typed",
        ]
    )
    run = make_run(tmp_path, cap, driver)
    await run.run()
    typed = driver.results[1]
    assert re.search(r'Typed "乌龙茶 oolong" into <untrusted [^>]*>Search words</untrusted> \(read back:', typed)
    assert "matches" in typed
    assert "10 characters into the password field" in driver.results[2]
    assert secrets == ["hunter2-秘密"]
    assert all("hunter2" not in r for r in driver.results)


async def test_read_page_cuts_to_the_budget_and_names_its_address(tmp_path, site, chromium_path):
    url = site.url("/injected/")
    driver = ListingDriver([step("web_read_page", url=url, max_chars=300), "read"])
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    await run.run()
    text = driver.results[0]
    assert text.startswith(f"Main text of {url} · cut to 300 characters")
    outside, inside = untrusted_parts(text)
    assert f'<untrusted source="page" url="{url}">' in text
    assert "Gyokuro" in inside and "Gyokuro" not in outside
    assert len(inside) <= 300 + 200  # the budget, plus the title line
    finished = results_of(record(run), "web_read_page")[0]
    assert finished["ok"] and finished["observation_id"]


async def test_a_file_address_is_refused(tmp_path, site, chromium_path):
    driver = ListingDriver([step("web_navigate", url="file:///etc/passwd"), "refused"])
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    await run.run()
    assert driver.results[0].startswith("[url_refused]"), driver.results[0]
    assert "root:" not in driver.results[0]
    assert results_of(record(run), "web_navigate")[0]["code"] == "url_refused"


async def test_a_captcha_page_is_handed_over_and_the_site_not_opened_again(tmp_path, site, chromium_path):
    driver = ListingDriver(
        [
            step("web_navigate", url=site.url("/captcha/")),
            step("web_navigate", url=site.url("/tools/page.html")),
            "blocked",
        ]
    )
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    seen_before = len(site.seen)
    await run.run()
    met, again = driver.results
    assert met.startswith("[access_blocked] captcha:"), met
    assert "hand_to_user" in met
    assert again.startswith("[site_blocked]") and "hand_to_user" in again
    codes = [e["code"] for e in results_of(record(run), "web_navigate")]
    assert codes == ["access_blocked", "site_blocked"]
    assert not any(r.path == "/tools/page.html" for r in site.seen[seen_before:])


async def test_a_script_that_writes_is_blocked(tmp_path, site, chromium_path):
    driver = ListingDriver(
        [
            step("web_navigate", url=site.url("/tools/page.html")),
            step("web_evaluate_js", script="document.title = 'changed'; 1"),
            step("web_evaluate_js", script="document.title"),
            "done",
        ]
    )
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    await run.run()
    assert driver.results[1].startswith("[blocked]"), driver.results[1]
    assert '"Tools page"' in driver.results[2]


async def test_a_number_from_before_a_reload_is_stale_though_the_page_looks_the_same(tmp_path, site, chromium_path):
    cap = web_cap(chromium_path)
    url = site.url("/tools/page.html")
    driver = ListingDriver([step("web_navigate", url=url), step("web_tap", pick="Click me"), "stopped"])

    async def reload() -> None:
        await cap.port.open(url)  # a new document with the very same content

    behind_the_back(driver, 2, reload)
    run = make_run(tmp_path, cap, driver)
    await run.run()
    assert driver.results[1].startswith("[stale_element]"), driver.results[1]
    assert results_of(record(run), "web_tap")[0]["code"] == "stale_element"
