"""Headers every request to a model service carries (besides the key, which each adapter adds)."""

from __future__ import annotations

from collections.abc import Mapping

from mika import __version__
from mika.model.session import ModelSession

USER_AGENT = f"Mika/{__version__}"


def client_headers(
    *,
    session_header: str | None = None,
    conversation_id: str | None = None,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """`User-Agent`, the provider's declared headers and, when the provider declared a
    session header, the conversation's session id (a fresh one outside a conversation)."""
    headers = {"User-Agent": USER_AGENT}
    if extra:
        headers.update(extra)
    if session_header:
        headers[session_header] = ModelSession.for_request(conversation_id).value
    return headers
