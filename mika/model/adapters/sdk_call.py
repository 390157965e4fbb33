"""One request through an SDK client (openai, anthropic), plain or streamed, as stream events.

The SDK adapters differ in what they send and how they read the reply. How the call is
made, when a broken connection counts as a cut reply, that the stream is closed, and how
failures become `ModelError` are the same for all of them, and live here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from mika.model.adapters.bad_reply import bad_reply, no_events, reply_object
from mika.model.adapters.endpoint import Endpoint
from mika.model.adapters.sdk_errors import translate
from mika.model.base import StreamEvent
from mika.model.classify import classify_http
from mika.model.errors import ModelError
from mika.model.first_request import request_sent
from mika.model.messages import ModelRequest


async def sdk_events(
    send: Callable[[bool, dict[str, str]], Awaitable[Any]],
    request: ModelRequest,
    endpoint: Endpoint,
    *,
    whole: Callable[[dict[str, Any]], AsyncIterator[StreamEvent]],
    pieces: Callable[[Any], AsyncIterator[StreamEvent]],
    needs: str = "",
) -> AsyncIterator[StreamEvent]:
    """`send(streaming, headers)` makes the SDK call (the reply, or the SDK's event
    stream); `whole` reads a complete reply (as a dict), `pieces` the event stream.
    `needs`: the list a complete reply must carry (`choices`, `output`, `content`)."""
    headers = endpoint.request_headers(request.conversation_id)
    started = False
    reading = False
    provider = endpoint.provider
    try:
        if not endpoint.streaming:
            reply = await send(False, headers)
            request_sent()
            data = reply_object(reply, provider, needs) if needs else reply.to_dict(warnings=False)
            if isinstance(data.get("error"), dict):
                # An error object sent with HTTP 200 (some proxies do this).
                raise classify_http(None, data, None, provider=provider, model=endpoint.model)
            reading = True
            async for event in whole(data):
                yield event
            return
        stream = await send(True, headers)
        request_sent()
        # Headers are in: from here a broken connection means a cut reply.
        started = True
        events = _Events(stream, provider)
        try:
            reading = True
            async for event in pieces(events):
                yield event
        except ModelError as err:
            raise events.explain(err) from err
        finally:
            # Closing the response is what stops the server's work when we are cancelled.
            await stream.close()
    except ModelError:
        raise
    except Exception as exc:  # SDK and transport errors become ModelError
        mapped = translated(exc, endpoint, started)
        if (
            mapped is None
            and reading
            and isinstance(exc, (TypeError, AttributeError, KeyError, ValueError, IndexError))
        ):
            # Our reading code met a field of the wrong type: the reply is not this API's.
            mapped = bad_reply(provider, f"the reply has an unexpected shape ({type(exc).__name__}: {exc})")
        if mapped is None:
            raise
        raise mapped from exc


def translated(exc: BaseException, endpoint: Endpoint, started: bool) -> ModelError | None:
    try:
        return translate(
            exc, provider=endpoint.provider, model=endpoint.model, started=started, read_timeout=endpoint.read_timeout
        )
    except BaseException as unknown:
        if unknown is exc:
            return None
        raise


class _Events:
    """The SDK's event stream, checked, as plain dicts: every event must be an SDK object
    (the SDK hands over bare lists or strings when a `data:` line holds other JSON)."""

    def __init__(self, stream: Any, provider: str) -> None:
        self._stream = stream
        self._provider = provider
        self.count = 0

    def _content_type(self) -> str:
        response = getattr(self._stream, "response", None)
        try:
            return str(response.headers.get("content-type", "")) if response is not None else ""
        except Exception:
            return ""

    async def __aiter__(self) -> AsyncIterator[Any]:
        ctype = self._content_type()
        if "html" in ctype.lower():
            raise bad_reply(self._provider, f"the reply is an HTML page ({ctype}), not the provider's API")
        async for item in self._stream:
            if not hasattr(item, "to_dict"):
                raise bad_reply(self._provider, "a stream event is not a JSON object", item)
            self.count += 1
            yield item.to_dict(warnings=False)

    def explain(self, err: ModelError) -> ModelError:
        return no_events(err, self.count, self._content_type(), self._provider)
