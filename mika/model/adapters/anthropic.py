"""Anthropic Messages: neutral messages to `POST {base}/v1/messages` and back.

Prompt caching is explicit here: `cache_control` breakpoints go at the end of the
tools+system block, after each message index in `request.cache_marks` (the opening
context), and on the newest message, so from a run's second request on the stable
prefix is billed as a cache read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mika.model.adapters.client_options import sdk_client_options
from mika.model.adapters.endpoint import Endpoint, strip_version_suffix
from mika.model.adapters.endpoint_model import EndpointModel
from mika.model.adapters.images import NO_VISION_PLACEHOLDER, b64
from mika.model.adapters.own_reasoning import own_thinking
from mika.model.adapters.sdk_call import sdk_events
from mika.model.adapters.tool_calls import ToolCallAssembler, arguments_json
from mika.model.adapters.wire_json import IdentityMemo, JsonArray, dumps, encode_object
from mika.model.base import Done, StreamEvent, TextDelta, ThinkingDelta
from mika.model.classify import classify_http
from mika.model.errors import ModelError, ModelErrorKind
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

if TYPE_CHECKING:
    import anthropic

DEFAULT_MAX_TOKENS = 8192
_EPHEMERAL = {"type": "ephemeral"}
# The API allows four breakpoints per request.
_MAX_BREAKPOINTS = 4
_STOP = {"end_turn": "end", "stop_sequence": "end", "tool_use": "tool_calls", "max_tokens": "max_tokens"}


def usage_of(start: dict[str, Any] | None, delta: dict[str, Any] | None = None) -> Usage:
    """Anthropic's `input_tokens` excludes cache reads and writes; ours includes them.

    `message_delta` usage is cumulative and overrides `message_start`; when the server
    ran several iterations (compaction), their sum is what was billed."""
    merged: dict[str, Any] = dict(start or {})
    for k, v in (delta or {}).items():
        if v is not None:
            merged[k] = v
    if not merged:
        return NO_USAGE
    iterations = merged.get("iterations")
    rows = iterations if isinstance(iterations, list) and iterations else [merged]
    inp = out = read = write = 0
    for row in rows:
        read += int(row.get("cache_read_input_tokens") or 0)
        write += int(row.get("cache_creation_input_tokens") or 0)
        inp += int(row.get("input_tokens") or 0)
        out += int(row.get("output_tokens") or 0)
    return Usage(input_tokens=inp + read + write, output_tokens=out, cached_input_tokens=read, cache_write_tokens=write)


class AnthropicRequestBuilder:
    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        # Each message's wire form and its JSON text (the form is copied to add a breakpoint).
        self._messages: IdentityMemo[Message, tuple[dict[str, Any], str]] = IdentityMemo(
            lambda m: _with_text(self._message(m))
        )
        self._tools: IdentityMemo[ToolSpec, tuple[dict[str, Any], str]] = IdentityMemo(
            lambda t: _with_text(self._tool(t))
        )

    def _max_tokens(self, request: ModelRequest) -> int:
        return request.max_output_tokens or self.endpoint.max_output_tokens or DEFAULT_MAX_TOKENS

    def _tools_of(self, request: ModelRequest) -> bool:
        return bool(request.tools and self.endpoint.supports_tools)

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The body as a dict, built afresh (the old path, which the SDK then copies)."""
        messages = [self._message(m) for m in request.messages]
        body: dict[str, Any] = {"model": self.endpoint.model, "max_tokens": self._max_tokens(request)}
        tools = []
        if self._tools_of(request):
            tools = [self._tool(t) for t in request.tools]
            body["tools"] = tools
        if request.system:
            body["system"] = self._system(request.system)
        elif tools:
            tools[-1]["cache_control"] = dict(_EPHEMERAL)
        head = bool(request.system or tools)
        for index in _breakpoints(request, [bool(m["content"]) for m in messages], head=head):
            messages[index]["content"][-1]["cache_control"] = dict(_EPHEMERAL)
        body["messages"] = messages
        return body

    def encoded(self, request: ModelRequest, *, stream: bool) -> bytes:
        """The body as sent, from messages converted once each. Fields in the order the
        SDK's `create` sends them, so the bytes are the old path's exactly."""
        converted = [self._messages.get(m, slot=i) for i, m in enumerate(request.messages)]
        items = [text for _, text in converted]
        head = bool(request.system) or self._tools_of(request)
        for index in _breakpoints(request, [bool(wire["content"]) for wire, _ in converted], head=head):
            items[index] = dumps(_marked(converted[index][0]))
        fields: list[tuple[str, Any]] = [
            ("max_tokens", self._max_tokens(request)),
            ("messages", JsonArray(items)),
            ("model", self.endpoint.model),
            ("stream", stream),
        ]
        if request.system:
            fields.append(("system", self._system(request.system)))
        if self._tools_of(request):
            tools = [self._tools.get(t) for t in request.tools]
            texts = [text for _, text in tools]
            if not request.system:
                last = tools[-1][0]
                texts[-1] = dumps({**last, "cache_control": dict(_EPHEMERAL)})
            fields.append(("tools", JsonArray(texts)))
        self._messages.next_request()
        self._tools.next_request()
        return encode_object(fields)

    @staticmethod
    def _system(text: str) -> list[dict[str, Any]]:
        return [{"type": "text", "text": text, "cache_control": dict(_EPHEMERAL)}]

    @staticmethod
    def _tool(t: ToolSpec) -> dict[str, Any]:
        return {"name": t.name, "description": t.description, "input_schema": t.parameters}

    def _image(self, image: Image) -> dict[str, Any]:
        if not self.endpoint.supports_images:
            return {"type": "text", "text": NO_VISION_PLACEHOLDER}
        return {"type": "image", "source": {"type": "base64", "media_type": image.mime, "data": b64(image)}}

    def _message(self, message: Message) -> dict[str, Any]:
        blocks: list[dict[str, Any]] = []
        if message.role == "user":
            # Tool results must open the user turn that answers the tool calls.
            for p in message.parts:
                if isinstance(p, ToolResult):
                    content: list[dict[str, Any]] = [{"type": "text", "text": p.text or "(empty)"}]
                    if p.image is not None:
                        content.append(self._image(p.image))
                    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": p.call_id, "content": content}
                    if p.is_error:
                        block["is_error"] = True
                    blocks.append(block)
            for p in message.parts:
                if isinstance(p, Text) and p.text:
                    blocks.append({"type": "text", "text": p.text})
                elif isinstance(p, Image):
                    blocks.append(self._image(p))
            return {"role": "user", "content": blocks}
        for p in own_thinking(message, self.endpoint):
            # Signed thinking must come back unchanged, before the text and tool use.
            if p.field == "thinking" and p.signature:
                blocks.append({"type": "thinking", "thinking": p.text, "signature": p.signature})
            elif p.field == "redacted_thinking" and p.data:
                blocks.append({"type": "redacted_thinking", "data": p.data})
        for p in message.parts:
            if isinstance(p, Text) and p.text:
                blocks.append({"type": "text", "text": p.text})
            elif isinstance(p, ToolCall):
                blocks.append({"type": "tool_use", "id": p.id, "name": p.name, "input": p.arguments})
        return {"role": "assistant", "content": blocks}


