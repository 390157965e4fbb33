"""One adapter per wire protocol; `build_adapter` picks by the config's `kind`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mika.model.adapters.endpoint import Endpoint

if TYPE_CHECKING:
    from mika.model.base import Model

# The wire protocols a provider with an API key speaks (what a custom provider picks from).
KINDS = ("openai-chat", "openai-responses", "anthropic", "gemini")
# Providers reached through a sign-in instead of a key (mika login chatgpt). Their models
# are built by mika.model.roles, not here: mika.model.chatgpt uses these adapters.
SIGN_IN_KINDS = ("chatgpt",)
ALL_KINDS = KINDS + SIGN_IN_KINDS


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
    raise ValueError(f"unknown model protocol {kind!r}; expected one of {', '.join(ALL_KINDS)}")


__all__ = ["ALL_KINDS", "KINDS", "SIGN_IN_KINDS", "Endpoint", "build_adapter"]
