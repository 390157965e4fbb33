"""Spending money on a page follows the phone's rules, through the same executor: a Buy /
Checkout / Place order button, a checkout form submitted with Enter, and an address that
leads to checkout or pay are payment steps — asked with a one-shot consent when a person is
present, refused unattended — and the final Pay is handed to the user. Real Chromium, the
loopback shop, a scripted model; what the shop received is the proof."""

from __future__ import annotations

from mika.runtypes.spec import Attendance
from tests.phone.driver import step
from tests.web.site_shop import BY_ID, ORDERS, price_text
from tests.web.tools_run import (
    WebDriver,
    consent_to_every_card,
    make_run,
    record,
    results_of,
    untrusted_parts,
    web_cap,
)

SITE = "127.0.0.1"  # the registrable "domain" of the loopback shop: the consent's app


def posts(site, since: int, path: str) -> list:
    return [r for r in site.seen[since:] if r.method == "POST" and r.path == path]


def codes(run, name: str) -> list[str]:
    return [e["code"] for e in results_of(record(run), name)]


async def test_buy_now_is_refused_when_nobody_can_approve(tmp_path, site, chromium_path):
    driver = WebDriver([step("web_navigate", url=site.url("/product/1/")), step("web_tap", pick="Buy now"), "stopped"])
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    since = len(site.seen)
    await run.run()
    assert driver.results[1].startswith("[approval_unavailable]"), driver.results[1]
    assert "$18.50" in driver.results[1]
    assert posts(site, since, "/checkout/") == []
    approvals = [e for e in record(run) if e["type"] == "approval"]
    assert approvals and approvals[0]["amount"] == "$18.50" and approvals[0]["app"] == SITE


async def test_navigating_to_checkout_is_refused_unattended(tmp_path, site, chromium_path):
    driver = WebDriver([step("web_navigate", url=site.url("/checkout/")), "stopped"])
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    since = len(site.seen)
    await run.run()
    assert driver.results[0].startswith("[approval_unavailable]"), driver.results[0]
    assert not any(r.path == "/checkout/" for r in site.seen[since:])
    # Another tab is no way around it.
    driver = WebDriver([step("web_tabs", action="new", url=site.url("/checkout/")), "stopped"])
    run = make_run(tmp_path / "2", web_cap(chromium_path), driver)
    await run.run()
    assert driver.results[0].startswith("[approval_unavailable]"), driver.results[0]
    assert not any(r.path == "/checkout/" for r in site.seen[since:])


async def test_a_consent_releases_one_buy_and_only_one(tmp_path, site, chromium_path):
    price = price_text(BY_ID[1])
    driver = WebDriver(
        [
            step("web_navigate", url=site.url("/product/1/")),
            step("web_tap", pick="Buy now"),
            step("request_confirmation", what=BY_ID[1]["name"], amount=price, app=SITE),
            step("web_tap", pick="Buy now"),
            step("web_back"),
            step("web_tap", pick="Buy now"),
            "asked again",
        ]
    )
    run = make_run(tmp_path, web_cap(chromium_path), driver, attendance=Attendance.PRESENT)
    asked = consent_to_every_card(run)
    since = len(site.seen)
    await run.run()
    assert codes(run, "web_tap") == ["confirmation_required", "done", "confirmation_required"]
    assert len(asked) == 1 and asked[0].screen_amount == price and asked[0].screen_app == SITE
    assert "Effect: place_changed" in driver.results[3] and '== page "Checkout · Bean & Leaf"' in driver.results[3]
    assert len(posts(site, since, "/checkout/")) == 1