def _breakpoints(request: ModelRequest, has_content: list[bool], *, head: bool) -> list[int]:
    """The messages whose last block gets a cache breakpoint. One breakpoint closes the
    tools+system block (`head`: there is one); newest message next (it makes the next
    request a cache read); then the opening context marks, latest first, while
    breakpoints remain."""
    budget = _MAX_BREAKPOINTS - (1 if head else 0)
    wanted = []
    if has_content:
        wanted.append(len(has_content) - 1)
    wanted += sorted((i for i in request.cache_marks if 0 <= i < len(has_content)), reverse=True)
    chosen = []
    for index in dict.fromkeys(wanted):
        if budget <= 0:
            break
        if has_content[index]:
            chosen.append(index)
            budget -= 1
    return chosen


def _with_text(wire: dict[str, Any]) -> tuple[dict[str, Any], str]:
    return wire, dumps(wire)


def _marked(message: dict[str, Any]) -> dict[str, Any]:
    """A copy of a wire message with a breakpoint on its last block (the cached one stays as is)."""
    content = message["content"]
    return {**message, "content": [*content[:-1], {**content[-1], "cache_control": dict(_EPHEMERAL)}]}


class _Reply:
    """The reply as it builds up from stream events (or from one complete message)."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.blocks: dict[int, dict[str, Any]] = {}
        self.calls = ToolCallAssembler()
        self.start_usage: dict[str, Any] | None = None
        self.delta_usage: dict[str, Any] | None = None
        self.stop: str | None = None
        self.model = endpoint.model

    def parts(self) -> list[Part]:
        thinking: list[Part] = []
        text: list[str] = []
        for index in sorted(self.blocks):
            b = self.blocks[index]
            if b["type"] == "thinking":
                thinking.append(
                    Thinking(
                        b.get("thinking", ""),
                        origin=self.endpoint.origin,
                        field="thinking",
                        signature=b.get("signature") or None,
                    )
                )
            elif b["type"] == "redacted_thinking":
                thinking.append(
                    Thinking("", origin=self.endpoint.origin, field="redacted_thinking", data=b.get("data"))
                )
            elif b["type"] == "text":
                text.append(b.get("text", ""))
        out = thinking
        if "".join(text):
            out.append(Text("".join(text)))
        out.extend(self.calls.finish())
        return out

    def response(self, provider: str) -> ModelResponse:
        parts = self.parts()
        stop: StopReason = _STOP.get(self.stop or "", "other")  # type: ignore[assignment]
        if any(isinstance(p, ToolCall) for p in parts):
            stop = "tool_calls" if stop in ("end", "tool_calls", "other") else stop
        return ModelResponse(
            Message("assistant", tuple(parts)), usage_of(self.start_usage, self.delta_usage), stop, self.model, provider
        )


class AnthropicModel(EndpointModel):
    kind = "anthropic"

    def __init__(
        self, endpoint: Endpoint, client: anthropic.AsyncAnthropic | None = None, *, legacy_request: bool = False
    ) -> None:
        """`legacy_request`: build the body afresh and hand it to the SDK's `create`, which
        copies it again (the old path, kept to measure against and to prove the bytes equal)."""
        super().__init__(endpoint)
        self.builder = AnthropicRequestBuilder(endpoint)
        self.legacy_request = legacy_request
        self._given = client

    @property
    def _client(self) -> anthropic.AsyncAnthropic:
        # Built at first use: the SDK costs ~1 s to import, and a face that lists its tools
        # first (mika mcp) or a run that is still opening its phone need none of it yet.
        if self._given is None:
            import anthropic

            endpoint = self.endpoint
            self._given = anthropic.AsyncAnthropic(
                base_url=strip_version_suffix(endpoint.base_url, "/v1"),
                **sdk_client_options(endpoint, anthropic.Timeout),
                # This SDK sends the key as a Bearer token; Anthropic-compatible servers of
                # other vendors read x-api-key, so it goes in both.
                default_headers={"x-api-key": endpoint.api_key} if endpoint.api_key else None,
            )
        return self._given

    def prepare(self) -> None:
        """Load the SDK and build the client now (the caller has time to spare for it)."""
        self._client  # noqa: B018 - the property builds it

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        return sdk_events(
            lambda streaming, headers: self._send(request, streaming, headers),
            request,
            self.endpoint,
            whole=self._from_message,
            pieces=self._from_stream,
            needs="content",
        )

    async def _send(self, request: ModelRequest, streaming: bool, headers: dict[str, str]) -> Any:
        if self.legacy_request:
            create: Callable[..., Awaitable[Any]] = self._client.messages.create
            return await create(**self.builder.body(request), stream=streaming, extra_headers=headers)
        import anthropic
        from anthropic.types import Message as AnthropicMessage
        from anthropic.types import RawMessageStreamEvent

        # The SDK's documented call for a prepared body: same client, auth, stream and errors.
        return await self._client.post(
            "/v1/messages",
            content=self.builder.encoded(request, stream=streaming),
            cast_to=AnthropicMessage,
            stream=streaming,
            stream_cls=anthropic.AsyncStream[RawMessageStreamEvent],
            options={"headers": dict(headers)},
        )

    async def _from_stream(self, stream: Any) -> AsyncIterator[StreamEvent]:
        reply = _Reply(self.endpoint)
        async for data in stream:
            kind = data.get("type")
            if kind == "message_start":
                msg = data.get("message") or {}
                reply.model = msg.get("model") or reply.model
                reply.start_usage = msg.get("usage")
            elif kind == "content_block_start":
                index = int(data.get("index") or 0)
                block = dict(data.get("content_block") or {})
                reply.blocks[index] = block
                if block.get("type") == "tool_use":
                    yield reply.calls.add(index, id=block.get("id"), name=block.get("name"))
                elif block.get("type") == "text" and block.get("text"):
                    yield TextDelta(block["text"])
            elif kind == "content_block_delta":
                index = int(data.get("index") or 0)
                delta = data.get("delta") or {}
                block = reply.blocks.setdefault(index, {"type": "unknown"})
                dtype = delta.get("type")
                if dtype == "text_delta" and block.get("type") == "text":
                    block["text"] = block.get("text", "") + delta.get("text", "")
                    yield TextDelta(delta.get("text", ""))
                elif dtype == "input_json_delta" and block.get("type") == "tool_use":
                    yield reply.calls.add(index, arguments=delta.get("partial_json") or "")
                elif dtype == "thinking_delta":
                    block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
                    yield ThinkingDelta(delta.get("thinking", ""))
                elif dtype == "signature_delta":
                    block["signature"] = block.get("signature", "") + delta.get("signature", "")
            elif kind == "message_delta":
                reply.stop = (data.get("delta") or {}).get("stop_reason") or reply.stop
                reply.delta_usage = data.get("usage") or reply.delta_usage
            elif kind == "message_stop":
                yield Done(reply.response(self.provider))
                return
            elif kind == "error":
                raise classify_http(None, data, None, provider=self.provider, model=self.name)
        if reply.stop:
            # message_delta carries the final stop reason and usage; only the closing
            # message_stop frame is missing, so the reply itself is whole.
            yield Done(reply.response(self.provider))
            return
        raise ModelError(
            ModelErrorKind.STREAM_INCOMPLETE, "the stream ended before message_stop", provider=self.provider
        )

    async def _from_message(self, data: dict[str, Any]) -> AsyncIterator[StreamEvent]:
        reply = _Reply(self.endpoint)
        reply.model = data.get("model") or reply.model
        reply.start_usage = data.get("usage")
        reply.stop = data.get("stop_reason")
        for index, block in enumerate(data.get("content") or []):
            reply.blocks[index] = dict(block)
            if block.get("type") == "text":
                yield TextDelta(block.get("text", ""))
            elif block.get("type") == "tool_use":
                raw = arguments_json(block.get("input") or {})
                yield reply.calls.add(index, id=block.get("id"), name=block.get("name"), arguments=raw)
            elif block.get("type") == "thinking":
                yield ThinkingDelta(block.get("thinking", ""))
        yield Done(reply.response(self.provider))
