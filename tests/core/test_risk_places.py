"""Where a link, a deep link, a redirect target or an activity leads: every way an address
can be written so that it reaches a checkout without the word standing alone."""

from __future__ import annotations

import pytest

from mika.action.risk import RiskClass, classify_place, classify_touch
from mika.tool.declaration import ActionTarget

CHECKOUTS = [
    "mikashop://checkout",
    "mikashop://checkouts/c/7f3a",
    "https://shop.example/checkoutnow",
    "https://shop.example/check%6Fut",
    "https://shop.example/%2563heckout",  # escaped twice
    "https://shop.example/login?next=/checkout",
    "https://shop.example/login?next=%2Fcheckout%3Fstep%3D2",
    "https://shop.example/check-out",
    "https://shop.example/Check_Out/step1",
    "https://shop.example/CHECKOUT",
    "https://shop.example/ｃｈｅｃｋｏｕｔ",  # fullwidth, as an app may print it
    "https://shop.example/chec\u200bkout",
    "https://shop.example/warenkorb/kasse",
    "https://tienda.example/pagar",
    "https://loja.example/finalizar-compra",
    "https://shop.example/cart?action=placeOrder",
    "com.mika.shop/.CheckoutActivity",
    "com.mika.shop/.pay.PasswordActivity",
    "com.example/.ui.PaymentSheetActivity",
    "alipays://platformapi/startapp?appId=20000067",
    "weixin://wxpay/bizpayurl?pr=abc",
    "https://www.paypal.example/webscr",
    "intent://cashier/#Intent;scheme=shop;end",
]


@pytest.mark.parametrize("place", CHECKOUTS)
def test_an_address_that_reaches_a_checkout_is_a_payment_step(place):
    assert classify_place(place).risk is RiskClass.PAYMENT, place


@pytest.mark.parametrize(
    "place",
    [
        "https://news.example/border-crossing",
        "https://video.example/replay/42",
        "https://shop.example/display-settings",
        "https://api.example/payload/7",
        "mikashop://home",
        "com.android.settings/.Settings",
        "https://maps.example/place/cafe",
        "https://shop.example/products/green-tea",
    ],
)
def test_an_address_that_only_looks_like_one_is_not(place):
    assert classify_place(place).risk is RiskClass.NONE, place


def test_a_link_tap_is_judged_by_where_it_leads():
    # A link whose text says nothing ("Continue") but whose address is the checkout.
    target = ActionTarget(label="Continue", kind="tap", place="https://shop.example/checkouts/c/7f3a")
    assert classify_touch(target).risk is RiskClass.PAYMENT
    assert classify_touch(ActionTarget(label="Continue", kind="tap", place="https://shop.example/blog")).risk is (
        RiskClass.NONE
    )
