"""`mika mcp --http` with the SDK's own client over streamable HTTP: loopback needs no
token; a non-loopback bind (0.0.0.0 — not loopback by our rule, which is ipaddress's
is_loopback: 127.0.0.0/8 and ::1, plus "localhost") refuses every request without the
bearer token printed once on stderr (401), and serves with it. run_task's payment
question travels over HTTP too: accepted, it releases the one step; declined, nothing."""

from __future__ import annotations

import json
import re

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_server.mcp_client import HttpMika, elicitor, script, shop_numbers


@pytest.fixture
def servers():
    started: list[HttpMika] = []
    yield started
    for server in started:
        server.close()


async def test_loopback_http_serves_run_task_without_a_token(tmp_path, servers):
    model = script(tmp_path, [{"tool_calls": [{"name": "wait", "arguments": {"seconds": 0}}]}, "The answer is 42."])
    server = HttpMika(tmp_path, "127.0.0.1", "--device", "none", "--model", model)
    servers.append(server)
    progress: list[str | None] = []

    async def on_progress(value, total, message):
        progress.append(message)

    async with Client(server.url) as client:  # the SDK's default: the newest protocol it speaks
        names = [t.name for t in (await client.list_tools()).tools]
        assert names == ["run_task"]  # no phone: no phone tools
        result = await client.call_tool("run_task", {"goal": "what is the answer"}, progress_callback=on_progress)
        assert result.structured_content["outcome"] == "answered"
        assert result.structured_content["answer"] == "The answer is 42."
        assert progress and "wait" in progress[0]
        run = await client.read_resource(f"mika://runs/{result.structured_content['run_id']}")
        assert json.loads(run.contents[0].text)["run"]["answer"] == "The answer is 42."
    assert "Bearer" not in server.stderr()


async def test_a_non_loopback_bind_needs_the_bearer_token(tmp_path, servers):
    server = HttpMika(tmp_path, "0.0.0.0", "--device", "none", "--model", script(tmp_path, ["ok"]))
    servers.append(server)
    found = re.search(r"Authorization: Bearer (\S+)", server.stderr())
    assert found, server.stderr()
    token = found.group(1)
    assert server.stderr().count(token) == 1  # printed once
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with httpx2.AsyncClient() as raw:
        for auth in ({}, {"authorization": "Bearer wrong"}, {"authorization": token}):
            refused = await raw.post(server.url, json=ping, headers={**headers, **auth})
            assert refused.status_code == 401, (auth, refused.status_code)
        # GET and DELETE are requests too.
        assert (await raw.get(server.url)).status_code == 401
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(server.url, http_client=http)) as client,
    ):
        assert [t.name for t in (await client.list_tools()).tools] == ["run_task"]
        result = await client.call_tool("run_task", {"goal": "say ok"})
        assert result.structured_content["answer"] == "ok"


def _checkout_script(tmp_path, cart: int, checkout: int) -> str:
    return script(
        tmp_path,
        [
            {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "Shop"}}]},
            {"tool_calls": [{"name": "phone_tap", "arguments": {"element": cart}}]},
            {"tool_calls": [{"name": "phone_tap", "arguments": {"element": checkout}}]},
            {
                "tool_calls": [
                    {"name": "request_confirmation", "arguments": {"what": "Green Tea 250g", "amount": "¥23.50"}}
                ]
            },
            {"tool_calls": [{"name": "phone_tap", "arguments": {"element": checkout}}]},
            "Checkout is open; enter the payment password yourself.",
        ],
    )


@pytest.mark.parametrize("answer", ["accept", "decline"])
async def test_run_task_asks_its_payment_step_over_http(tmp_path, servers, sim_phone_factory, answer):
    cart, checkout = await shop_numbers(sim_phone_factory)
    phone = sim_phone_factory(scenario="shop_cart")
    server = HttpMika(
        tmp_path, "127.0.0.1", "--device", phone.serial, "--model", _checkout_script(tmp_path, cart, checkout)
    )
    servers.append(server)
    ask = elicitor(answer)
    # The 2025 protocol: the server may send the question while the call runs.
    async with Client(server.url, mode="legacy", elicitation_callback=ask) as client:
        result = await client.call_tool("run_task", {"goal": "Buy the green tea in my cart"})
    data = result.structured_content
    assert len(ask.asked) == 1 and "¥23.50" in ask.asked[0]
    shop = phone.device.world.state()["shop"]
    assert not shop.get("pay_reached") and not shop.get("orders")  # the final pay is always the user's
    if answer == "accept":
        assert shop.get("checkout_reached") and data["not_paid"] is False
    else:
        assert not shop.get("checkout_reached") and data["not_paid"] is True