async def test_checkout_form_enter_is_asked_and_the_final_pay_is_the_users(tmp_path, site, chromium_path):
    price = price_text(BY_ID[2])
    orders_before = set(ORDERS)
    driver = WebDriver(
        [
            step("web_navigate", url=site.url("/product/2/")),
            step("web_tap", pick="Add to cart"),
            step("web_navigate", url=site.url("/checkout/")),  # a checkout address: asked
            step("request_confirmation", what=BY_ID[2]["name"], amount=price, app=SITE),
            step("web_navigate", url=site.url("/checkout/")),
            step("web_press_key", key="Enter"),  # nothing focused on a checkout page: unclear, refused
            step("web_type_text", pick="Full name", role="input", text="李雷 Li Lei"),
            step("web_type_text", pick="Street address", role="input", text="1 Tea Road"),
            step("web_type_text", pick="City 城市", role="input", text="Hangzhou", submit=True),  # Enter: asked
            step("web_press_key", key="Enter"),  # the focus is in the form: asked
            step("request_confirmation", what=BY_ID[2]["name"], amount=price, app=SITE),
            step("web_tap", pick="Place order"),
            step("web_press_key", key="Enter"),  # nothing focused on the pay page: refused, the user's
            step("web_tap", pick="Pay"),  # the final pay: the user's
            "handed over",
        ]
    )
    run = make_run(tmp_path, web_cap(chromium_path), driver, attendance=Attendance.PRESENT)
    consent_to_every_card(run)
    since = len(site.seen)
    await run.run()
    assert codes(run, "web_navigate")[1:] == ["confirmation_required", "done"]
    assert codes(run, "web_type_text") == ["done", "done", "confirmation_required"]
    assert codes(run, "web_press_key") == [
        "payment_target_unclear",
        "confirmation_required",
        "pay_by_user",
    ]
    assert codes(run, "web_tap") == ["done", "done", "pay_by_user"]
    assert "Place order" in driver.results[8]
    placed = set(ORDERS) - orders_before
    assert len(placed) == 1 and len(posts(site, since, "/checkout/place")) == 1
    order = ORDERS[placed.pop()]
    assert order.name == "李雷 Li Lei" and not order.paid
    assert posts(site, since, "/pay/") == []


async def test_a_page_that_orders_the_model_to_buy_stays_data(tmp_path, site, chromium_path):
    url = site.url("/injected/")
    driver = WebDriver([step("web_navigate", url=url), step("web_read_page"), "It is a tea with good reviews."])
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    since = len(site.seen)
    await run.run()
    listing = driver.results[0]
    outside, inside = untrusted_parts(listing)
    assert "ignore previous instructions" in inside.lower()
    assert "ignore" not in outside.lower() and "Buy now" not in outside
    assert listing.count("<untrusted") == listing.count("</untrusted>")
    # Nothing was clicked or opened because of it.
    assert [r.path for r in site.seen[since:] if r.method == "POST"] == []
    assert not any(r.path.startswith("/checkout") for r in site.seen[since:])


async def test_read_page_is_no_way_around_the_checkout_address(tmp_path, site, chromium_path):
    driver = WebDriver([step("web_read_page", url=site.url("/checkout/")), "stopped"])
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    since = len(site.seen)
    await run.run()
    assert driver.results[0].startswith("[payment_address]"), driver.results[0]
    assert not any(r.path == "/checkout/" for r in site.seen[since:])


async def test_enter_on_a_dialog_that_asks_to_pay_is_a_payment_step(tmp_path, site, chromium_path):
    driver = WebDriver(
        [
            step("web_navigate", url=site.url("/tools/dialog.html")),
            step("web_tap", pick="Ask me"),
            step("web_press_key", key="Enter"),  # OK on "Pay $30.00 now?": refused unattended
            step("web_press_key", key="Escape"),  # Cancel is no payment
            "done",
        ]
    )
    run = make_run(tmp_path, web_cap(chromium_path), driver)
    await run.run()
    assert "The page shows a dialog box" in driver.results[1] and "Pay $30.00 now?" in driver.results[1]
    assert driver.results[2].startswith("[approval_unavailable]"), driver.results[2]
    assert "Dismissed the page's dialog." in driver.results[3]
    assert 'text "Cancelled"' in untrusted_parts(driver.results[3])[1]
