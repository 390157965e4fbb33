"""Listing models and probing them, against the loopback server.

No real listing bodies were recorded, so the listings here are written in each
provider's documented shape; the probe replays real recorded replies."""

from __future__ import annotations

import json

import pytest
from adapters_kit import adapter
from replay_server import Reply

from mika.model.catalog import CatalogError, ListedModel, ModelCatalog, probe_candidates
from mika.model.errors import ModelErrorKind as K
from mika.model.probe import NO_TOOL_CALL, TOOL_CALLED, probe


def _json(value, status=200) -> Reply:
    return Reply(json.dumps(value).encode(), status=status)


async def test_openai_listing_with_api_tables(server):
    server.queue(
        _json(
            {
                "object": "list",
                "data": [
                    {
                        "id": "kimi-k2",
                        "api": {
                            "chat-completions": {
                                "base_url": "https://opencode.ai/zen/go/v1",
                                "compatibility": {"reasoning_field": "reasoning_content"},
                            }
                        },
                        "capabilities": {"tools": {"supported": True}, "reasoning": {"supported": True}},
                        "limit": {"context": 262144},
                        "modalities": {"input": ["text", "image/png"]},
                    },
                    {
                        "id": "claude-x",
                        "api": {"messages": {"base_url": "https://opencode.ai/inference/go/anthropic/v1"}},
                    },
                    {
                        "id": "gpt-5",
                        "api": {"realtime": {"base_url": "wss://x"}, "responses": {"base_url": "https://o/v1"}},
                    },
                    {"id": "voice-1", "api": {"realtime": {"base_url": "wss://x"}}},
                    {"id": "text-embedding-3-small", "object": "model"},
                ],
            }
        )
    )
    catalog = ModelCatalog()
    models = await catalog.list("openai-chat", server.url + "/v1", "sk", session_header="x-opencode-session")
    await catalog.aclose()
    seen = server.requests[0]
    assert seen.path == "/v1/models" and seen.headers["authorization"] == "Bearer sk"
    assert seen.headers["user-agent"].startswith("Mika/") and seen.headers["x-opencode-session"]
    by = {m.name: m for m in models}
    k = by["kimi-k2"]
    assert (k.tools, k.images, k.context_window, k.reasoning) == (True, True, 262144, True)
    assert (k.endpoint.kind, k.endpoint.reasoning_field) == ("openai-chat", "reasoning_content")
    assert by["claude-x"].endpoint.kind == "anthropic"
    assert by["claude-x"].endpoint.base_url == "https://opencode.ai/inference/go/anthropic"
    assert by["gpt-5"].endpoint.kind == "openai-responses"
    assert not by["voice-1"].usable and by["voice-1"].unsupported_apis == ("realtime",)
    assert not by["text-embedding-3-small"].looks_like_chat


async def test_anthropic_listing_pages(server):
    server.queue(
        _json(
            {
                "data": [{"id": "claude-a", "display_name": "Claude A", "type": "model"}],
                "has_more": True,
                "last_id": "claude-a",
            }
        ),
        _json({"data": [{"id": "claude-b", "display_name": "Claude B", "type": "model"}], "has_more": False}),
    )
    catalog = ModelCatalog()
    models = await catalog.list("anthropic", server.url + "/v1", "sk-ant")
    await catalog.aclose()
    assert [m.name for m in models] == ["claude-a", "claude-b"]
    assert server.requests[0].path == "/v1/models?limit=1000"
    assert server.requests[1].path == "/v1/models?limit=1000&after_id=claude-a"
    assert server.requests[0].headers["x-api-key"] == "sk-ant"
    assert server.requests[0].headers["anthropic-version"] == "2023-06-01"


async def test_gemini_listing_pages(server):
    server.queue(
        _json(
            {
                "models": [
                    {
                        "name": "models/gemini-2.5-flash",
                        "displayName": "Gemini 2.5 Flash",
                        "inputTokenLimit": 1048576,
                        "supportedGenerationMethods": ["generateContent"],
                        "thinking": True,
                    }
                ],
                "nextPageToken": "p2",
            }
        ),
        _json({"models": [{"name": "models/text-embedding-004", "supportedGenerationMethods": ["embedContent"]}]}),
    )
    catalog = ModelCatalog()
    models = await catalog.list("gemini", server.url + "/v1beta", "g-key")
    await catalog.aclose()
    assert [m.name for m in models] == ["gemini-2.5-flash", "text-embedding-004"]
    assert models[0].context_window == 1048576 and models[0].reasoning is True and models[0].looks_like_chat
    assert models[1].chat is False
    assert server.requests[1].path == "/v1beta/models?pageSize=1000&pageToken=p2"
    assert server.requests[0].headers["x-goog-api-key"] == "g-key"


