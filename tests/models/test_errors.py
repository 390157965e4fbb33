"""Real error bodies served with their real status through each adapter map to the right
ModelError kind, with the server's own words kept for the user."""

from __future__ import annotations

import pytest
from adapters_kit import adapter, ask
from replay_server import FIXTURES, Reply

from mika.model.base import complete
from mika.model.classify import classify_http, retry_after_seconds
from mika.model.errors import ModelError
from mika.model.errors import ModelErrorKind as K

ERROR_CASES = [
    (
        "errors/anthropic__429_rate_limit_error.json",
        "anthropic",
        None,
        K.RATE_LIMITED,
        "exceed your organization's rate limit",
    ),
    (
        "errors/anthropic__400_invalid_request_error_tool_result_mismatch.json",
        "anthropic",
        None,
        K.BAD_REQUEST,
        "unexpected `tool_use_id` found in `tool_result` blocks",
    ),
    # Recorded from a log without a sidecar; Anthropic sends it with HTTP 529.
    ("errors/anthropic__overloaded_error__from_aider_log.json", "anthropic", 529, K.OVERLOADED, "Overloaded"),
    (
        "errors/gemini__404_model_not_found.json",
        "gemini",
        None,
        K.MODEL_NOT_FOUND,
        "is not found for API version v1beta",
    ),
    (
        "errors/openai_chat__400_unsupported_system_role.json",
        "openai-chat",
        None,
        K.BAD_REQUEST,
        "does not support 'system' with this model",
    ),
    (
        "errors/openrouter__429_rate_limited.json",
        "openai-chat",
        None,
        K.RATE_LIMITED,
        "temporarily rate-limited upstream",
    ),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c[0].split("/")[1] for c in ERROR_CASES])
async def test_error_body_maps_to_kind(server, case):
    name, kind, status, expected, words = case
    reply = Reply.recording(name)
    if status is not None:
        reply.status = status
    server.queue(reply)
    with pytest.raises(ModelError) as info:
        await complete(adapter(kind, server.url), ask())
    err = info.value
    assert err.kind is expected
    assert words in err.detail
    assert err.status == reply.status
    assert err.sentence in err.user_message()


def test_every_error_recording_is_covered():
    names = {
        str(p.relative_to(FIXTURES)) for p in (FIXTURES / "errors").glob("*.json") if not p.name.endswith(".meta.json")
    }
    assert names == {c[0] for c in ERROR_CASES}


async def test_overloaded_error_inside_a_stream(server):
    """As litellm saw it: the stream opens with 200, then an `error` event arrives."""
    body = (FIXTURES / "errors/anthropic__overloaded_error__from_aider_log.json").read_bytes().strip()
    server.queue(Reply(b"event: error\ndata: " + body + b"\n\n", content_type="text/event-stream"))
    with pytest.raises(ModelError) as info:
        await complete(adapter("anthropic", server.url), ask())
    assert info.value.kind is K.OVERLOADED and info.value.retryable


async def test_401_is_always_the_key(server):
    server.queue(
        Reply(b'{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}', status=401)
    )
    with pytest.raises(ModelError) as info:
        await complete(adapter("openai-responses", server.url), ask())
    assert info.value.kind is K.AUTH and not info.value.retryable


async def test_retry_after_header_is_read(server):
    server.queue(
        Reply(
            (FIXTURES / "errors/openrouter__429_rate_limited.json").read_bytes(),
            status=429,
            headers={"Retry-After": "7"},
        )
    )
    with pytest.raises(ModelError) as info:
        await complete(adapter("openai-chat", server.url), ask())
    assert info.value.retry_after == 7.0


async def test_nothing_listening_is_a_network_error():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for kind in ("openai-chat", "anthropic", "gemini"):
        with pytest.raises(ModelError) as info:
            await complete(adapter(kind, f"http://127.0.0.1:{port}"), ask())
        assert info.value.kind is K.NETWORK, kind


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        (400, "This model does not support tools", K.TOOLS_UNSUPPORTED),
        (404, "registry.ollama.ai/library/gemma does not support tools", K.TOOLS_UNSUPPORTED),
        (403, "Model.AccessDenied: the model is not activated", K.MODEL_UNAVAILABLE),
        (400, "您的账户未开通该模型", K.MODEL_UNAVAILABLE),
        (403, "用户无权限访问该模型", K.MODEL_UNAVAILABLE),
        (400, "The model `gpt-9` does not exist (model_not_found)", K.MODEL_NOT_FOUND),
        (400, "Model Not Exist", K.MODEL_NOT_FOUND),
        (400, "This model's maximum context length is 128000 tokens", K.CONTEXT_OVERFLOW),
        (400, "prompt is too long: 210000 tokens > 200000 maximum", K.CONTEXT_OVERFLOW),
        (404, "Not Found", K.MODEL_NOT_FOUND),
        (401, "does not support tools", K.AUTH),
        (500, "boom", K.SERVER),
        (502, "bad gateway", K.SERVER),
        (503, "upstream unavailable", K.OVERLOADED),
        (400, "temperature must be <= 2", K.BAD_REQUEST),
    ],
)
def test_phrases_and_statuses(status, message, expected):
    err = classify_http(status, {"error": {"message": message}})
    assert err.kind is expected
    assert message in err.detail


def test_retry_after_forms():
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_seconds({"Retry-After": "3"}) == 3.0
    assert retry_after_seconds({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412470) == 10.0
    assert retry_after_seconds({"Retry-After": "soon"}) is None
    assert retry_after_seconds({}) is None
