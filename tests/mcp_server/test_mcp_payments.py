"""Adversarial: an MCP client against the simulated shop's checkout (¥23.50 in the cart).

The client drives the phone itself (phone_tap on the payment button) or asks for a whole
task (run_task). Without elicitation every payment step is refused (approval_unavailable,
said in the result); with elicitation declined it is refused; an accepted elicitation
releases exactly that one step — the final "Pay" is still handed to the user, and the
next payment step is asked again. The shop's own state says what was reached.
"""

from __future__ import annotations

from tests.mcp_server.mcp_client import elicitor, script, shop_numbers, stdio_mika
from tests.phone.driver import number_for


def shop(phone) -> dict:
    return phone.device.world.state()["shop"]


async def listing(client) -> str:
    result = await client.call_tool("phone_observe", {})
    assert not result.is_error, result.content
    return result.content[0].text


async def to_cart(client) -> str:
    """Shop → Cart by the client's own calls; returns the cart's listing."""
    opened = await client.call_tool("phone_launch_app", {"app": "Shop"})
    assert not opened.is_error, opened.content
    tap = await client.call_tool("phone_tap", {"element": number_for(await listing(client), "Cart,")})
    assert not tap.is_error, tap.content
    return await listing(client)


async def tap_label(client, label: str):
    return await client.call_tool("phone_tap", {"element": number_for(await listing(client), label)})


async def test_a_client_without_elicitation_cannot_pay(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="shop_cart")
    async with stdio_mika(tmp_path, "--device", phone.serial, "--model", script(tmp_path, ["ok"])) as client:
        cart = await to_cart(client)
        assert "Checkout" in cart
        result = await tap_label(client, "Checkout")
        assert result.is_error
        assert result.structured_content["code"] == "approval_unavailable"
        assert "cannot ask its user" in result.content[0].text and "nothing was paid" in result.content[0].text
    state = shop(phone)
    assert not state.get("checkout_reached") and not state.get("pay_reached") and not state.get("orders")


async def test_a_declined_or_empty_elicitation_refuses_the_step(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="shop_cart")
    # First the person declines; then a client "accepts" without allowing: neither is consent.
    ask = elicitor("decline", "accept", allow=False)
    async with stdio_mika(tmp_path, "--device", phone.serial, "--model", script(tmp_path, ["ok"]), elicit=ask) as c:
        await to_cart(c)
        declined = await tap_label(c, "Checkout")
        assert declined.is_error and declined.structured_content["code"] == "refused"
        assert "declined" in declined.content[0].text
        empty = await tap_label(c, "Checkout")
        assert empty.is_error and empty.structured_content["code"] == "refused"
    assert len(ask.asked) == 2 and "¥23.50" in ask.asked[0]  # the person saw the screen's amount
    assert not shop(phone).get("checkout_reached")


async def test_run_task_on_a_checkout_goal_never_pays_without_elicitation(tmp_path, sim_phone_factory):
    cart, checkout = await shop_numbers(sim_phone_factory)
    phone = sim_phone_factory(scenario="shop_cart")
    claim = "Bought! The green tea is paid."
    model = script(
        tmp_path,
        [
            {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "Shop"}}]},
            {"tool_calls": [{"name": "phone_tap", "arguments": {"element": cart}}]},
            {"tool_calls": [{"name": "phone_tap", "arguments": {"element": checkout}}]},
            claim,  # the model claims success after the refusal
        ],
    )
    async with stdio_mika(tmp_path, "--device", phone.serial, "--model", model) as client:
        result = await client.call_tool("run_task", {"goal": "Buy the green tea in my cart"})
    data = result.structured_content
    assert data["not_paid"] is True and data["approval"] == "approval_unavailable", data
    assert data["answer"].startswith(claim) and "Not paid" in data["answer"]
    assert "cannot ask its user" in result.content[0].text
    state = shop(phone)
    assert not state.get("checkout_reached") and not state.get("pay_reached") and not state.get("orders")


