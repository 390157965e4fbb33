"""Everything an adapter needs to know about where and how to call one model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mika.model.headers import client_headers

DEFAULT_CONTEXT_WINDOW = 128_000


@dataclass(frozen=True)
class Endpoint:
    provider: str  # the provider id from the config (e.g. "deepseek")
    model: str
    base_url: str
    api_key: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    # Header name for the per-conversation session id (OpenCode Go: x-opencode-session).
    session_header: str | None = None
    context_window: int = DEFAULT_CONTEXT_WINDOW
    supports_images: bool = False
    supports_tools: bool = True
    # For OpenAI-compatible servers that say where they put reasoning; None = as received.
    reasoning_field: str | None = None
    # False for servers that cannot stream; the adapter makes one plain call instead.
    streaming: bool = True
    # Reply budget when the request names none (Messages requires one; Gemini honours it).
    max_output_tokens: int | None = None
    # Seconds without any byte from the server before the call counts as a network failure.
    read_timeout: float = 300.0
    connect_timeout: float = 20.0

    @property
    def origin(self) -> str:
        """Where received reasoning came from; it is only ever sent back here."""
        return f"{self.base_url.rstrip('/')}#{self.model}"

    def request_headers(self, conversation_id: str | None) -> dict[str, str]:
        return client_headers(
            session_header=self.session_header,
            conversation_id=conversation_id,
            extra=self.headers,
        )


def strip_version_suffix(base_url: str, *suffixes: str) -> str:
    """Adapters add their own version path; a listed address may already end in it."""
    url = base_url.rstrip("/")
    for suffix in suffixes:
        if url.endswith(suffix):
            return url[: -len(suffix)]
    return url
