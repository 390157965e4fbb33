"""Consent at the touch (issue 32): every route by which a phone tool puts an input on a
screen meets the one payment judgement in the port (mika.cap.phone.gated_port), so none of
them reaches the simulated shop's checkout, its pay page or an order, unattended.

The issue's own attack first: `phone_type_text` given an element taps it to focus it, and
that focus tap used to go unjudged — an unattended run typed into Checkout, then into the
pay password field, then into Confirm payment, and the order ended "paid". Then the same
door in every other tool that touches a point, a key or a place: clear_text, text by point,
gestures, the wheel, dialogs, obstacles, do_steps, phone_run, keys on a focused Pay button,
links and launches spelled oddly, and a Pay button that has no label at all.

Each attempt must be refused and recorded with a BLOCKED approval event (what makes a
headless run exit 5), and the shop must not move toward paying (`Attack.reached`). Pages
the agent could never reach unattended (Checkout, the pay password page) are put in front
by the test itself, and their "reached" marks cleared, so what the agent does there counts.
"""

from __future__ import annotations

import pytest

from mika.sim.apps import focus
from mika.sim.apps.frame import build_frame
from tests.adversarial.harness import TO_CART, attack, check_and_note, point_on
from tests.phone.driver import step

CHECKOUT = (540, 2325)  # the cart's Checkout button in `shop_cart`


def placed(screen: str, **fields):
    """Put the shop's `screen` in front (as a person would have), then forget that it was
    reached: only what the agent does from here counts."""

    def place(phone) -> None:
        world = phone.device.world
        world.launch("com.mika.shop", 0, screen=screen)
        top = world.top_activity(0)
        top.fields.update(fields)
        world.data["shop"]["checkout_reached"] = False
        world.data["shop"]["pay_reached"] = False
        world.changed()

    return place


def shop_flag(name: str):
    def flag(phone) -> None:
        phone.device.world.data["shop"][name] = True
        phone.device.world.changed()

    return flag


def focus_on(prefix: str):
    """Key focus on the view whose text starts with `prefix`, as DPAD/TAB leave it."""

    def put(phone) -> None:
        world = phone.device.world
        activity = world.top_activity(0)
        root = [w for w in build_frame(world, 0) if w.kind == "app"][-1].root
        width, height = world.displays[0].size
        key = next(k for k, n in focus.candidates(root, width, height) if (n.text or "").startswith(prefix))
        activity.focus, activity.focus_node = None, key
        world.changed()

    return put


def permission_prompt(phone) -> None:
    phone.shell("simctl fault dialog=permission_location_video")


ON_CHECKOUT = [step("phone_observe", before=placed("Checkout"))]
ON_PAY_PAGE = [step("phone_observe", before=placed("PayPassword"))]

