"""What each acting route would hit, on real dumps of the simulated shop's pages: the
target a key, a point or a field's Enter gets for the payment check."""

from __future__ import annotations

import re

from mika.action.risk import RiskClass, classify_target
from mika.cap.phone.tools.base import element_under, focus_target, payment_screen_label, submit_target
from mika.sim.apps.frame import build_frame
from mika.sim.world import make_device
from mika.sim.world.hierarchy import dump_plain
from mika.uistate import parse_hierarchy
from mika.uistate.screen import build_screen


def page(screen_name: str, *, focus_text: str | None = None):
    phone = make_device("targets", scenario="shop_cart")
    phone.world.launch("com.mika.shop", 0, screen=screen_name)
    xml = dump_plain(build_frame(phone.world, 0))
    if focus_text is not None:
        # The focus on that button, as DPAD/TAB navigation leaves it.
        xml = xml.replace('focused="true"', 'focused="false"')
        xml = re.sub(r'(text="' + re.escape(focus_text) + r'"[^>]*?)focused="false"', r'\1focused="true"', xml, count=1)
        assert 'focused="true"' in xml
    return build_screen(parse_hierarchy(xml), size=(1080, 2400))


def risk(target):
    return classify_target(target.label, target.kind, target.screen_text).risk


def test_enter_on_a_focused_pay_button_is_the_pay_button():
    screen = page("Checkout", focus_text="Pay ¥23.50")
    target = focus_target(screen, "key")
    assert target.label == "Pay ¥23.50" and target.on_screen
    assert risk(target) is RiskClass.PAY


def test_enter_on_a_focused_checkout_button_is_a_payment_step():
    target = focus_target(page("Cart", focus_text="Checkout"), "key")
    assert target.label == "Checkout" and risk(target) is RiskClass.PAYMENT


def test_enter_with_no_focus_on_a_payment_screen_is_unclear():
    target = focus_target(page("Cart"), "key")
    assert target.unclear and not target.on_screen and risk(target) is RiskClass.PAYMENT


def test_enter_with_no_focus_elsewhere_is_nothing():
    target = focus_target(page("Home"), "key")
    assert target.label == "" and risk(target) is RiskClass.NONE


def test_a_fields_enter_on_a_page_that_says_pay_now_is_unclear():
    screen = page("Deal")
    assert payment_screen_label(screen)  # "tap Pay now" with a total: a payment screen
    target = submit_target(screen, "type")
    assert target.unclear and not target.on_screen and risk(target) is not RiskClass.NONE


def test_a_point_on_the_pay_button_is_the_pay_button():
    screen = page("Checkout")
    pay = next(e for e in screen.elements if e.label == "Pay ¥23.50")
    x, y = pay.centre
    assert element_under(screen, x, y).label == "Pay ¥23.50"
    # Its corner too, not just its centre.
    assert element_under(screen, pay.bounds.left + 2, pay.bounds.bottom - 2).label == "Pay ¥23.50"
