"""Retry, cancellation, cut streams, prompt caching and reasoning round-trips, all
against the loopback server (no SDK is mocked)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from adapters_kit import WEATHER, adapter, ask
from replay_server import Reply

from mika.model.base import TextDelta, ToolCallDelta, complete
from mika.model.errors import ModelError
from mika.model.errors import ModelErrorKind as K
from mika.model.messages import Message, ModelRequest, Thinking, ToolResult
from mika.model.retry import RetryPolicy
from mika.model.session import ModelSession

STREAMS = {
    "openai-chat": "openai_chat_completions_stream/openai-python__tool_call_stream_2024.sse",
    "openai-responses": "openai_responses_stream/simonw-llm__tool_use_stream.sse",
    "anthropic": "anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse",
    "gemini": "gemini_stream/simonw-llm-gemini__functionCall_json_array_stream.json",
}


async def call_with_policy(model, request, policy: RetryPolicy, waits: list[float]):
    """What the agent's ModelCaller does around a whole call: retry by the policy.
    Waits are recorded and slept at 1/100 scale to keep the test fast."""
    attempt = 0
    while True:
        try:
            return await complete(model, request)
        except ModelError as err:
            attempt += 1
            delay = policy.delay_for(err, attempt)
            if delay is None:
                raise
            waits.append(delay)
            await asyncio.sleep(delay / 100)


def _error(status: int, message: str = "try later", headers: dict | None = None) -> Reply:
    return Reply(json.dumps({"error": {"message": message}}).encode(), status=status, headers=headers or {})


async def test_retry_honours_retry_after_then_succeeds(server):
    server.queue(_error(429, headers={"Retry-After": "5"}), _error(503), Reply.recording(STREAMS["openai-chat"]))
    waits: list[float] = []
    response = await call_with_policy(adapter("openai-chat", server.url), ask(), RetryPolicy(), waits)
    assert response.message.tool_calls[0].name == "get_weather"
    assert waits == [5.0, 2.0]
    assert len(server.requests) == 3


async def test_retry_gives_up_after_three(server):
    server.queue(*[_error(500) for _ in range(5)])
    waits: list[float] = []
    with pytest.raises(ModelError) as info:
        await call_with_policy(adapter("anthropic", server.url), ask(), RetryPolicy(), waits)
    assert info.value.kind is K.SERVER
    assert waits == [1.0, 2.0, 4.0] and len(server.requests) == 4


async def test_total_wait_cap_stops_retrying(server):
    server.queue(*[_error(429, headers={"Retry-After": "3"}) for _ in range(4)])
    waits: list[float] = []
    with pytest.raises(ModelError):
        await call_with_policy(adapter("gemini", server.url), ask(), RetryPolicy(total_wait_cap=4.0), waits)
    assert waits == [3.0] and len(server.requests) == 2


@pytest.mark.parametrize("status", [401, 400, 404])
async def test_never_retried(server, status):
    server.queue(_error(status, "no"), Reply.recording(STREAMS["openai-chat"]))
    with pytest.raises(ModelError):
        await call_with_policy(adapter("openai-chat", server.url), ask(), RetryPolicy(), [])
    assert len(server.requests) == 1


@pytest.mark.parametrize("kind", list(STREAMS))
async def test_cancel_mid_stream_closes_the_request(server, kind):
    server.queue(Reply.recording(STREAMS[kind], delay=0.4))
    model = adapter(kind, server.url)
    first = asyncio.Event()

    async def consume():
        async for _ in model.stream(ask()):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 5)
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - cancelled_at < 0.5
    # The server sees the connection go away well before its stream would have ended.
    deadline = time.monotonic() + 2
    while not server.disconnects and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert server.disconnects and server.disconnects[0] - cancelled_at < 1.0


@pytest.mark.parametrize("kind", list(STREAMS))
async def test_connection_dropped_mid_stream_is_incomplete(server, kind):
    server.queue(Reply.recording(STREAMS[kind], cut_after=2))
    with pytest.raises(ModelError) as info:
        await complete(adapter(kind, server.url), ask())
    assert info.value.kind is K.STREAM_INCOMPLETE and info.value.retryable


@pytest.mark.parametrize("kind", list(STREAMS))
async def test_clean_close_before_the_end_is_incomplete(server, kind):
    reply = Reply.recording(STREAMS[kind])
    # Keep only the first pieces but end the HTTP body properly: no finish marker arrives.
    # (The Gemini array's second element already holds its finishReason.)
    reply.body = b"".join(reply.pieces()[: 1 if kind == "gemini" else 2])
    server.queue(reply)
    with pytest.raises(ModelError) as info:
        await complete(adapter(kind, server.url), ask())
    assert info.value.kind is K.STREAM_INCOMPLETE


def _second_turn(first):
    call = first.message.tool_calls[0]
    return (ask().messages[0], first.message, Message("user", (ToolResult(call.id, call.name, "18°C, clear"),)))


async def test_anthropic_second_request_carries_cache_breakpoints(server):
    server.queue(Reply.recording(STREAMS["anthropic"]), Reply.recording(STREAMS["anthropic"]))
    model = adapter("anthropic", server.url)
    first = await complete(model, ask(cache_marks=(0,)))
    await complete(model, ModelRequest("You are a test.", _second_turn(first), tools=(WEATHER,), cache_marks=(0,)))
    body = server.requests[1].json()
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    messages = body["messages"]
    assert messages[0]["content"][-1]["cache_control"] == {"type": "ephemeral"}  # the opening context
    assert messages[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}  # newest: next call reads it
    marks = json.dumps(body).count('"cache_control"')
    assert 2 <= marks <= 4
    # The tool result answers the call by id, first in its user turn.
    assert messages[2]["content"][0]["type"] == "tool_result"
    assert messages[2]["content"][0]["tool_use_id"] == first.message.tool_calls[0].id


@pytest.mark.parametrize(("kind", "array"), [("openai-chat", b'"messages":'), ("openai-responses", b'"input":')])
async def test_openai_successive_requests_share_a_byte_identical_prefix(server, kind, array):
    server.queue(Reply.recording(STREAMS[kind]), Reply.recording(STREAMS[kind]))
    model = adapter(kind, server.url)
    first = await complete(model, ask())
    await complete(model, ModelRequest("You are a test.", _second_turn(first), tools=(WEATHER,)))
    one, two = server.requests[0].body, server.requests[1].body
    start = one.index(array) + len(array)
    _, end = json.JSONDecoder().raw_decode(one.decode(), start)
    prefix = one[: end - 1]  # everything up to the closing bracket of the history
    assert len(prefix) > 40 and two.startswith(prefix)


def _chat_sse(*chunks: dict) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


# Reasoning deltas as DeepSeek/Kimi-style servers send them (no real recording has them).
REASONING_STREAM = _chat_sse(
    {"choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": "The user wants "}}]},
    {"choices": [{"index": 0, "delta": {"reasoning_content": "weather."}}]},
    {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":'},
                        }
                    ]
                },
            }
        ]
    },
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}}]},
    {
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 8}},
    },
)


async def test_chat_reasoning_returns_in_its_field_to_the_same_address_only(server):
    server.queue(Reply(REASONING_STREAM, content_type="text/event-stream"))
    model = adapter("openai-chat", server.url)
    first = await complete(model, ask())
    assert first.usage.cached_input_tokens == 8
    thinking = [p for p in first.message.parts if isinstance(p, Thinking)]
    assert thinking[0].text == "The user wants weather." and thinking[0].field == "reasoning_content"
    for _ in range(3):
        server.queue(Reply(REASONING_STREAM, content_type="text/event-stream"))
    history = _second_turn(first)
    await complete(model, ModelRequest("s", history, tools=(WEATHER,)))
    assistant = server.requests[1].json()["messages"][2]
    assert assistant["reasoning_content"] == "The user wants weather."
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"city":"Paris"}'
    await complete(adapter("openai-chat", server.url, model="other"), ModelRequest("s", history, tools=(WEATHER,)))
    assert "reasoning_content" not in server.requests[2].json()["messages"][2]
    # A side call without tools sends no reasoning back.
    await complete(model, ModelRequest("s", history))
    assert "reasoning_content" not in server.requests[3].json()["messages"][2]


def _anthropic_sse(*events: dict) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


THINKING_STREAM = _anthropic_sse(
    {
        "type": "message_start",
        "message": {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "usage": {"input_tokens": 20, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Need the tool."}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM"}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '{"city": "Paris"}'},
    },
    {"type": "content_block_stop", "index": 1},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}},
    {"type": "message_stop"},
)


async def test_anthropic_signed_thinking_round_trips(server):
    for _ in range(3):
        server.queue(Reply(THINKING_STREAM, content_type="text/event-stream"))
    model = adapter("anthropic", server.url)
    first = await complete(model, ask())
    thinking = next(p for p in first.message.parts if isinstance(p, Thinking))
    assert (thinking.text, thinking.signature, thinking.field) == ("Need the tool.", "EqQBCgIYAhIM", "thinking")
    history = _second_turn(first)
    await complete(model, ModelRequest("s", history, tools=(WEATHER,)))
    blocks = server.requests[1].json()["messages"][1]["content"]
    assert blocks[0] == {"type": "thinking", "thinking": "Need the tool.", "signature": "EqQBCgIYAhIM"}
    assert blocks[1]["type"] == "tool_use" and blocks[1]["input"] == {"city": "Paris"}
    await complete(adapter("anthropic", server.url, model="claude-other"), ModelRequest("s", history, tools=(WEATHER,)))
    assert [b["type"] for b in server.requests[2].json()["messages"][1]["content"]] == ["tool_use"]


@pytest.mark.parametrize("kind", list(STREAMS))
async def test_session_header_is_the_conversation_uuid(server, kind):
    for _ in range(3):
        server.queue(Reply.recording(STREAMS[kind]))
    model = adapter(kind, server.url, session_header="x-opencode-session")
    await complete(model, ask(conversation_id="conv-1"))
    await complete(model, ask(conversation_id="conv-1"))
    await complete(model, ask())
    values = [r.headers.get("x-opencode-session") for r in server.requests]
    assert values[0] == values[1] == ModelSession.of("conv-1").value != "conv-1"
    assert values[2] and values[2] != values[0]
    assert all(r.headers["user-agent"].startswith("Mika/") for r in server.requests)


async def test_images_go_as_the_protocol_wants_and_placeholder_without_vision(server):
    from mika.model.messages import Image

    png = b"\x89PNG\r\n\x1a\nfake"
    request = ModelRequest("s", (Message.user("look", Image(png)),))
    server.queue(Reply.recording(STREAMS["openai-chat"]), Reply.recording(STREAMS["openai-chat"]))
    await complete(adapter("openai-chat", server.url, supports_images=True), request)
    await complete(adapter("openai-chat", server.url, supports_images=False), request)
    seen = server.requests[0].json()["messages"][1]["content"]
    assert seen[1]["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgpmYWtl")
    blind = server.requests[1].json()["messages"][1]["content"]
    assert blind[1]["type"] == "text" and "cannot see images" in blind[1]["text"]


async def test_streamed_tool_arguments_assemble(server):
    server.queue(Reply.recording(STREAMS["openai-responses"]))
    events = [e async for e in adapter("openai-responses", server.url).stream(ask())]
    pieces = "".join(e.arguments_delta for e in events if isinstance(e, ToolCallDelta))
    assert pieces == '{"a":1231,"b":2331}'
    assert not [e for e in events if isinstance(e, TextDelta)]


# A server whose `content` is an array of blocks, thinking first (shape from the seed; no
# real recording has it).
BLOCKS_STREAM = _chat_sse(
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": [{"type": "thinking", "thinking": "Hmm."}]}}]},
    {"choices": [{"index": 0, "delta": {"content": [{"type": "text", "text": "Checking."}]}}]},
    {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": "{}"},
                        }
                    ]
                },
            }
        ]
    },
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
)


async def test_chat_thinking_blocks_go_back_as_blocks(server):
    server.queue(
        Reply(BLOCKS_STREAM, content_type="text/event-stream"), Reply(BLOCKS_STREAM, content_type="text/event-stream")
    )
    model = adapter("openai-chat", server.url)
    first = await complete(model, ask())
    assert first.message.text == "Checking." and first.usage.reported is False
    await complete(model, ModelRequest("s", _second_turn(first), tools=(WEATHER,)))
    assistant = server.requests[1].json()["messages"][2]
    assert assistant["content"] == [{"type": "thinking", "thinking": "Hmm."}, {"type": "text", "text": "Checking."}]


async def test_responses_drops_include_when_the_server_refuses_it(server):
    refusal = {
        "error": {
            "message": "Unsupported parameter: 'include'.",
            "type": "invalid_request_error",
            "param": "include",
            "code": "unsupported_parameter",
        }
    }
    server.queue(
        Reply(json.dumps(refusal).encode(), status=400),
        Reply.recording(STREAMS["openai-responses"]),
        Reply.recording(STREAMS["openai-responses"]),
    )
    model = adapter("openai-responses", server.url)
    response = await complete(model, ask())
    assert response.message.tool_calls[0].name == "multiply"
    assert "include" in server.requests[0].json() and "include" not in server.requests[1].json()
    await complete(model, ask())
    assert "include" not in server.requests[2].json()  # remembered for the rest of the run


async def test_responses_final_without_output_falls_back_to_what_streamed(server):
    from replay_server import FIXTURES

    raw = (FIXTURES / STREAMS["openai-responses"]).read_text()
    frames = raw.split("\n\n")
    for i, frame in enumerate(frames):
        if frame.startswith("event: response.completed"):
            head, data = frame.split("\ndata: ", 1)
            event = json.loads(data)
            event["response"]["output"] = []
            frames[i] = head + "\ndata: " + json.dumps(event)
    server.queue(Reply("\n\n".join(frames).encode(), content_type="text/event-stream"))
    response = await complete(adapter("openai-responses", server.url), ask())
    assert [(c.name, c.arguments) for c in response.message.tool_calls] == [("multiply", {"a": 1231, "b": 2331})]
    assert response.usage.input_tokens == 58
