"""Gemini generateContent / streamGenerateContent over httpx.

Both stream forms are read: `alt=sse` (what we ask for) and the plain JSON array some
proxies return; the response's content type decides. A function call's
`thoughtSignature` is kept on the call and sent back with it, to the same address only.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

from mika.model.adapters.bad_reply import SNIPPET, bad_reply
from mika.model.adapters.client_options import client_timeout
from mika.model.adapters.endpoint import Endpoint, strip_version_suffix
from mika.model.adapters.endpoint_model import EndpointModel
from mika.model.adapters.images import NO_VISION_PLACEHOLDER, b64
from mika.model.adapters.own_reasoning import made_here
from mika.model.adapters.sdk_errors import translate
from mika.model.adapters.tool_calls import ToolCallAssembler, arguments_json
from mika.model.adapters.wire_json import IdentityMemo, JsonArray, dumps, encode_object
from mika.model.base import Done, StreamEvent, TextDelta, ThinkingDelta
from mika.model.classify import classify_http
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.first_request import request_sent
from mika.model.messages import (
    NO_USAGE,
    Image,
    Message,
    ModelRequest,
    ModelResponse,
    Part,
    StopReason,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
)

SIGNATURE = "thoughtSignature"
# JSON-schema keys Gemini's `parameters` (an OpenAPI subset) refuses.
_UNSUPPORTED_SCHEMA_KEYS = {"additionalProperties", "$schema", "$id", "$defs", "definitions"}


def usage_of(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return NO_USAGE
    return Usage(
        input_tokens=int(raw.get("promptTokenCount") or 0),
        # Thinking tokens are billed as output.
        output_tokens=int(raw.get("candidatesTokenCount") or 0) + int(raw.get("thoughtsTokenCount") or 0),
        cached_input_tokens=int(raw.get("cachedContentTokenCount") or 0),
    )


def _schema(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _schema(v) for k, v in value.items() if k not in _UNSUPPORTED_SCHEMA_KEYS}
    if isinstance(value, list):
        return [_schema(v) for v in value]
    return value


class GeminiRequestBuilder:
    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self._messages: IdentityMemo[Message, str] = IdentityMemo(lambda m: dumps(self._content(m)))
        self._tools: IdentityMemo[ToolSpec, dict[str, Any]] = IdentityMemo(self._declaration)

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The body as a dict, built afresh (the old path)."""
        body: dict[str, Any] = {}
        if request.system:
            body["systemInstruction"] = self._system(request.system)
        body["contents"] = [self._content(m) for m in request.messages]
        if request.tools and self.endpoint.supports_tools:
            body["tools"] = [{"functionDeclarations": [self._declaration(t) for t in request.tools]}]
        if budget := self._budget(request):
            body["generationConfig"] = {"maxOutputTokens": budget}
        return body

    def encoded(self, request: ModelRequest) -> bytes:
        """The body as sent, from messages converted once each: the old path's bytes."""
        fields: list[tuple[str, Any]] = []
        if request.system:
            fields.append(("systemInstruction", self._system(request.system)))
        contents = [self._messages.get(m, slot=i) for i, m in enumerate(request.messages)]
        fields.append(("contents", JsonArray(contents)))
        if request.tools and self.endpoint.supports_tools:
            declarations = [self._tools.get(t) for t in request.tools]
            fields.append(("tools", [{"functionDeclarations": declarations}]))
        if budget := self._budget(request):
            fields.append(("generationConfig", {"maxOutputTokens": budget}))
        self._messages.next_request()
        self._tools.next_request()
        return encode_object(fields)

    def _budget(self, request: ModelRequest) -> int | None:
        return request.max_output_tokens or self.endpoint.max_output_tokens

    @staticmethod
    def _system(text: str) -> dict[str, Any]:
        return {"parts": [{"text": text}]}

    @staticmethod
    def _declaration(t: ToolSpec) -> dict[str, Any]:
        decl: dict[str, Any] = {"name": t.name, "description": t.description}
        if (t.parameters or {}).get("properties"):
            decl["parameters"] = _schema(t.parameters)
        return decl

    def _image(self, image: Image) -> dict[str, Any]:
        if not self.endpoint.supports_images:
            return {"text": NO_VISION_PLACEHOLDER}
        return {"inlineData": {"mimeType": image.mime, "data": b64(image)}}

    def _content(self, message: Message) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        if message.role == "user":
            for p in message.parts:
                if isinstance(p, ToolResult):
                    parts.append({"functionResponse": {"name": p.name, "response": {"result": p.text}}})
                    if p.image is not None:
                        parts.append(self._image(p.image))
            for p in message.parts:
                if isinstance(p, Text) and p.text:
                    parts.append({"text": p.text})
                elif isinstance(p, Image):
                    parts.append(self._image(p))
            return {"role": "user", "parts": parts}
        for p in message.parts:
            if isinstance(p, Text) and p.text:
                parts.append({"text": p.text})
            elif isinstance(p, ToolCall):
                part: dict[str, Any] = {"functionCall": {"name": p.name, "args": p.arguments}}
                signature = p.provider_data.get(SIGNATURE)
                if signature and made_here(p.provider_data.get("origin"), self.endpoint):
                    part[SIGNATURE] = signature
                parts.append(part)
        return {"role": "model", "parts": parts}


