"""One adapter per wire protocol; `build_adapter` picks by the config's `kind`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mika.model.adapters.endpoint import Endpoint

if TYPE_CHECKING:
    from mika.model.base import Model

KINDS = ("openai-chat", "openai-responses", "anthropic", "gemini")


def build_adapter(kind: str, endpoint: Endpoint, *, legacy_request: bool = False) -> Model:
    """`legacy_request`: the old way of building requests (afresh each time, through the
    SDK's transforms), for the benchmark and the byte-identity tests only."""
    if kind == "openai-chat":
        from mika.model.adapters.openai_chat import OpenAIChatModel

        return OpenAIChatModel(endpoint, legacy_request=legacy_request)
    if kind == "openai-responses":
        from mika.model.adapters.openai_responses import OpenAIResponsesModel

        return OpenAIResponsesModel(endpoint, legacy_request=legacy_request)
    if kind == "anthropic":
        from mika.model.adapters.anthropic import AnthropicModel

        return AnthropicModel(endpoint, legacy_request=legacy_request)
    if kind == "gemini":
        from mika.model.adapters.gemini import GeminiModel

        return GeminiModel(endpoint, legacy_request=legacy_request)
    raise ValueError(f"unknown model protocol {kind!r}; expected one of {', '.join(KINDS)}")


__all__ = ["KINDS", "Endpoint", "build_adapter"]
