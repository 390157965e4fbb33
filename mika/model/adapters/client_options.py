"""How an endpoint's settings become the options of the HTTP or SDK client that calls it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mika.model.adapters.endpoint import Endpoint

if TYPE_CHECKING:
    import openai


def client_timeout(endpoint: Endpoint, timeout: Callable[..., Any]) -> Any:
    """`timeout` is the client's own Timeout type: httpx's, or the SDKs' (they carry their own httpx)."""
    return timeout(endpoint.read_timeout, connect=endpoint.connect_timeout)


def sdk_client_options(endpoint: Endpoint, timeout: Callable[..., Any]) -> dict[str, Any]:
    """What every SDK client (openai, anthropic) is built with."""
    return {
        # The SDKs refuse to start without a key; local servers need none.
        "api_key": endpoint.api_key or "not-needed",
        "max_retries": 0,  # the caller's RetryPolicy decides, once, around the whole call
        "timeout": client_timeout(endpoint, timeout),
    }


def openai_client(endpoint: Endpoint) -> openai.AsyncOpenAI:
    """The OpenAI SDK's client for `endpoint` (Chat Completions and Responses alike). The
    SDK is imported here, at the adapters' first call: it costs ~0.5 s to import, and a face
    that lists its tools first (mika mcp) or a run still opening its phone needs none of it."""
    import openai

    return openai.AsyncOpenAI(base_url=endpoint.base_url, **sdk_client_options(endpoint, openai.Timeout))