class _Reply:
    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.text: list[str] = []
        self.thoughts: list[str] = []
        self.calls = ToolCallAssembler()
        self.usage = NO_USAGE
        self.finish: str | None = None
        self.model = endpoint.model
        self.response_id = ""
        self.pieces = 0
        # Whether any piece looked like generateContent's (candidates or usage at least).
        self.shaped = False

    def feed(self, chunk: Any) -> list[StreamEvent]:
        if not isinstance(chunk, dict):
            raise bad_reply(self.endpoint.provider, "a reply piece is not a JSON object", chunk)
        self.pieces += 1
        self.shaped = self.shaped or "candidates" in chunk or "usageMetadata" in chunk
        if "error" in chunk:
            raise classify_http(None, chunk, None, provider=self.endpoint.provider, model=self.endpoint.model)
        events: list[StreamEvent] = []
        if chunk.get("usageMetadata"):
            self.usage = usage_of(chunk["usageMetadata"])
        self.model = chunk.get("modelVersion") or self.model
        self.response_id = chunk.get("responseId") or self.response_id
        for candidate in (chunk.get("candidates") or [])[:1]:
            for part in (candidate.get("content") or {}).get("parts") or []:
                if "functionCall" in part:
                    fc = part["functionCall"] or {}
                    index = len(self.calls.finish())
                    raw = arguments_json(fc.get("args") or {})
                    data = {}
                    if part.get(SIGNATURE):
                        data = {SIGNATURE: part[SIGNATURE], "origin": self.endpoint.origin}
                    # Gemini gives no call ids; the response id keeps ours unique across turns.
                    call_id = fc.get("id") or f"{self.response_id or 'call'}_{index}"
                    events.append(
                        self.calls.add(index, id=call_id, name=fc.get("name"), arguments=raw, provider_data=data)
                    )
                elif part.get("thought") and part.get("text"):
                    self.thoughts.append(part["text"])
                    events.append(ThinkingDelta(part["text"]))
                elif part.get("text"):
                    self.text.append(part["text"])
                    events.append(TextDelta(part["text"]))
            if candidate.get("finishReason"):
                self.finish = candidate["finishReason"]
        return events

    def response(self) -> ModelResponse:
        parts: list[Part] = []
        if self.thoughts:
            parts.append(Thinking("".join(self.thoughts), origin=self.endpoint.origin, field="thought"))
        if self.text:
            parts.append(Text("".join(self.text)))
        calls = self.calls.finish()
        parts.extend(calls)
        stop: StopReason
        if calls:
            stop = "tool_calls"
        elif self.finish == "MAX_TOKENS":
            stop = "max_tokens"
        elif self.finish in (None, "STOP"):
            stop = "end"
        else:
            stop = "other"
        return ModelResponse(Message("assistant", tuple(parts)), self.usage, stop, self.model, self.endpoint.provider)


async def _sse_data(response: httpx.Response) -> AsyncIterator[str]:
    buffer = ""
    async for text in response.aiter_text():
        buffer += text.replace("\r\n", "\n")
        while "\n\n" in buffer:
            frame, buffer = buffer.split("\n\n", 1)
            data = "\n".join(line[5:].lstrip() for line in frame.split("\n") if line.startswith("data:"))
            if data:
                yield data
    tail = "\n".join(line[5:].lstrip() for line in buffer.split("\n") if line.startswith("data:"))
    if tail.strip():
        yield tail


