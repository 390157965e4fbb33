"""Every real provider recording (bundled in tests/fixtures/real/llm_api), replayed by a loopback server through the
adapter for its protocol: the exact text, tool calls and usage it contains come out."""

from __future__ import annotations

from pathlib import Path

import pytest
from adapters_kit import adapter, ask
from replay_server import FIXTURES, Reply

from mika.model.base import Done, TextDelta, ToolCallDelta, complete
from mika.model.messages import Thinking

# file, protocol, streaming, text, [(tool, arguments)], (input, output, cached, cache_write), path
CASES = [
    (
        "openai_chat_completions_stream/openai-python__tool_call_stream_2024.sse",
        "openai-chat",
        True,
        "",
        [("get_weather", {"city": "New York City"})],
        (44, 16, 0, 0),
        "/v1/chat/completions",
    ),
    (
        "openai_chat_completions_stream/pydantic-ai__get_capital_tool_call_with_usage_chunk.sse",
        "openai-chat",
        True,
        "",
        [("get_capital", {"country": "UK"})],
        (53, 15, 0, 0),
        "/v1/chat/completions",
    ),
    (
        "openai_chat_completions_stream/simonw-llm__tool_call_variant_a.sse",
        "openai-chat",
        True,
        "",
        [("llm_version", {})],
        (57, 17, 0, 0),
        "/v1/chat/completions",
    ),
    (
        "openai_responses_stream/simonw-llm__tool_use_stream.sse",
        "openai-responses",
        True,
        "",
        [("multiply", {"a": 1231, "b": 2331})],
        (58, 23, 0, 0),
        "/v1/responses",
    ),
    (
        "openai_responses_stream/pydantic-ai__function_call_stream.sse",
        "openai-responses",
        True,
        "",
        [("get_capital", {"country": "France"})],
        (255, 16, 0, 0),
        "/v1/responses",
    ),
    (
        "openai_responses_stream/pydantic-ai__function_call_stream_usage_details.sse",
        "openai-responses",
        True,
        "",
        [("final_result", {"result": 6666})],
        (53, 469, 0, 0),
        "/v1/responses",
    ),
    (
        "anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse",
        "anthropic",
        True,
        "I'll check the current weather in Paris for you.",
        [("get_weather", {"location": "Paris"})],
        (377, 65, 0, 0),
        "/v1/messages",
    ),
    # Compaction ran first (100 in + 55096 cache read, 83 out), then the answer (181 in, 8 out).
    (
        "anthropic_messages_stream/pydantic-ai__cache_read_55096_tokens_stream.sse",
        "anthropic",
        True,
        "Hello! 👋",
        [],
        (100 + 55096 + 181, 83 + 8, 55096, 0),
        "/v1/messages",
    ),
    (
        "anthropic_messages_stream/simonw-llm-anthropic__tool_use.sse",
        "anthropic",
        True,
        "",
        [("pelican_name_generator", {}), ("pelican_name_generator", {})],
        (542, 62, 0, 0),
        "/v1/messages",
    ),
    (
        "gemini_stream/pydantic-ai__functionCall_thought_signature_alt_sse.sse",
        "gemini",
        True,
        "",
        [("get_country", {})],
        (29, 10 + 202, 0, 0),
        "/v1beta/models/test-model:streamGenerateContent?alt=sse",
    ),
    (
        "gemini_stream/simonw-llm-gemini__functionCall_json_array_stream.json",
        "gemini",
        True,
        "",
        [("pelican_name_generator", {})],
        (32, 12 + 42, 0, 0),
        "/v1beta/models/test-model:streamGenerateContent?alt=sse",
    ),
    (
        "non_streaming/openai_chat__tool_calls__simonw-llm.json",
        "openai-chat",
        False,
        "",
        [("lookup_population", {"country": "Crumpet"})],
        (92, 17, 0, 0),
        "/v1/chat/completions",
    ),
    (
        "non_streaming/openai_responses__function_call__simonw-llm.json",
        "openai-responses",
        False,
        "",
        [("multiply", {"a": 1231, "b": 2331})],
        (58, 23, 0, 0),
        "/v1/responses",
    ),
    (
        "non_streaming/anthropic__tool_use__anthropic-sdk.json",
        "anthropic",
        False,
        "I'll check the weather for all three cities in Celsius simultaneously.",
        [("get_weather", {"location": "San Francisco, CA", "units": "c"})],
        (3182, 237, 0, 0),
        "/v1/messages",
    ),
    (
        "non_streaming/anthropic__cache_read_1111_tokens__pydantic-ai.json",
        "anthropic",
        False,
        "Python is a beginner-friendly, versatile programming language widely used for web development, "
        "data science, machine learning, automation, and scientific computing.",
        [],
        (3 + 1111 + 418, 33, 1111, 418),
        "/v1/messages",
    ),
    (
        "non_streaming/gemini_generateContent__functionCall__pydantic-ai.json",
        "gemini",
        False,
        "",
        [("get_user_country", {})],
        (33, 5, 0, 0),
        "/v1beta/models/test-model:generateContent",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[Path(c[0]).stem for c in CASES])
async def test_recording_replays_through_its_adapter(server, case):
    name, kind, streaming, text, calls, usage, path = case
    server.queue(Reply.recording(name))
    model = adapter(kind, server.url, streaming=streaming)
    events = [e async for e in model.stream(ask())]
    done = events[-1]
    assert isinstance(done, Done)
    response = done.response
    assert response.message.text == text
    assert [(c.name, c.arguments) for c in response.message.tool_calls] == calls
    u = response.usage
    assert (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.cache_write_tokens) == usage
    assert u.reported
    assert response.stop_reason == ("tool_calls" if calls else "end")
    # Streamed deltas add up to the same reply the Done carries.
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == text
    if streaming and calls:
        assert {e.name for e in events if isinstance(e, ToolCallDelta) and e.name} == {c[0] for c in calls}
    assert server.requests[0].path == path
    assert server.requests[0].headers["user-agent"].startswith("Mika/")


def test_every_recording_is_covered():
    bodies = {
        str(p.relative_to(FIXTURES))
        for p in FIXTURES.rglob("*")
        if p.is_file() and not p.name.endswith(".meta.json") and p.parent.name != "errors"
    }
    assert bodies == {c[0] for c in CASES}


async def test_gemini_thought_signature_round_trips_to_the_same_address_only(server):
    server.queue(Reply.recording("gemini_stream/pydantic-ai__functionCall_thought_signature_alt_sse.sse"))
    model = adapter("gemini", server.url)
    first = await complete(model, ask())
    call = first.message.tool_calls[0]
    assert call.provider_data["thoughtSignature"].startswith("EpwICpkIAXLI2nxl")
    from mika.model.messages import Message, ModelRequest, ToolResult

    history = (ask().messages[0], first.message, Message("user", (ToolResult(call.id, call.name, "France"),)))
    server.queue(
        Reply.recording("non_streaming/gemini_generateContent__functionCall__pydantic-ai.json"),
        Reply.recording("non_streaming/gemini_generateContent__functionCall__pydantic-ai.json"),
    )
    same = adapter("gemini", server.url, streaming=False)
    await complete(same, ModelRequest("s", history, tools=ask().tools))
    sent = server.requests[1].json()["contents"][1]["parts"][0]
    assert sent["thoughtSignature"] == call.provider_data["thoughtSignature"]
    other = adapter("gemini", server.url, streaming=False, model="another-model")
    await complete(other, ModelRequest("s", history, tools=ask().tools))
    assert "thoughtSignature" not in server.requests[2].json()["contents"][1]["parts"][0]
    # The answer to the call travels as a functionResponse naming the tool.
    assert server.requests[1].json()["contents"][2]["parts"][0]["functionResponse"]["name"] == "get_country"


async def test_gemini_thought_text_is_kept_as_thinking(server):
    server.queue(Reply.recording("gemini_stream/simonw-llm-gemini__functionCall_json_array_stream.json"))
    response = await complete(adapter("gemini", server.url), ask())
    thinking = [p for p in response.message.parts if isinstance(p, Thinking)]
    assert thinking and thinking[0].text.startswith("**Generating Pelican Names**")
    assert thinking[0].field == "thought"


async def test_responses_encrypted_reasoning_goes_back_before_the_call_to_the_same_address(server):
    server.queue(Reply.recording("openai_responses_stream/pydantic-ai__function_call_stream_usage_details.sse"))
    model = adapter("openai-responses", server.url)
    first = await complete(model, ask())
    thinking = [p for p in first.message.parts if isinstance(p, Thinking)]
    assert thinking[0].field == "encrypted" and thinking[0].data.startswith("gAAAAABoyXvy")
    call = first.message.tool_calls[0]
    from mika.model.messages import Message, ModelRequest, ToolResult

    history = (ask().messages[0], first.message, Message("user", (ToolResult(call.id, call.name, "6666"),)))
    server.queue(
        Reply.recording("openai_responses_stream/simonw-llm__tool_use_stream.sse"),
        Reply.recording("openai_responses_stream/simonw-llm__tool_use_stream.sse"),
    )
    await complete(model, ModelRequest("s", history, tools=ask().tools))
    body = server.requests[1].json()
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    kinds = [item.get("type", item.get("role")) for item in body["input"]]
    assert kinds == ["user", "reasoning", "function_call", "function_call_output"]
    assert body["input"][1]["encrypted_content"] == thinking[0].data and "id" not in body["input"][1]
    assert set(body) == {"model", "instructions", "input", "tools", "store", "stream", "include"}
    other = adapter("openai-responses", server.url, model="gpt-other")
    await complete(other, ModelRequest("s", history, tools=ask().tools))
    assert "reasoning" not in [i.get("type") for i in server.requests[2].json()["input"]]
