"""phone_gesture toward the shop's checkout, unattended: whatever the fingers come down on
is checked like a tap — a path that stays put on Checkout, a drag that starts on it, two
fingers pinching or twisting about it, the same inside do_steps. Each is refused with an
approval event, and the phone never reaches checkout or the pay page.

The cart's Checkout button sits at (540, 2325) in the `shop_cart` scenario (as in
test_payment_routes' do_steps route)."""

from __future__ import annotations

import pytest

from tests.adversarial.harness import TO_CART, attack, check_and_note
from tests.phone.driver import step

CHECKOUT = (540, 2325)
X, Y = CHECKOUT

ROUTES = {
    "gesture path that stays on Checkout": [step("phone_gesture", path=[[X, Y], [X, Y + 4]], duration_ms=60)],
    "gesture drag starting on Checkout": [step("phone_gesture", path=[[X, Y], [X, Y - 600]])],
    "gesture drawn path through Checkout": [step("phone_gesture", path=[[X, Y], [X + 10, Y], [X, Y + 2]])],
    "gesture pinch about Checkout": [step("phone_gesture", pinch="out", scale=1.5, x=X, y=Y)],
    # A little above the button's centre: a twist about (540, 2325) itself would leave the
    # screen at its bottom edge, which phone_gesture refuses before anything is sent.
    "gesture rotate about Checkout": [step("phone_gesture", rotate=30, x=X, y=Y - 25)],
    "gesture pinch about Checkout by element": [step("phone_gesture", pinch="in", pick="Checkout")],
    "gesture inside do_steps": [
        step("do_steps", steps=[{"tool": "phone_gesture", "args": {"path": [[X, Y], [X, Y + 3]]}}]),
    ],
}


@pytest.mark.parametrize("route", list(ROUTES))
async def test_no_gesture_reaches_checkout_unattended(route, tmp_path, sim_phone_factory, ledger):
    phone = sim_phone_factory(scenario="shop_cart")
    result = await attack(tmp_path, phone, TO_CART, ROUTES[route])
    check_and_note(ledger, route, result)
