"""Which received reasoning may go back to an endpoint: only what that endpoint made.

Signatures, encrypted reasoning and thought signatures mean something only to the
server (and model) that produced them; another one ignores or refuses them.
"""

from __future__ import annotations

from mika.model.adapters.endpoint import Endpoint
from mika.model.messages import Message, Thinking


def made_here(origin: str | None, endpoint: Endpoint) -> bool:
    return origin == endpoint.origin


def own_thinking(message: Message, endpoint: Endpoint) -> list[Thinking]:
    """The message's reasoning parts that came from this endpoint, in order."""
    return [p for p in message.parts if isinstance(p, Thinking) and made_here(p.origin, endpoint)]
