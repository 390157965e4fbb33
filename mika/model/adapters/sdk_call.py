"""One request through an SDK client (openai, anthropic), plain or streamed, as stream events.

The SDK adapters differ in what they send and how they read the reply. How the call is
made, when a broken connection counts as a cut reply, that the stream is closed, and how
failures become `ModelError` are the same for all of them, and live here.
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Awaitable, Callable, Mapping

from mika.model.adapters.endpoint import Endpoint
from mika.model.adapters.sdk_errors import translate
from mika.model.base import StreamEvent
from mika.model.errors import ModelError
from mika.model.messages import ModelRequest


async def sdk_events(
    create: Callable[..., Awaitable[Any]],
    request: ModelRequest,
    endpoint: Endpoint,
    *,
    body: Callable[[ModelRequest], dict[str, Any]],
    whole: Callable[[dict[str, Any]], AsyncIterator[StreamEvent]],
    pieces: Callable[[Any], AsyncIterator[StreamEvent]],
    stream_args: Mapping[str, Any] | None = None,
) -> AsyncIterator[StreamEvent]:
    """`create` is the SDK's create method; `whole` reads a complete reply (as a dict),
    `pieces` the SDK's event stream; `stream_args` go only with a streamed call."""
    sent = body(request)
    headers = endpoint.request_headers(request.conversation_id)
    started = False
    try:
        if not endpoint.streaming:
            reply = await create(**sent, stream=False, extra_headers=headers)
            async for event in whole(reply.to_dict(warnings=False)):
                yield event
            return
        stream = await create(**sent, stream=True, **(stream_args or {}), extra_headers=headers)
        # Headers are in: from here a broken connection means a cut reply.
        started = True
        try:
            async for event in pieces(stream):
                yield event
        finally:
            # Closing the response is what stops the server's work when we are cancelled.
            await stream.close()
    except ModelError:
        raise
    except Exception as exc:  # SDK and transport errors become ModelError
        raise translate(exc, provider=endpoint.provider, model=endpoint.model, started=started) from exc
