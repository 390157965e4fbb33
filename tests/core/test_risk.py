"""The irreversible / outward / payment classifier on English and Chinese labels."""

from __future__ import annotations

import pytest

from mika.action.amounts import amounts_in
from mika.action.approval import ApprovalPolicy, Verdict
from mika.action.confirmation import ConfirmationGate, Consent
from mika.action.origin import Origin
from mika.action.pacing import OutwardPacing
from mika.action.risk import RiskClass, classify, classify_place, classify_target
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance
from mika.tool.declaration import ActionTarget

CASES = [
    ("Send", "", RiskClass.OUTWARD),
    ("发送", "", RiskClass.OUTWARD),
    ("提交", "", RiskClass.OUTWARD),
    ("立即沟通", "", RiskClass.OUTWARD),
    ("打招呼", "", RiskClass.OUTWARD),
    ("投递简历", "", RiskClass.OUTWARD),
    ("Say hi", "", RiskClass.OUTWARD),
    ("Easy Apply", "", RiskClass.OUTWARD),
    ("Post", "", RiskClass.OUTWARD),
    ("Submit", "Total ¥23.50", RiskClass.PAYMENT),
    ("Place order", "", RiskClass.PAYMENT),
    ("下单", "", RiskClass.PAYMENT),
    ("提交订单", "实付 ¥23.50", RiskClass.PAYMENT),
    ("立即购买", "", RiskClass.PAYMENT),
    ("Pay", "¥23.50", RiskClass.PAY),
    ("支付", "", RiskClass.PAY),
    ("确认支付 ¥23.50", "", RiskClass.PAY),
    ("Pay now", "", RiskClass.PAY),
    ("Delete", "", RiskClass.IRREVERSIBLE),
    ("删除", "", RiskClass.IRREVERSIBLE),
    ("Settings", "", RiskClass.NONE),
    ("Messages", "", RiskClass.NONE),
    ("Wi-Fi", "", RiskClass.NONE),
    ("Display", "Total ¥23.50", RiskClass.NONE),
    ("", "", RiskClass.NONE),
    # Assent words agree to whatever is due: an app-drawn "Allow" next to a total is a spend.
    ("Allow", "Total ¥23.50", RiskClass.PAYMENT),
    ("Approve", "The user approved paying ¥23.50", RiskClass.PAYMENT),
    ("OK", "实付 ¥23.50", RiskClass.PAYMENT),
    ("确定", "合计 ￥23.50", RiskClass.PAYMENT),
    ("Continue", "", RiskClass.NONE),
    ("Allow", "", RiskClass.NONE),
    ("Approve payment", "", RiskClass.PAYMENT),
]


@pytest.mark.parametrize(("label", "screen", "expected"), CASES)
def test_classify(label, screen, expected):
    assert classify(label, screen).risk is expected


def test_amounts_are_found_in_several_forms():
    assert amounts_in("合计 ￥23.50 元, was $4.99, 100元 or RMB 8") == ["￥23.50", "$4.99", "100元", "RMB8"]


def test_the_gate_releases_only_a_matching_next_action():
    gate = ConfirmationGate()
    gate.grant(Consent(app="shop", kind="tap", amount="¥23.50", what="beans", step=1))
    assert not gate.release(app="other", kind="tap", screen_text="¥23.50", on_screen=True, step=2)
    assert not gate.release(app="shop", kind="tap", screen_text="¥99.00", on_screen=True, step=2)
    assert gate.release(app="shop", kind="tap", screen_text="Total ￥23.5", on_screen=True, step=2)
    assert not gate.release(app="shop", kind="tap", screen_text="¥23.50", on_screen=True, step=2)


def test_a_consent_expires_after_three_steps_and_with_another_write():
    gate = ConfirmationGate()
    gate.grant(Consent(app="shop", kind="", amount="¥5", what="x", step=1))
    assert not gate.release(app="shop", kind="tap", screen_text="¥5", on_screen=True, step=5)
    gate.grant(Consent(app="shop", kind="", amount="¥5", what="x", step=1))
    gate.note_write()
    assert not gate.release(app="shop", kind="tap", screen_text="¥5", on_screen=True, step=2)


