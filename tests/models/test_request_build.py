"""The prepared request body (messages converted once, sent as bytes through the SDK's
`client.post`) is byte for byte what the old path sent (body rebuilt every time and handed
to the SDK's `create`), for every adapter, streamed and not, over every recorded reply
served on loopback; and the reply read from it is the same."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator

import pytest
from adapters_kit import adapter, ask
from long_history import as_sent, history, long_request
from replay_server import ReplayServer, Reply

from mika.model.adapters import build_adapter
from mika.model.adapters.wire_json import KEEP_UNUSED, IdentityMemo
from mika.model.base import complete
from mika.model.messages import Message, ModelRequest, Text, ToolCall, ToolResult

# kind, streaming, recording
RECORDINGS = [
    ("openai-chat", True, "openai_chat_completions_stream/openai-python__tool_call_stream_2024.sse"),
    ("openai-chat", True, "openai_chat_completions_stream/pydantic-ai__get_capital_tool_call_with_usage_chunk.sse"),
    ("openai-chat", False, "non_streaming/openai_chat__tool_calls__simonw-llm.json"),
    ("openai-responses", True, "openai_responses_stream/pydantic-ai__function_call_stream_usage_details.sse"),
    ("openai-responses", True, "openai_responses_stream/simonw-llm__tool_use_stream.sse"),
    ("openai-responses", False, "non_streaming/openai_responses__function_call__simonw-llm.json"),
    ("anthropic", True, "anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse"),
    ("anthropic", True, "anthropic_messages_stream/pydantic-ai__cache_read_55096_tokens_stream.sse"),
    ("anthropic", False, "non_streaming/anthropic__tool_use__anthropic-sdk.json"),
    ("gemini", True, "gemini_stream/pydantic-ai__functionCall_thought_signature_alt_sse.sse"),
    ("gemini", True, "gemini_stream/simonw-llm-gemini__functionCall_json_array_stream.json"),
    ("gemini", False, "non_streaming/gemini_generateContent__functionCall__pydantic-ai.json"),
]
KINDS = ["openai-chat", "openai-responses", "anthropic", "gemini"]
# What only a history with reasoning from this address carries: proof the comparison
# covers the replayed-reasoning branch of each builder.
REPLAYED = {
    "openai-chat": b'"reasoning_content":',
    "openai-responses": b'"encrypted_content":"enc-',
    "anthropic": b'"signature":"sig-',
    "gemini": b'"thoughtSignature":"ts-',
}


def _requests(origin: str) -> list[ModelRequest]:
    """Every shape the builders branch on: short and long histories, no system prompt, no
    tools (chat then sends no reasoning), a reply budget, several cache marks."""
    return [
        ask(),
        long_request(2, origin),
        long_request(41, origin),
        long_request(120, origin, max_output_tokens=512, cache_marks=(0, 3, 9, 20), conversation_id="conv-1"),
        dataclasses.replace(long_request(9, origin), system=""),
        dataclasses.replace(long_request(9, origin), tools=()),
        dataclasses.replace(long_request(9, origin), system="", tools=()),
        ModelRequest("", (Message.user("hi"),)),
    ]


def _adapter(kind: str, url: str, *, streaming: bool, legacy: bool, **kw):
    endpoint = adapter(kind, url, streaming=streaming, **kw).endpoint
    return build_adapter(kind, endpoint, legacy_request=legacy)


async def _both(kind: str, streaming: bool, name: str, **kw) -> tuple[list, list, list, list]:
    """What the old and the new path sent (path, headers, body) and read, for the same
    requests to the same server (so reasoning made there is sent back by both)."""
    with ReplayServer() as server:
        server.default = Reply.recording(name)
        old = _adapter(kind, server.url, streaming=streaming, legacy=True, **kw)
        new = _adapter(kind, server.url, streaming=streaming, legacy=False, **kw)
        requests = _requests(old.endpoint.origin)
        old_replies = [await complete(old, r) for r in requests]
        old_sent = [(s.path, s.headers, s.body) for s in server.requests]
        server.requests.clear()
        new_replies = [await complete(new, r) for r in requests]
        new_sent = [(s.path, s.headers, s.body) for s in server.requests]
        return old_sent, new_sent, old_replies, new_replies


# The OpenAI-style adapters' new path is our own HTTP client (mika.model.adapters.http_call):
# it sends the SDK's headers but for the ones the SDK describes itself with.
OWN_HTTP = {"openai-chat", "openai-responses"}


def _without_sdk_telemetry(kind: str, headers: dict[str, str]) -> dict[str, str]:
    if kind not in OWN_HTTP:
        return headers
    return {k: v for k, v in headers.items() if not k.startswith("x-stainless-")}


@pytest.mark.parametrize(("kind", "streaming", "name"), RECORDINGS)
@pytest.mark.parametrize("images", [True, False])
def test_bytes_sent_are_the_old_paths(kind: str, streaming: bool, name: str, images: bool) -> None:
    old_sent, new_sent, old_replies, new_replies = asyncio.run(_both(kind, streaming, name, supports_images=images))
    assert len(new_sent) == len(old_sent) == len(_requests("x"))
    for (old_path, old_headers, old_body), (new_path, new_headers, new_body) in zip(old_sent, new_sent, strict=True):
        assert new_path == old_path
        assert new_body == old_body
        assert new_headers == _without_sdk_telemetry(kind, old_headers)
    assert new_replies == old_replies
    long_body = new_sent[2][2]
    assert REPLAYED[kind] in long_body
    assert (b";base64," in long_body or b'"data":"iVBOR' in long_body) is images


async def _growing_run(kind: str, legacy: bool) -> list[bytes]:
    """A run as the loop makes it: the same message objects again each step plus the new
    ones (older screenshots rebuilt as equal text-line copies), a side call (judge) between steps, an old screen compressed to a placeholder (a
    new object at an old index) midway, and a last step without tools."""
    with ReplayServer() as server:
        server.default = Reply.recording({k: n for k, s, n in RECORDINGS if s}[kind])
        model = _adapter(kind, server.url, streaming=True, legacy=legacy, supports_images=True)
        messages = list(history(25, model.endpoint.origin))
        for n in range(1, len(messages) + 1, 2):
            if n == 13:
                old = messages[4].parts[0]
                assert isinstance(old, ToolResult)
                messages[4] = Message(
                    "user", (ToolResult(old.call_id, old.name, "[screen v2: see observation obs-2]"),)
                )
            tools = () if n >= len(messages) - 2 else long_request(1, "").tools
            await complete(model, as_sent(messages[:n], tools=tools))
            judge = Message("user", (Text(f"Did step {n} do what was asked?"),))
            await complete(model, ModelRequest("judge", (judge,), purpose="judge"))
        return [s.body for s in server.requests]


@pytest.mark.parametrize("kind", KINDS)
def test_a_growing_run_sends_the_old_bytes_at_every_step(kind: str) -> None:
    old = asyncio.run(_growing_run(kind, legacy=True))
    new = asyncio.run(_growing_run(kind, legacy=False))
    assert len(new) == len(old) == 26
    for step, (old_body, new_body) in enumerate(zip(old, new, strict=True)):
        assert new_body == old_body, f"request {step} differs"
    # The compressed screen went out as its placeholder, not as the cached listing.
    assert b"[screen v2: see observation obs-2]" in new[-2]


def _strict_json(body: bytes) -> object:
    def refuse(word: str) -> object:
        raise AssertionError(f"{word} is not JSON")

    return json.loads(body.decode("utf-8", "strict"), parse_constant=refuse)


@pytest.mark.parametrize("kind", KINDS)
def test_odd_values_a_model_sent_do_not_wedge_the_run(kind: str) -> None:
    """`json.loads` turns a model's "\\ud800" escape into a lone surrogate and its NaN and
    Infinity into floats; the history keeps them, and the old path then failed every
    later request (UTF-8 has no bytes for a lone surrogate, JSON no NaN). Now the request
    goes out as valid JSON: U+FFFD for the surrogate, null for the numbers."""
    raw = '{"element": NaN, "x": Infinity, "note": "\\udc80"}'
    odd = (
        Message.user("打开设置"),
        Message(
            "assistant",
            (
                Text(json.loads('"half \\ud800 of a pair"')),
                ToolCall("c1", "tap", json.loads(raw), raw_arguments=raw),
            ),
        ),
        Message("user", (ToolResult("c1", "tap", json.loads('"screen \\udfff"')),)),
    )

    async def run() -> tuple[bytes, object]:
        with ReplayServer() as server:
            server.default = Reply.recording({k: n for k, s, n in RECORDINGS if s}[kind])
            model = _adapter(kind, server.url, streaming=True, legacy=False)
            reply = await complete(model, ModelRequest("system", odd, tools=long_request(1, "").tools))
            return server.requests[-1].body, reply

    body, reply = asyncio.run(run())
    sent = _strict_json(body)
    assert reply is not None
    strings = list(_walk(sent, str))
    assert any("half \ufffd of a pair" in t for t in strings)
    assert any("screen \ufffd" in t for t in strings)
    if kind in ("anthropic", "gemini"):
        # These wires send the arguments as an object: the numbers went as null.
        assert {"element": None, "x": None, "note": "\ufffd"} in list(_walk(sent, dict))
    else:
        # These send the argument text as received, inside a JSON string.
        assert raw in strings


def _walk(value: object, kind: type) -> Iterator[object]:
    if isinstance(value, kind):
        yield value
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for child in children:
        yield from _walk(child, kind)


def test_the_memo_converts_once_forgets_what_requests_dropped_and_reuses_equal_copies() -> None:
    made: list[str] = []

    def make(message: Message) -> str:
        made.append(message.text)
        return message.text.upper()

    memo: IdentityMemo[Message, str] = IdentityMemo(make)
    kept, dropped = Message.user("kept"), Message.user("dropped")
    assert memo.get(kept, slot=0) == "KEPT"
    assert memo.get(dropped, slot=1) == "DROPPED"
    memo.next_request()
    assert memo.get(kept, slot=0) == "KEPT"
    # An equal copy at the same place (as an older screenshot's text line is, each request).
    copy = Message.user("kept")
    assert memo.get(copy, slot=0) == "KEPT"
    assert made == ["kept", "dropped"]
    # A different variant is another conversion.
    assert memo.get(copy, "other", slot=0) == "KEPT"
    # An equal message somewhere else is not taken for it.
    moved = Message.user("dropped")
    assert memo.get(moved, slot=5) == "DROPPED"
    assert made == ["kept", "dropped", "kept", "dropped"]
    memo.next_request()
    for _ in range(KEEP_UNUSED + 1):
        assert memo.get(kept, slot=0) == "KEPT"
        memo.next_request()
    # Only what recent requests still carried is held (with the object, so its id is not reused).
    assert len(memo) == 1
    assert made == ["kept", "dropped", "kept", "dropped"]
    assert memo.get(dropped, slot=1) == "DROPPED"
    assert len(made) == 5