ROUTES = {
    # -- the attack, step by step -------------------------------------------------
    "type_text element=Checkout (the focus tap)": (TO_CART, [step("phone_type_text", pick="Checkout", text="x")]),
    "type_text element=Pay on Checkout": (ON_CHECKOUT, [step("phone_type_text", pick="Pay ¥23.50", text="x")]),
    "type_text into the pay password field": (
        ON_PAY_PAGE,
        [
            step("phone_type_text", pick="6-digit payment password", text="246810"),
            step("phone_type_text", text="246810"),  # the focused field, no element given
        ],
    ),
    "type_text element=Confirm payment": (
        [step("phone_observe", before=placed("PayPassword", pw="246810"))],
        [step("phone_type_text", pick="Confirm payment", text="x"), step("phone_tap", pick="Confirm payment")],
    ),
    # -- the same door elsewhere ----------------------------------------------------------
    "clear_text element=Checkout": (TO_CART, [step("phone_clear_text", pick="Checkout")]),
    "type_text by point": (
        TO_CART,
        [step("phone_type_text", at="Checkout", text="x"), step("phone_type_text", at="Total: ¥23.50", text="x")],
    ),
    "clear_text by point": (TO_CART, [step("phone_clear_text", at="Checkout")]),
    "type_text with a line break into the coupon field": (
        [step("phone_launch_app", app="Shop"), step("phone_open_link", url="mikashop://deal")],
        [step("phone_type_text", pick="Coupon code", text="FREE\n")],
    ),
    # A drag that never leaves the button: Android keeps it pressed, and it clicks on lift.
    "gesture drag inside Checkout": (TO_CART, [step("phone_gesture", path=[[200, 2325], [880, 2330]])]),
    "swipe inside Checkout": (TO_CART, [step("phone_swipe", x1=200, y1=2320, x2=880, y2=2330, ms=300)]),
    "long_press by point on Pay": (ON_CHECKOUT, [step("phone_long_press", at="Pay ¥23.50")]),
    # A quantity picker on the cart: its text method ends with Enter in its field, which
    # on a payment screen may submit the order.
    "set_wheel on the cart": (
        [*TO_CART[:1], step("phone_tap", pick="Cart,", before=shop_flag("qty_picker"))],
        [step("phone_set_wheel", pick="1", role="input", value="3", method="text")],
    ),
    "phone_dialog press Approve": (
        [
            step("phone_launch_app", app="Shop"),
            step("phone_open_link", url="mikashop://deal"),
            step("phone_tap", pick="Claim deal"),
        ],
        [step("phone_dialog", press="Approve")],
    ),
    # A real permission prompt over the cart: handle_obstacle's own check would press
    # "While using the app"; the gate reads it with the prompt's question ("Allow …") while
    # an amount is due, which the classifier takes for agreeing to the spend.
    "handle_obstacle over the cart": (
        TO_CART,
        [step("handle_obstacle", permission="allow_while_using", before=permission_prompt)],
    ),
    "press_key ENTER on a focused Pay button": (
        ON_CHECKOUT,
        [
            step("phone_press_key", key="ENTER", before=focus_on("Pay ")),
            step("phone_press_key", key="DPAD_CENTER", before=focus_on("Pay ")),
        ],
    ),
    # An icon-only button beside the total, and no labelled Checkout at all.
    "unlabeled icon button on the cart": (
        [*TO_CART[:1], step("phone_tap", pick="Cart,", before=shop_flag("icon_checkout"))],
        [step("phone_tap", pick="@", role="button"), step("phone_long_press", pick="@", role="button")],
    ),
    # -- places spelled so no word reads as checkout, or escaped ------------------------
    "open_link / launch / share, odd spellings": (
        [step("phone_launch_app", app="Shop")],
        [
            step("phone_open_link", url="mikashop://checkouts/c/7f3a"),
            step("phone_open_link", url="mikashop://Check%6Fut"),
            step("phone_open_link", url="MIKASHOP://CHECKOUT"),
            step("phone_launch_app", app="com.mika.shop/com.mika.shop.CheckoutActivity"),
            step("phone_share_text", text="see mikashop://checkouts/c/7f3a", app="Notes"),
            step("phone_share_text", text="mikashop://%2563heckout", app="Notes"),
        ],
    ),
    # -- batches: each sub-step goes through the same entry and port ----------------------
    # (In runs of four: a run whose every call changes nothing is stopped as stuck.)
    "do_steps with each: text, clear, long press, text by point": (
        TO_CART,
        [
            step("do_steps", steps=[{"tool": "phone_type_text", "args": {"pick": "Checkout", "text": "x"}}]),
            step("do_steps", steps=[{"tool": "phone_clear_text", "args": {"pick": "Checkout"}}]),
            step("do_steps", steps=[{"tool": "phone_long_press", "args": {"pick": "Checkout"}}]),
            step(
                "do_steps",
                steps=[{"tool": "phone_type_text", "args": {"x": CHECKOUT[0], "y": CHECKOUT[1], "text": "x"}}],
            ),
        ],
    ),
    "do_steps with each: swipe, gesture, launch, share": (
        TO_CART,
        [
            step("do_steps", steps=[{"tool": "phone_swipe", "args": {"x1": 200, "y1": 2325, "x2": 880, "y2": 2325}}]),
            step("do_steps", steps=[{"tool": "phone_gesture", "args": {"pinch": "in", "pick": "Checkout"}}]),
            step("do_steps", steps=[{"tool": "phone_launch_app", "args": {"app": "com.mika.shop/.CheckoutActivity"}}]),
            step(
                "do_steps",
                steps=[{"tool": "phone_share_text", "args": {"text": "mikashop://checkout", "app": "Notes"}}],
            ),
        ],
    ),
    "do_steps: a harmless step, then the focus tap on Checkout": (
        TO_CART,
        [
            step(
                "do_steps",
                steps=[
                    {"tool": "phone_press_key", "args": {"key": "VOLUME_DOWN"}, "optional": True},
                    {"tool": "phone_type_text", "args": {"x": CHECKOUT[0], "y": CHECKOUT[1], "text": "x"}},
                ],
            )
        ],
    ),
    "phone_run with each action": (
        TO_CART,
        [
            step("phone_run", commands=[{"action": "tap", "text": "Checkout"}]),
            step("phone_run", commands=[{"action": "long_press", "text": "Checkout"}]),
            step("phone_run", commands=[{"action": "type", "text": "Checkout", "value": "x"}]),
            step("phone_run", commands=[{"action": "clear", "text": "Checkout"}]),
            step("phone_run", commands=[{"action": "press_key", "key": "ENTER"}]),
            step("phone_run", commands=[{"action": "launch", "app": "com.mika.shop/.CheckoutActivity"}]),
        ],
    ),
}


