"""One request to an OpenAI-style API (Chat Completions, Responses) over our own HTTP
client, plain or streamed, as stream events: the SDK path (mika.model.adapters.sdk_call)
without the SDK.

Why: importing the openai SDK costs ~0.5 s, the largest part of a headless run's time to
its first model request (benchmarks/first_answer.py). The client here is httpx2, the
transport that SDK itself is built on, with the SDK's settings (timeouts, connection
limits, redirects, proxies from the environment), so a request leaves and fails the same
way. Everything else is the SDK's behaviour too, written out here: the headers (less the
SDK's own telemetry), a status error's body as the SDK hands it over, a plain reply read
as the SDK reads it (JSON by the content type, else text), a stream as server-sent events
ended by `[DONE]`, an `error` object inside the stream, a transport error before the
reply (a network error) or during it (a cut reply). tests/models/test_own_http_path.py
runs every real recording, error body and garbage reply through both paths.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from mika.model.adapters.bad_reply import bad_reply, no_events, reply_object
from mika.model.adapters.client_options import client_timeout
from mika.model.adapters.endpoint import Endpoint
from mika.model.adapters.sdk_call import translated
from mika.model.adapters.sse import EventReader
from mika.model.base import StreamEvent
from mika.model.classify import classify_http
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.first_request import request_sent
from mika.model.messages import ModelRequest

if TYPE_CHECKING:
    import httpx2

# The openai SDK's connection limits (its DEFAULT_CONNECTION_LIMITS).
MAX_CONNECTIONS = 1000
MAX_KEEPALIVE = 100
# After `[DONE]`, the rest of the body (the chunked end) is read for this long at most,
# so the connection can carry the next request (the SDK does the same).
_DRAIN_SECONDS = 0.1


def new_client(endpoint: Endpoint) -> httpx2.AsyncClient:
    import httpx2

    return httpx2.AsyncClient(
        timeout=client_timeout(endpoint, httpx2.Timeout),
        limits=httpx2.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_KEEPALIVE),
        follow_redirects=True,
    )


class HttpClient:
    """An endpoint's HTTP client, built once: ahead of need in a thread (`build_ahead`:
    importing httpx2 and making its TLS context take ~0.1 s, which a starting run spends
    while it opens its phone and state), or at the first call."""

    def __init__(self, endpoint: Endpoint) -> None:
        self._endpoint = endpoint
        self._lock = threading.Lock()
        self._started = False
        self._built = threading.Event()
        self._client: httpx2.AsyncClient | None = None
        self._error: BaseException | None = None

    def build_ahead(self) -> None:
        if self._claim():
            threading.Thread(target=self._build, name="model-http-client", daemon=True).start()

    def _claim(self) -> bool:
        with self._lock:
            first = not self._started
            self._started = True
            return first

    def _build(self) -> None:
        try:
            self._client = new_client(self._endpoint)
        except BaseException as exc:  # told at the first call, where the caller can see it
            self._error = exc
        finally:
            self._built.set()

    async def get(self) -> httpx2.AsyncClient:
        if self._claim():
            self._build()
        elif not self._built.is_set():
            await asyncio.to_thread(self._built.wait)
        if self._error is not None:
            raise self._error
        assert self._client is not None
        return self._client


def request_headers(endpoint: Endpoint, request: ModelRequest) -> dict[str, str]:
    """The SDK's headers for a JSON call (the key as a bearer token: local servers need
    none, so a placeholder as the SDK's client options give it), then ours over them,
    names compared without case."""
    headers = {
        "Authorization": f"Bearer {endpoint.api_key or 'not-needed'}",
        "Accept": "application/json",
        "Content-Type": "application/json",
    }
    for name, value in endpoint.request_headers(request.conversation_id).items():
        for old in [k for k in headers if k.lower() == name.lower()]:
            del headers[old]
        headers[name] = value
    return headers


async def http_events(
    client: HttpClient,
    url: str,
    content: Callable[[bool], bytes],
    request: ModelRequest,
    endpoint: Endpoint,
    *,
    whole: Callable[[dict[str, Any]], AsyncIterator[StreamEvent]],
    pieces: Callable[[Any], AsyncIterator[StreamEvent]],
    needs: str,
) -> AsyncIterator[StreamEvent]:
    """`content(streaming)`: the body; `whole` reads a complete reply, `pieces` the stream
    of event objects (dicts); `needs`: the list a complete reply must carry. As sdk_events."""
    import httpx2

    provider = endpoint.provider
    started = False
    reading = False
    try:
        http = await client.get()
        headers = request_headers(endpoint, request)
        outgoing = http.build_request("POST", url, content=content(endpoint.streaming), headers=headers)
        if not endpoint.streaming:
            response = await http.send(outgoing)
            request_sent()
            if response.status_code >= 400:
                raise _status_error(response, endpoint)
            data = reply_object(_plain_reply(response), provider, needs)
            if isinstance(data.get("error"), dict):
                # An error object sent with HTTP 200 (some proxies do this).
                raise classify_http(None, data, None, provider=provider, model=endpoint.model)
            reading = True
            async for event in whole(data):
                yield event
            return
        response = await http.send(outgoing, stream=True)
        request_sent()
        try:
            if response.status_code >= 400:
                await response.aread()
                raise _status_error(response, endpoint)
            # Headers are in: from here a broken connection means a cut reply.
            started = True
            events = _Events(response, endpoint)
            try:
                reading = True
                async for event in pieces(events):
                    yield event
            except ModelError as err:
                raise events.explain(err) from err
        finally:
            # Closing the response is what stops the server's work when we are cancelled.
            await response.aclose()
    except ModelError:
        raise
    except httpx2.RequestError as exc:
        raise _request_error(exc, endpoint, started) from exc
    except Exception as exc:  # the reply's bytes, or our reading of them
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


def _request_error(exc: Exception, endpoint: Endpoint, started: bool) -> ModelError:
    """httpx2's errors of the exchange itself: a timeout, a refused or broken connection,
    and the rest of its request errors (undecodable compression, a redirect loop), which
    the SDK reports as a connection error too."""
    mapped = translated(exc, endpoint, started)
    if mapped is not None:
        return mapped
    kind = ModelErrorKind.STREAM_INCOMPLETE if started else ModelErrorKind.NETWORK
    return ModelError(kind, f"{type(exc).__name__}: {exc}".strip(": "), provider=endpoint.provider)


def _status_error(response: httpx2.Response, endpoint: Endpoint) -> ModelError:
    """The body as the SDK gives it to its status error: JSON if it parses (the `error`
    object inside, when there is one), else the text."""
    text = response.text.strip()
    body: Any = text
    try:
        body = json.loads(text)
    except ValueError:
        pass
    if isinstance(body, dict):
        body = body.get("error", body)
    return classify_http(
        response.status_code, body, dict(response.headers), provider=endpoint.provider, model=endpoint.model
    )


def _plain_reply(response: httpx2.Response) -> Any:
    """A complete reply as the SDK reads it: JSON when the content type says so (bytes that
    are not JSON are then an error), else JSON if it parses, else the text."""
    ctype = response.headers.get("content-type", "*").split(";")[0]
    if ctype.endswith("json"):
        return response.json()
    try:
        return response.json()
    except Exception:
        return response.text


class _Events:
    """The reply's server-sent events, each a JSON object. `[DONE]` ends them; an object
    with an `error` is the provider failing midway (HTTP 200 already sent)."""

    def __init__(self, response: httpx2.Response, endpoint: Endpoint) -> None:
        self._response = response
        self._endpoint = endpoint
        self.count = 0

    def _content_type(self) -> str:
        return str(self._response.headers.get("content-type", ""))

    async def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        provider = self._endpoint.provider
        ctype = self._content_type()
        if "html" in ctype.lower():
            raise bad_reply(provider, f"the reply is an HTML page ({ctype}), not the provider's API")
        reader = EventReader()
        chunks = self._response.aiter_bytes()
        async for chunk in chunks:
            for sse in reader.feed(chunk):
                if sse.data.startswith("[DONE]"):
                    await _drain(chunks)
                    return
                data = json.loads(sse.data)
                if isinstance(data, dict) and data.get("error"):
                    raise classify_http(
                        None, {"error": data["error"]}, None, provider=provider, model=self._endpoint.model
                    )
                if not isinstance(data, dict):
                    raise bad_reply(provider, "a stream event is not a JSON object", data)
                self.count += 1
                yield data
        reader.end()

    def explain(self, err: ModelError) -> ModelError:
        return no_events(err, self.count, self._content_type(), self._endpoint.provider)


async def _drain(chunks: AsyncIterator[bytes]) -> None:
    import httpx2

    try:
        async with asyncio.timeout(_DRAIN_SECONDS):
            async for _ in chunks:
                pass
    except (TimeoutError, httpx2.RequestError):
        pass  # the reply is whole; only the connection's reuse is lost
