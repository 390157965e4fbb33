"""How an endpoint's settings become the options of the HTTP or SDK client that calls it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mika.model.adapters.endpoint import Endpoint


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