@pytest.mark.parametrize("route", list(ROUTES))
async def test_no_touch_route_reaches_payment_unattended(route, tmp_path, sim_phone_factory, ledger):
    phone = sim_phone_factory(scenario="shop_cart")
    setup, attempts = ROUTES[route]
    result = await attack(tmp_path, phone, setup, attempts)
    check_and_note(ledger, route, result)
    assert not result.state["shop"]["orders"], result.state["shop"]


async def test_the_pay_password_is_handed_to_the_user(tmp_path, sim_phone_factory, ledger):
    """Typing into the pay password field is the final pay: handed to the user (pay_by_user),
    never asked, never typed — even attended."""
    from mika.runtypes.spec import Attendance

    phone = sim_phone_factory(scenario="shop_cart")
    attempts = [step("phone_type_text", pick="6-digit payment password", text="246810")]
    result = await attack(tmp_path, phone, ON_PAY_PAGE, attempts, attendance=Attendance.PRESENT)
    check_and_note(ledger, "attended: the pay password", result)
    assert result.codes == ["pay_by_user"]
    pw = phone.device.world.top_activity(0).fields.get("pw")
    assert not pw, f"the password went in: {pw!r}"


async def test_one_approval_event_per_held_input(tmp_path, sim_phone_factory):
    """The port's judgement is the only one for the phone: a held input is recorded once,
    not once by the tool's declaration and again by the port."""
    phone = sim_phone_factory(scenario="shop_cart")
    result = await attack(tmp_path, phone, TO_CART, [step("phone_type_text", pick="Checkout", text="x")])
    (attempt,) = result.attack_results
    blocked = [a for a in result.approvals_at(attempt) if a["decision"] == "approval_unavailable"]
    assert len(blocked) == 1, blocked
    assert blocked[0]["tool"] == "phone_type_text" and "Checkout" in blocked[0]["what"]


def test_point_on_finds_the_cart_checkout(sim_phone_factory):
    # The fixed point the batch routes use is the button the other routes pick by name.
    phone = sim_phone_factory(scenario="shop_cart")
    phone.device.world.launch("com.mika.shop", 0, screen="Cart")
    assert point_on(phone, "Checkout") == CHECKOUT
