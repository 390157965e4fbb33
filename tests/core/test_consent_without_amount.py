"""A payment step whose own screen shows no amount (a menu's "Checkout" that opens the page
saying what is due) could never be released: the consent had to match an amount on the
step's screen. Now such a consent names the held-back button instead — and every route
around that narrower rule is tried here."""

from __future__ import annotations

import pytest

from mika.action.approval import ApprovalPolicy, Verdict
from mika.action.approval_summary import ScreenSummary, compare, summarize_text
from mika.action.confirmation import ConfirmationGate, Consent
from mika.action.origin import Origin
from mika.action.risk import classify
from mika.config.language import set_language
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance
from mika.tool.declaration import ActionTarget

MENU = "Form Lab | Create account | Load more | Checkout | Tips"
APP = "com.mika.formlab"


def _target(label: str = "Checkout", screen: str = MENU, **kw) -> ActionTarget:
    return ActionTarget(label=label, app=APP, kind="tap", screen_text=screen, **kw)


def _menu_consent(step: int = 1, amount: str = "¥42.00") -> Consent:
    # What the confirmation tool grants after a held-back step on MENU (no amount shown).
    return Consent(
        app=APP, kind="", amount=amount, what="Form Lab order", step=step, amount_on_screen=False, button="Checkout"
    )


def _policy() -> tuple[ApprovalPolicy, ConfirmationGate]:
    gate = ConfirmationGate()
    return ApprovalPolicy(RunProvenance(RunOrigin.UI, Attendance.PRESENT), gate, autonomous=False), gate


def _decide(policy: ApprovalPolicy, target: ActionTarget, origin: Origin = Origin.MODEL, step: int = 2) -> Verdict:
    return policy.decide(classify(target.label, target.screen_text), target, origin, step).verdict


def test_the_menu_checkout_is_a_payment_step_with_no_amount_on_its_screen():
    assert summarize_text(MENU, button="Checkout", app=APP).amount == ""
    policy, _ = _policy()
    assert _decide(policy, _target()) is Verdict.NEEDS_CONFIRMATION


def test_a_consent_for_it_releases_that_button_once():
    policy, gate = _policy()
    gate.grant(_menu_consent())
    assert _decide(policy, _target()) is Verdict.RELEASED
    assert gate.pending is None, "spent"
    assert _decide(policy, _target(), step=3) is Verdict.NEEDS_CONFIRMATION


def test_it_never_releases_another_payment_button():
    policy, gate = _policy()
    gate.grant(_menu_consent())
    other = _target(label="Buy now", screen=MENU + " | Buy now")
    assert _decide(policy, other) is Verdict.NEEDS_CONFIRMATION
    assert gate.pending is not None, "a mismatch does not spend the consent"


@pytest.mark.parametrize(
    "screen",
    [
        MENU + " | Total ¥4,200.00",  # an amount appeared that is not the one consented to
        MENU + " | ¥42.00 | ¥9.90",  # the consented amount plus another one
        MENU + " | $42.00 shipping ¥1",
    ],
)
def test_it_never_releases_once_another_amount_is_on_the_screen(screen):
    policy, gate = _policy()
    gate.grant(_menu_consent())
    assert _decide(policy, _target(screen=screen)) is Verdict.NEEDS_CONFIRMATION


def test_the_consented_amount_itself_may_show():
    policy, gate = _policy()
    gate.grant(_menu_consent())
    assert _decide(policy, _target(screen=MENU + " | Order total ¥42")) is Verdict.RELEASED


@pytest.mark.parametrize("origin", [Origin.SCRIPT, Origin.REPLAY, Origin.MCP])
def test_scripts_replays_and_mcp_never_spend_it(origin):
    policy, gate = _policy()
    gate.grant(_menu_consent())
    assert _decide(policy, _target(), origin=origin) is Verdict.NEEDS_CONFIRMATION
    assert gate.pending is not None


def test_it_expires_after_three_steps_and_with_another_write():
    policy, gate = _policy()
    gate.grant(_menu_consent(step=1))
    assert _decide(policy, _target(), step=5) is Verdict.NEEDS_CONFIRMATION
    gate.grant(_menu_consent(step=1))
    gate.note_write()
    assert _decide(policy, _target(), step=2) is Verdict.NEEDS_CONFIRMATION


def test_it_is_not_spent_off_screen_nor_on_an_unclear_target():
    policy, gate = _policy()
    gate.grant(_menu_consent())
    assert _decide(policy, _target(on_screen=False)) is Verdict.NEEDS_CONFIRMATION
    assert _decide(policy, _target(unclear=True)) is Verdict.UNCLEAR
    assert gate.pending is not None


def test_another_app_cannot_use_it():
    policy, gate = _policy()
    gate.grant(_menu_consent())
    elsewhere = ActionTarget(label="Checkout", app="com.mika.shop", kind="tap", screen_text=MENU)
    assert _decide(policy, elsewhere) is Verdict.NEEDS_CONFIRMATION


def test_the_final_pay_is_still_handed_to_the_person():
    policy, gate = _policy()
    gate.grant(_menu_consent())
    assert _decide(policy, _target(label="Pay", screen=MENU)) is Verdict.HAND_TO_USER


def test_an_amount_consent_keeps_the_old_rule():
    # A consent given on a screen that showed an amount still needs that amount in view:
    # a button label alone never releases it.
    policy, gate = _policy()
    gate.grant(Consent(app=APP, kind="", amount="¥42.00", what="order", step=1))
    assert _decide(policy, _target()) is Verdict.NEEDS_CONFIRMATION
    assert _decide(policy, _target(screen=MENU + " | ¥42.00")) is Verdict.RELEASED


def test_the_card_tells_the_person_the_amount_is_only_the_models_word():
    set_language("en")
    notes = compare(ScreenSummary(button="Checkout", app=APP), what="order", amount="¥42.00").mismatches
    assert len(notes) == 1 and "shows no amount" in notes[0] and "¥42.00" in notes[0] and "Checkout" in notes[0]
    set_language("zh")
    assert "没有金额" in compare(ScreenSummary(button="Checkout"), amount="¥42.00").mismatches[0]
    # A screen read with no button at all is still "unchecked", as before.
    set_language("en")
    assert "No payment screen was read" in compare(ScreenSummary(), amount="¥42.00").mismatches[0]