async def test_an_accepted_step_releases_only_that_step(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="shop_cart")
    ask = elicitor("accept", "accept", "accept")  # a client that would say yes to anything
    async with stdio_mika(tmp_path, "--device", phone.serial, "--model", script(tmp_path, ["ok"]), elicit=ask) as c:
        await to_cart(c)
        first = await tap_label(c, "Checkout")
        assert not first.is_error, first.content
        assert shop(phone).get("checkout_reached")
        # The final "Pay" is the user's own: refused without asking, whatever the client says.
        pay = await tap_label(c, "Pay ¥23.50")
        assert pay.is_error and pay.structured_content["code"] == "pay_by_user"
        assert len(ask.asked) == 1
        # The consent was spent on the first step: the same kind of step again is asked again.
        back = await c.call_tool("phone_back", {})
        assert not back.is_error, back.content
        again = await tap_label(c, "Checkout")
        assert len(ask.asked) == 2, ask.asked
        assert not again.is_error  # this time the person allowed it again, explicitly
    state = shop(phone)
    assert not state.get("pay_reached") and not state.get("orders")


async def test_a_2026_client_is_asked_in_the_result_and_its_retry_answers(tmp_path, sim_phone_factory):
    """On 2026-07-28 (the SDK's default) the server cannot send a request mid-call: the
    payment question comes back as an InputRequiredResult, the SDK's client asks its user
    and retries with the answer. Declined: refused; accepted: that one step is done."""
    phone = sim_phone_factory(scenario="shop_cart")
    ask = elicitor("decline", "accept")
    model = script(tmp_path, ["ok"])
    async with stdio_mika(tmp_path, "--device", phone.serial, "--model", model, elicit=ask, mode="auto") as c:
        assert c.protocol_version == "2026-07-28"
        await to_cart(c)
        declined = await tap_label(c, "Checkout")
        assert declined.is_error and declined.structured_content["code"] == "refused"
        assert not shop(phone).get("checkout_reached")
        accepted = await tap_label(c, "Checkout")
        assert not accepted.is_error, accepted.content
    assert len(ask.asked) == 2 and "¥23.50" in ask.asked[1]
    state = shop(phone)
    assert state.get("checkout_reached") and not state.get("pay_reached") and not state.get("orders")


async def test_a_forged_or_mismatched_retry_releases_nothing(tmp_path, sim_phone_factory):
    """The attacker drives the 2026 rounds by hand: an "accepted" answer with a made-up
    state token, or with the real token on a different call, is no consent."""
    from mcp_types import ElicitResult, InputRequiredResult

    phone = sim_phone_factory(scenario="shop_cart")
    yes = {"payment": ElicitResult(action="accept", content={"allow": True})}
    model = script(tmp_path, ["ok"])
    async with stdio_mika(tmp_path, "--device", phone.serial, "--model", model, elicit=elicitor(), mode="auto") as c:
        await to_cart(c)
        number = number_for(await listing(c), "Checkout")
        forged = await c.session.call_tool(
            "phone_tap",
            {"element": number},
            input_responses=yes,
            request_state="made-up",
            allow_input_required=True,
        )
        assert isinstance(forged, InputRequiredResult)  # not released: asked afresh
        # The real token, spent on another call (a point on the same button).
        first = await c.session.call_tool("phone_tap", {"element": number}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult) and first.request_state
        other = await c.session.call_tool(
            "phone_long_press",
            {"element": number},
            input_responses=yes,
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert isinstance(other, InputRequiredResult)
        # The token was for one call and is gone now: the right call cannot use it either.
        late = await c.session.call_tool(
            "phone_tap",
            {"element": number},
            input_responses=yes,
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert isinstance(late, InputRequiredResult)
    assert not shop(phone).get("checkout_reached")


async def test_a_client_typing_into_checkout_cannot_pay(tmp_path, sim_phone_factory):
    # The route: phone_type_text given the Checkout button taps it to focus it.
    phone = sim_phone_factory(scenario="shop_cart")
    async with stdio_mika(tmp_path, "--device", phone.serial, "--model", script(tmp_path, ["ok"])) as client:
        cart = await to_cart(client)
        result = await client.call_tool("phone_type_text", {"element": number_for(cart, "Checkout"), "text": "1"})
        assert result.is_error
        assert result.structured_content["code"] == "approval_unavailable", result.structured_content
    state = shop(phone)
    assert not state.get("checkout_reached") and not state.get("pay_reached") and not state.get("orders")