@pytest.mark.parametrize(
    ("status", "kind"), [(404, "no_list"), (405, "no_list"), (501, "no_list"), (401, "auth"), (500, "server")]
)
async def test_listing_failures_are_classified(server, status, kind):
    server.queue(_json({"error": {"message": "nope"}}, status))
    catalog = ModelCatalog()
    with pytest.raises(CatalogError) as info:
        await catalog.list("openai-chat", server.url + "/v1", None)
    await catalog.aclose()
    assert info.value.kind == kind and info.value.user_message()


def test_candidates_follow_the_seed_order():
    models = [
        ListedModel("text-embedding-v3"),
        ListedModel("deepseek-r1-distill", tools=False),
        ListedModel("llama-3-70b", tools=True),
        ListedModel("mistral-small"),
        ListedModel("Qwen/Qwen3-32B"),
        ListedModel("qwen-tts"),
    ]
    assert probe_candidates(models, ("qwen",)) == ["Qwen/Qwen3-32B", "llama-3-70b", "mistral-small"]
    assert probe_candidates([ListedModel("only-embed", chat=False)]) == ["only-embed"]


ANTHROPIC_TOOL = "anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse"
ANTHROPIC_TEXT = "anthropic_messages_stream/pydantic-ai__cache_read_55096_tokens_stream.sse"


async def test_probe_passes_on_a_tool_call_and_sends_get_time(server):
    server.queue(Reply.recording(ANTHROPIC_TOOL))
    result = await probe(lambda name: adapter("anthropic", server.url, model=name), ["claude-a", "claude-b"])
    assert [a.outcome for a in result.attempts] == [TOOL_CALLED]
    attempt = result.passed
    assert attempt.tool_calls == (("get_weather", {"location": "Paris"}),)
    assert attempt.usage.input_tokens == 377 and attempt.latency_ms >= 0
    body = server.requests[0].json()
    assert [t["name"] for t in body["tools"]] == ["get_time"]
    assert body["tools"][0]["input_schema"] == {"type": "object", "properties": {}}
    assert body["max_tokens"] == 1024
    out = attempt.as_json()
    assert set(out) >= {"ok", "outcome", "text", "tool_calls", "usage", "latency_ms", "error"}
    assert out["usage"] == {"input": 377, "output": 65, "cached": 0}


async def test_probe_moves_on_after_text_only_and_model_problems(server):
    server.queue(
        Reply.recording(ANTHROPIC_TEXT),
        Reply(b'{"type":"error","error":{"type":"not_found_error","message":"model: claude-b"}}', status=404),
        Reply.recording(ANTHROPIC_TOOL),
        Reply.recording(ANTHROPIC_TOOL),
    )
    result = await probe(lambda n: adapter("anthropic", server.url, model=n), ["a", "b", "c", "d"])
    assert [a.outcome for a in result.attempts] == [NO_TOOL_CALL, "error", TOOL_CALLED]
    assert result.attempts[0].text == "Hello! 👋"
    assert result.attempts[1].error.kind is K.MODEL_NOT_FOUND
    assert result.passed.model == "c" and len(server.requests) == 3


async def test_probe_stops_at_a_key_problem_and_keeps_the_servers_words(server):
    server.queue(
        Reply(b'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}', status=401),
        Reply.recording(ANTHROPIC_TOOL),
    )
    result = await probe(lambda n: adapter("anthropic", server.url, model=n), ["a", "b"])
    assert len(result.attempts) == 1 and result.passed is None
    assert result.last.error.kind is K.AUTH and result.last.error.detail == "invalid x-api-key"


async def test_probe_gives_up_after_its_time_limit(server):
    server.queue(Reply.recording(ANTHROPIC_TOOL, delay=1.0))
    result = await probe(lambda n: adapter("anthropic", server.url, model=n), ["slow"], timeout=0.5)
    # The probe's own limit, told as such: not a network error, and it says what to do.
    err = result.last.error
    assert err.kind is K.PROBE_TIMEOUT and err.seconds == 0.5 and not err.retryable
    assert err.user_message("en").startswith("The probe took longer than 0.5 s")
    assert "--timeout" in err.user_message("en") and "network" not in err.user_message("en").lower()
    assert "0.5 秒" in err.user_message("zh") and "网络" not in err.user_message("zh")
    assert result.last.as_json()["outcome"] == "probe_timeout"
    # The server did start answering, slowly: the limit, not the connection, ended it.
    assert server.reply_started
