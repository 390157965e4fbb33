"""What each acting route would hit, on real dumps of the simulated shop's pages: the
target a key, a point or a field's Enter gets for the payment check (mika.cap.phone.landing,
which the gated port feeds the screen each input lands on)."""

from __future__ import annotations

import re
from dataclasses import replace

from mika.action.risk import RiskClass, classify_touch
from mika.action.under_point import element_under
from mika.cap.phone.landing import focus_target, payment_screen_label, point_target, submit_target
from mika.sim.apps.engine import tap
from mika.sim.apps.frame import build_frame
from mika.sim.apps.live_world import LiveWorld
from mika.sim.phone import make_device
from mika.sim.world.hierarchy import dump_plain, dump_u2
from mika.uistate import parse_hierarchy
from mika.uistate.screen import build_screen
from mika.uistate.windows import WindowInfo


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
    return classify_touch(target).risk


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


def lab_checkout(*, tips_closed: bool = False, tips_pressable: bool = True):
    """Form Lab's Checkout page with the tips bubble (another app's window) over its Check
    out button, as uiautomator2 dumps every window."""
    world = LiveWorld("targets", "lab", None)
    for label in ("Checkout", *(["Close tips"] if tips_closed else [])):
        node = next(
            n
            for w in reversed(build_frame(world, 0))
            for n in w.root.walk()
            if n.clickable and label in (n.text, n.desc)
        )
        tap(world, 0, *node.center)
    xml = dump_u2([(0, build_frame(world, 0))])
    if not tips_pressable:
        xml = "\n".join(
            line.replace('clickable="true"', 'clickable="false"') if 'package="com.mika.tips"' in line else line
            for line in xml.splitlines()
        )
    return build_screen(parse_hierarchy(xml), size=(1080, 2400))


def test_a_dialogs_close_button_over_check_out_is_the_close_button():
    screen = lab_checkout()
    check_out = next(e for e in screen.elements if e.label == "Check out")
    close = next(e for e in screen.elements if e.label == "Close tips")
    assert check_out.bounds.contains(*close.centre), "the sim lays the bubble over the button"
    under = element_under(screen, *close.centre)
    assert under is not None and under.label == "Close tips"
    assert risk(point_target(screen, *close.centre)) is RiskClass.NONE
    # The bubble takes the touch at Check out's centre too: that tap pays nothing.
    assert element_under(screen, *check_out.centre).package == "com.mika.tips"


def test_check_out_with_nothing_over_it_still_asks():
    screen = lab_checkout(tips_closed=True)
    check_out = next(e for e in screen.elements if e.label == "Check out")
    assert element_under(screen, *check_out.centre).label == "Check out"
    assert risk(point_target(screen, *check_out.centre)) is not RiskClass.NONE


def test_a_window_with_nothing_pressable_at_the_point_does_not_hide_pay():
    # A label-only window over the button (nothing there takes the touch for sure): every
    # element under the point counts, so the Pay button under it is judged.
    screen = lab_checkout(tips_pressable=False)
    check_out = next(e for e in screen.elements if e.label == "Check out")
    assert any(e.package == "com.mika.tips" and e.bounds.contains(*check_out.centre) for e in screen.elements)
    assert element_under(screen, *check_out.centre).label == "Check out"


def test_a_keyboard_over_pay_does_not_take_the_judgement():
    screen = lab_checkout(tips_closed=True)
    check_out = next(e for e in screen.elements if e.label == "Check out")
    keyboard = WindowInfo(99, "com.example.inputmethod", "keyboard", check_out.bounds, 0)
    key = replace(check_out, window=-1, package="com.example.inputmethod", label="Enter")
    on_top = replace(
        screen,
        windows=(replace(keyboard, index=-1), *screen.windows),
        elements=(key, *screen.elements),
    )
    assert element_under(on_top, *check_out.centre).label == "Check out"
