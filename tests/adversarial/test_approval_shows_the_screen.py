"""The approval card (TUI) and the approval request (the ConfirmationAsked / approval
events a headless or MCP face reads) show what the screen shows — item, amount, app —
not the model's words, and say where the model's claim differs."""

from __future__ import annotations

from mika.action.approval_summary import compare, summarize_text
from mika.config.language import set_language
from mika.model.testing import Reply, ScriptedModel
from mika.record import events as ev
from mika_tui.widgets.cards import ApprovalCard
from tests.core.toy import ToyWorld
from tests.tui import scenes
from tests.tui.conftest import make_app, until

CART = "08:00 | Cart | Navigate up | Green Tea 250g × 1 | ¥23.50 each | Total: ¥23.50 | Checkout"
CHECKOUT = (
    "Confirm order | Deliver to | Room 1203, 88 Century Ave, Shanghai | Green Tea 250g × 1 | ¥23.50 | "
    "Amount due: ¥23.50 | Pay ¥23.50"
)


def test_the_cart_and_checkout_pages_summarise_as_item_amount_app():
    cart = summarize_text(CART, button="Checkout", app="com.mika.shop")
    assert (cart.item, cart.amount, cart.app, cart.button) == (
        "Green Tea 250g × 1",
        "¥23.50",
        "com.mika.shop",
        "Checkout",
    )
    pay = summarize_text(CHECKOUT, button="Pay ¥23.50", app="com.mika.shop")
    assert (pay.item, pay.amount) == ("Green Tea 250g × 1", "¥23.50")


def test_the_amount_due_wins_over_other_prices_on_the_page():
    page = "Mug | ¥35.00 | Tea | ¥23.50 | Subtotal ¥58.50 | Delivery ¥6.00 | Total ¥64.50 | Place order"
    s = summarize_text(page, button="Place order")
    assert s.amount == "¥64.50" and s.item == "Mug, Tea"


def test_a_claim_that_differs_from_the_screen_is_named_each_way():
    set_language("en")
    try:
        seen = summarize_text(CART, button="Checkout", app="com.mika.shop")
        same = compare(seen, what="Green Tea 250g", amount="¥23.50", app="com.mika.shop")
        assert same.mismatches == ()
        off = compare(seen, what="Ceramic Mug", amount="¥2.35", app="com.other.shop")
        text = " ".join(off.mismatches)
        assert "¥2.35" in text and "¥23.50" in text
        assert "Ceramic Mug" in text and "Green Tea 250g × 1" in text
        assert "com.other.shop" in text
        blind = compare(summarize_text(""), what="tea", amount="¥1")
        assert blind.mismatches and "check the phone" in blind.mismatches[0]
    finally:
        set_language(None)


def test_the_mismatch_sentences_speak_chinese():
    set_language("zh")
    try:
        seen = summarize_text(CART, button="Checkout", app="com.mika.shop")
        assert "屏幕上显示 ¥23.50" in compare(seen, amount="¥2.35").mismatches[0]
    finally:
        set_language(None)


async def test_the_card_shows_the_screen_and_says_the_model_differs(tmp_path):
    world = ToyWorld()
    screen = "Checkout · Green Tea 250g × 1 · Total ¥23.50 · Place order"
    model = ScriptedModel(
        [
            Reply.call("toy_open", page=screen),
            Reply.call("toy_tap", label="Place order"),  # held back: the screen is read here
            # The model's words: another item, another amount.
            Reply.call("request_confirmation", what="Ceramic Mug", amount="¥2.35", app="com.toy.shop"),
            "Waiting.",
        ]
    )
    app = make_app(tmp_path, model, world=world)
    async with app.run_test(size=(120, 40)) as pilot:
        seen: list[ev.RunEvent] = []
        app.center.subscribe(seen.append)
        await scenes.run_to_card(pilot, "buy tea", "approval")
        card = app.screen.query_one(ApprovalCard)
        shown = "\n".join(str(s.render()) for s in card.query("Static"))
        assert "Green Tea 250g × 1" in shown and "¥23.50" in shown and "com.toy.shop" in shown
        assert "Ceramic Mug" not in shown.split("⚠")[0], "the body is the screen's, not the model's"
        assert "⚠" in shown and "¥2.35" in shown
        asked = [e for e in seen if isinstance(e, ev.ConfirmationAsked)][-1]
        assert (asked.screen_item, asked.screen_amount, asked.screen_app) == (
            "Green Tea 250g × 1",
            "¥23.50",
            "com.toy.shop",
        )
        assert any("¥2.35" in m for m in asked.mismatch)
        await pilot.press("r")
        await until(lambda: not scenes.view(pilot).running)
    assert world.taps == []


async def test_a_consent_is_for_what_the_screen_showed(tmp_path):
    """Allowing the card allows the screen's ¥23.50: the next Place order is released even
    though the model had said ¥2.35 — and a ¥2.35 consent could not have released it."""
    world = ToyWorld()
    screen = "Checkout · Green Tea 250g × 1 · Total ¥23.50 · Place order"
    model = ScriptedModel(
        [
            Reply.call("toy_open", page=screen),
            Reply.call("toy_tap", label="Place order"),
            Reply.call("request_confirmation", what="tea", amount="¥2.35", app="com.toy.shop"),
            Reply.call("toy_tap", label="Place order"),
            "Ordered.",
        ]
    )
    app = make_app(tmp_path, model, world=world)
    async with app.run_test(size=(120, 40)) as pilot:
        seen: list[ev.RunEvent] = []
        app.center.subscribe(seen.append)
        await scenes.run_to_card(pilot, "buy tea", "approval")
        await pilot.press("a")
        await until(lambda: scenes.view(pilot).status == "answered")
    allowed = [e for e in seen if isinstance(e, ev.ApprovalEvent) and e.decision == "allowed"]
    assert allowed and allowed[0].amount == "¥23.50" and allowed[0].item == "Green Tea 250g × 1"
    assert world.taps == ["Place order"]