async def _json_array_items(response: httpx.Response, seen: list[str]) -> AsyncIterator[dict[str, Any]]:
    """Objects of a streamed top-level JSON array, each as soon as it is complete.
    The reply's first characters go into `seen`, to show if none of it was JSON."""
    decoder = json.JSONDecoder()
    buffer = ""
    async for text in response.aiter_text():
        if sum(map(len, seen)) < SNIPPET:
            seen.append(text)
        buffer += text
        while True:
            stripped = buffer.lstrip().lstrip("[,").lstrip()
            if not stripped or stripped.startswith("]"):
                buffer = stripped
                break
            try:
                item, end = decoder.raw_decode(stripped)
            except ValueError:
                buffer = stripped
                break
            buffer = stripped[end:]
            if isinstance(item, dict):
                yield item


class GeminiModel(EndpointModel):
    kind = "gemini"

    def __init__(
        self, endpoint: Endpoint, client: httpx.AsyncClient | None = None, *, legacy_request: bool = False
    ) -> None:
        """`legacy_request`: build and encode the whole body afresh each time (the old
        path, kept to measure against and to prove the bytes equal)."""
        super().__init__(endpoint)
        self.builder = GeminiRequestBuilder(endpoint)
        self.legacy_request = legacy_request
        self._root = strip_version_suffix(endpoint.base_url, "/v1beta", "/v1")
        self._client = client or httpx.AsyncClient(timeout=client_timeout(endpoint, httpx.Timeout))

    def _url(self) -> str:
        model = self.endpoint.model.removeprefix("models/")
        if self.endpoint.streaming:
            return f"{self._root}/v1beta/models/{model}:streamGenerateContent?alt=sse"
        return f"{self._root}/v1beta/models/{model}:generateContent"

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        headers = self.endpoint.request_headers(request.conversation_id)
        headers["Content-Type"] = "application/json"
        if self.endpoint.api_key:
            headers["x-goog-api-key"] = self.endpoint.api_key
        if self.legacy_request:
            body = json.dumps(self.builder.body(request), ensure_ascii=False, separators=(",", ":")).encode()
        else:
            body = self.builder.encoded(request)
        reply = _Reply(self.endpoint)
        started = False
        try:
            async with self._client.stream("POST", self._url(), content=body, headers=headers) as response:
                request_sent()
                if response.status_code >= 400:
                    raw = await response.aread()
                    raise classify_http(
                        response.status_code,
                        raw.decode("utf-8", "replace"),
                        dict(response.headers),
                        provider=self.provider,
                        model=self.name,
                    )
                started = True
                ctype = response.headers.get("content-type", "")
                seen: list[str] = []
                if "html" in ctype.lower():
                    raise bad_reply(
                        self.provider,
                        f"the reply is an HTML page ({ctype}), not the provider's API",
                        (await response.aread())[: SNIPPET * 4],
                    )
                if "event-stream" in ctype:
                    async for data in _sse_data(response):
                        try:
                            chunk = json.loads(data)
                        except ValueError:
                            raise bad_reply(self.provider, "a stream event is not JSON", data) from None
                        for event in reply.feed(chunk):
                            yield event
                else:
                    async for item in _json_array_items(response, seen):
                        for event in reply.feed(item):
                            yield event
                if not reply.pieces:
                    what = "the stream had no events" if "event-stream" in ctype else "the reply is not a JSON object"
                    raise bad_reply(self.provider, what, "".join(seen) or None)
                if not reply.shaped:
                    raise bad_reply(self.provider, "the reply is JSON without `candidates`", "".join(seen) or None)
        except ModelError:
            raise
        except httpx.TransportError as exc:
            raise translate(
                exc, provider=self.provider, model=self.name, started=started, read_timeout=self.endpoint.read_timeout
            ) from exc
        except (TypeError, AttributeError, KeyError, ValueError, IndexError) as exc:
            # Our reading code met a field of the wrong type: the reply is not this API's.
            raise bad_reply(self.provider, f"the reply has an unexpected shape ({type(exc).__name__}: {exc})") from exc
        if reply.finish is None:
            raise ModelError(
                ModelErrorKind.STREAM_INCOMPLETE, "the stream ended without a finishReason", provider=self.provider
            )
        yield Done(reply.response())
