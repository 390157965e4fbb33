"""Shared bits for adapter tests: build an adapter pointed at the replay server."""

from __future__ import annotations

from mika.model.adapters import build_adapter
from mika.model.adapters.endpoint import Endpoint
from mika.model.messages import Message, ModelRequest, ToolSpec

WEATHER = ToolSpec(
    "get_weather",
    "Current weather for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def adapter(kind: str, url: str, *, model: str = "test-model", streaming: bool = True, **kw):
    base = {"openai-chat": url + "/v1", "openai-responses": url + "/v1", "anthropic": url, "gemini": url + "/v1beta"}[
        kind
    ]
    return build_adapter(kind, Endpoint("test", model, base, api_key="sk-test", streaming=streaming, **kw))


def ask(text: str = "What is the weather in Paris?", **kw) -> ModelRequest:
    return ModelRequest("You are a test.", (Message.user(text),), tools=(WEATHER,), **kw)