PLACES = [
    ("mikashop://checkout", RiskClass.PAYMENT),
    ("https://shop.mika.example/checkout?item=tea", RiskClass.PAYMENT),
    ("com.mika.shop/.CheckoutActivity", RiskClass.PAYMENT),
    ("com.mika.shop/.pay.PasswordActivity", RiskClass.PAYMENT),
    ("https://m.example.com/order/123", RiskClass.PAYMENT),
    ("alipays://platformapi/startapp?appId=20000056", RiskClass.PAYMENT),
    ("https://pay.example.com/", RiskClass.PAYMENT),
    ("https://example.com/news/today", RiskClass.NONE),
    ("https://display.example.com/ok", RiskClass.NONE),
    ("com.mika.notes", RiskClass.NONE),
    # Escaped spellings of the same places: the page they open is what counts.
    ("https://shop.mika.example/%63heckout/", RiskClass.PAYMENT),
    ("https://shop.mika.example/%2563heckout/", RiskClass.PAYMENT),
    ("https://shop.mika.example/%63%68%65%63%6B%6F%75%74", RiskClass.PAYMENT),
    ("https://shop.mika.example/x?next=%2Fpay%2Fnow", RiskClass.PAYMENT),
    ("https://shop.mika.example/%252563heckout", RiskClass.PAYMENT),
    ("https://example.com/news/%74oday", RiskClass.NONE),
]


@pytest.mark.parametrize(("place", "expected"), PLACES)
def test_links_and_activities_that_lead_to_paying(place, expected):
    assert classify_place(place, "Total ¥23.50").risk is expected
    assert classify_target(place, "link").risk is expected


def test_a_link_is_a_payment_step_never_the_final_pay():
    # Opening a pay page is asked like checkout; the final button stays the user's.
    assert classify_place("mikashop://pay/now").risk is RiskClass.PAYMENT


def _policy(attendance=Attendance.PRESENT):
    gate = ConfirmationGate()
    return ApprovalPolicy(RunProvenance(RunOrigin.UI, attendance), gate, autonomous=False), gate


CHECKOUT = ActionTarget(label="Checkout", app="com.mika.shop", kind="tap", screen_text="Total ¥23.50 | Checkout")


@pytest.mark.parametrize("origin", [Origin.SCRIPT, Origin.REPLAY, Origin.MCP])
def test_scripts_replays_and_mcp_never_spend_a_consent(origin):
    policy, gate = _policy()
    gate.grant(Consent(app="com.mika.shop", kind="", amount="¥23.50", what="tea", step=1))
    classified = classify(CHECKOUT.label, CHECKOUT.screen_text)
    assert policy.decide(classified, CHECKOUT, origin, 2).verdict is Verdict.NEEDS_CONFIRMATION
    assert gate.pending is not None, "the consent is still the user's, for the model's own call"
    assert policy.decide(classified, CHECKOUT, Origin.MODEL, 2).verdict is Verdict.RELEASED


def test_a_payment_step_that_cannot_be_pinned_down_is_refused_even_with_a_consent():
    policy, gate = _policy()
    gate.grant(Consent(app="com.mika.shop", kind="", amount="¥23.50", what="tea", step=1))
    unclear = ActionTarget(
        label="Checkout", app="com.mika.shop", kind="key", screen_text="Total ¥23.50", on_screen=False, unclear=True
    )
    decision = policy.decide(classify(unclear.label, unclear.screen_text), unclear, Origin.MODEL, 2)
    assert decision.verdict is Verdict.UNCLEAR and not decision.allowed
    assert gate.pending is not None


class TestPacing:
    def test_the_first_outward_action_goes_at_once_then_8_to_20_seconds(self):
        now = [1000.0]
        pacing = OutwardPacing(clock=lambda: now[0], rand=lambda: 0.5)
        assert pacing.delay("com.chat") == 0
        pacing.finished("com.chat")
        assert pacing.delay("com.chat") == pytest.approx(14.0)
        now[0] += 10
        assert pacing.delay("com.chat") == pytest.approx(4.0)  # thinking time counts
        assert pacing.delay("com.other") == 0

    def test_more_actions_in_30_minutes_widen_the_gap_up_to_30_seconds(self):
        now = [0.0]
        pacing = OutwardPacing(clock=lambda: now[0], rand=lambda: 1.0)
        for _ in range(20):
            pacing.finished("app")
            now[0] += 1
        assert pacing.delay("app") == pytest.approx(30.0 - 1)
        now[0] += 31 * 60
        assert pacing.delay("app") == 0

    def test_off_never_waits(self):
        pacing = OutwardPacing(clock=lambda: 0.0, enabled=False)
        pacing.finished("app")
        assert pacing.delay("app") == 0
