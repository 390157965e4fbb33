"""Constructor options every SDK client (openai, anthropic) gets from an endpoint."""

from __future__ import annotations

from typing import Any, Callable

from mika.model.adapters.endpoint import Endpoint


def client_options(endpoint: Endpoint, timeout: Callable[..., Any]) -> dict[str, Any]:
    """`timeout` is the SDK's own Timeout type (the SDKs carry their own httpx)."""
    return {
        # The SDKs refuse to start without a key; local servers need none.
        "api_key": endpoint.api_key or "not-needed",
        "max_retries": 0,  # the caller's RetryPolicy decides, once, around the whole call
        "timeout": timeout(endpoint.read_timeout, connect=endpoint.connect_timeout),
    }
