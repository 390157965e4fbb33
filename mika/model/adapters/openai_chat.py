"""OpenAI-compatible Chat Completions: neutral messages to `/chat/completions` and back."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mika.model.adapters.client_options import openai_client
from mika.model.adapters.endpoint import Endpoint
from mika.model.adapters.endpoint_model import EndpointModel
from mika.model.adapters.http_call import HttpClient, http_events
from mika.model.adapters.images import NO_VISION_PLACEHOLDER, data_url
from mika.model.adapters.openai_usage import openai_usage
from mika.model.adapters.own_reasoning import own_thinking
from mika.model.adapters.sdk_call import sdk_events
from mika.model.adapters.tool_calls import ToolCallAssembler, arguments_text
from mika.model.adapters.user_turn import split_user_turn
from mika.model.adapters.wire_json import IdentityMemo, JsonArray, dumps, encode_object
from mika.model.base import Done, StreamEvent, TextDelta, ThinkingDelta
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
    ToolSpec,
    Usage,
)

if TYPE_CHECKING:
    import openai

# Where OpenAI-compatible servers put reasoning; what we received goes back in the same one.
REASONING_FIELDS = ("reasoning_content", "reasoning")
# Reasoning that arrived as `thinking` blocks inside a `content` array goes back the same way.
BLOCKS = "content_blocks"

STREAM_OPTIONS = {"include_usage": True}

_STOP = {"stop": "end", "tool_calls": "tool_calls", "function_call": "tool_calls", "length": "max_tokens"}


class ChatRequestBuilder:
    """Builds the request body. Pure and deterministic: the same history gives the same
    bytes, so a run's successive requests share a prefix the provider can cache."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        # Reasoning goes back only with tools, so the same message has two forms.
        self._messages: dict[bool, IdentityMemo[Message, list[str]]] = {
            False: IdentityMemo(self._texts_without_reasoning),
            True: IdentityMemo(self._texts_with_reasoning),
        }
        self._tools: IdentityMemo[ToolSpec, str] = IdentityMemo(lambda t: dumps(self._tool(t)))

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The body as a dict, built afresh (the old path, which the SDK then transforms)."""
        messages: list[dict[str, Any]] = []
        if request.system:
            messages.append(self._system(request.system))
        send_reasoning = bool(request.tools)
        for message in request.messages:
            messages.extend(self._message(message, send_reasoning))
        body: dict[str, Any] = {"model": self.endpoint.model, "messages": messages}
        if request.tools and self.endpoint.supports_tools:
            body["tools"] = [self._tool(t) for t in request.tools]
        # No max_tokens: servers disagree on max_tokens vs max_completion_tokens and reject
        # the one they don't know, which would fail the whole request.
        return body

    def encoded(self, request: ModelRequest, *, stream: bool) -> bytes:
        """The body as sent, from messages converted once each. Fields in the order the
        SDK's `create` sends them, so the bytes are the old path's exactly."""
        send_reasoning = bool(request.tools)
        items: list[str] = [dumps(self._system(request.system))] if request.system else []
        memo = self._messages[send_reasoning]
        for index, message in enumerate(request.messages):
            items.extend(memo.get(message, slot=index))
        fields: list[tuple[str, Any]] = [
            ("model", self.endpoint.model),
            ("stream", stream),
            ("messages", JsonArray(items)),
        ]
        if stream:
            fields.append(("stream_options", dict(STREAM_OPTIONS)))
        if request.tools and self.endpoint.supports_tools:
            tools = [self._tools.get(t) for t in request.tools]
            fields.append(("tools", JsonArray(tools)))
        self._messages[False].next_request()
        self._messages[True].next_request()
        self._tools.next_request()
        return encode_object(fields)

    def _texts_without_reasoning(self, message: Message) -> list[str]:
        return [dumps(e) for e in self._message(message, False)]

    def _texts_with_reasoning(self, message: Message) -> list[str]:
        return [dumps(e) for e in self._message(message, True)]

    @staticmethod
    def _system(text: str) -> dict[str, Any]:
        return {"role": "system", "content": text}

    @staticmethod
    def _tool(t: ToolSpec) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }

    def _image_part(self, image: Image) -> dict[str, Any]:
        if not self.endpoint.supports_images:
            return {"type": "text", "text": NO_VISION_PLACEHOLDER}
        return {"type": "image_url", "image_url": {"url": data_url(image)}}

    def _user_content(self, parts: list[Part]) -> str | list[dict[str, Any]]:
        if all(isinstance(p, Text) for p in parts):
            return "".join(p.text for p in parts)  # type: ignore[union-attr]
        content: list[dict[str, Any]] = []
        for p in parts:
            if isinstance(p, Text):
                content.append({"type": "text", "text": p.text})
            elif isinstance(p, Image):
                content.append(self._image_part(p))
        return content

    def _message(self, message: Message, send_reasoning: bool) -> list[dict[str, Any]]:
        if message.role == "user":
            # Tool messages carry text only; their pictures follow as user content.
            results, trailing = split_user_turn(message)
            out: list[dict[str, Any]] = [
                {"role": "tool", "tool_call_id": r.call_id, "content": r.text} for r in results
            ]
            if trailing:
                out.append({"role": "user", "content": self._user_content(trailing)})
            return out
        entry: dict[str, Any] = {"role": "assistant"}
        text = "".join(p.text for p in message.parts if isinstance(p, Text))
        has_calls = any(isinstance(p, ToolCall) for p in message.parts)
        # null content is only accepted next to tool calls.
        entry["content"] = text or (None if has_calls else "")
        if send_reasoning:
            blocks: list[dict[str, Any]] = []
            for p in own_thinking(message, self.endpoint):
                if p.field == BLOCKS:
                    blocks.append({"type": "thinking", "thinking": p.text})
                    continue
                field = p.field if p.field in REASONING_FIELDS else self.endpoint.reasoning_field
                if field in REASONING_FIELDS:
                    entry[field] = entry.get(field, "") + p.text
            if blocks:
                # The whole message goes back as blocks, thinking first (as it came).
                entry["content"] = blocks + ([{"type": "text", "text": text}] if text else [])
        calls = [p for p in message.parts if isinstance(p, ToolCall)]
        if calls:
            entry["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments_text(c)}}
                for c in calls
            ]
        return [entry]


def _content_blocks(blocks: list[Any], text: list[str], reasoning: dict[str, list[str]]) -> list[StreamEvent]:
    """Servers whose `content` is an array of blocks: thinking blocks, then the answer."""
    events: list[StreamEvent] = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
            reasoning.setdefault(BLOCKS, []).append(block["thinking"])
            events.append(ThinkingDelta(block["thinking"]))
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            text.append(block["text"])
            events.append(TextDelta(block["text"]))
    return events


def _usage(raw: Any) -> Usage:
    return openai_usage(
        raw, input_key="prompt_tokens", output_key="completion_tokens", details_key="prompt_tokens_details"
    )


class OpenAIChatModel(EndpointModel):
    kind = "openai-chat"

    def __init__(
        self, endpoint: Endpoint, client: openai.AsyncOpenAI | None = None, *, legacy_request: bool = False
    ) -> None:
        """`legacy_request`: build the body afresh and hand it to the SDK's `create`, which
        walks it again (the old path, kept to measure against and to prove the bytes equal).
        Without a `client` (an SDK client someone made) the request goes over our own HTTP
        client, and the SDK is never imported (mika.model.adapters.http_call says why)."""
        super().__init__(endpoint)
        self.builder = ChatRequestBuilder(endpoint)
        self.legacy_request = legacy_request
        self._given = client
        self._http = HttpClient(endpoint) if client is None and not legacy_request else None

    @property
    def _client(self) -> openai.AsyncOpenAI:
        # Built at first use (client_options.openai_client says why).
        if self._given is None:
            self._given = openai_client(self.endpoint)
        return self._given

    def prepare(self) -> None:
        """Build the HTTP client now, in the background (the caller has time to spare for it)."""
        if self._http is not None:
            self._http.build_ahead()
        else:
            self._client  # noqa: B018 - the property builds it (and loads the SDK)

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        if self._http is not None:
            return http_events(
                self._http,
                self.endpoint.base_url.rstrip("/") + "/chat/completions",
                lambda streaming: self.builder.encoded(request, stream=streaming),
                request,
                self.endpoint,
                whole=self._from_completion,
                pieces=self._from_stream,
                needs="choices",
            )
        return sdk_events(
            lambda streaming, headers: self._send(request, streaming, headers),
            request,
            self.endpoint,
            whole=self._from_completion,
            pieces=self._from_stream,
            needs="choices",
        )

    async def _send(self, request: ModelRequest, streaming: bool, headers: dict[str, str]) -> Any:
        if self.legacy_request:
            extra = {"stream_options": dict(STREAM_OPTIONS)} if streaming else {}
            create: Callable[..., Awaitable[Any]] = self._client.chat.completions.create
            return await create(**self.builder.body(request), stream=streaming, **extra, extra_headers=headers)
        import openai
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        # The SDK's documented call for a prepared body: same client, auth, stream and errors.
        return await self._client.post(
            "/chat/completions",
            content=self.builder.encoded(request, stream=streaming),
            cast_to=ChatCompletion,
            stream=streaming,
            stream_cls=openai.AsyncStream[ChatCompletionChunk],
            # As `create` sets them: our headers, the client's API key as the bearer token.
            options={"headers": headers, "security": {"bearer_auth": True}},
        )

    async def _from_stream(self, stream: Any) -> AsyncIterator[StreamEvent]:
        text: list[str] = []
        reasoning: dict[str, list[str]] = {}
        calls = ToolCallAssembler()
        usage = NO_USAGE
        finish: str | None = None
        model_name = self.name
        saw_any = False
        async for data in stream:
            saw_any = True
            model_name = data.get("model") or model_name
            if data.get("usage"):
                usage = _usage(data["usage"])
            for choice in data.get("choices") or []:
                if choice.get("index", 0) != 0:
                    continue
                delta = choice.get("delta") or {}
                for field in REASONING_FIELDS:
                    piece = delta.get(field)
                    if isinstance(piece, str) and piece:
                        reasoning.setdefault(field, []).append(piece)
                        yield ThinkingDelta(piece)
                piece = delta.get("content")
                if isinstance(piece, str) and piece:
                    text.append(piece)
                    yield TextDelta(piece)
                elif isinstance(piece, list):
                    for event in _content_blocks(piece, text, reasoning):
                        yield event
                for tc in delta.get("tool_calls") or []:
                    index = int(tc.get("index") or 0)
                    fn = tc.get("function") or {}
                    yield calls.add(index, id=tc.get("id"), name=fn.get("name"), arguments=fn.get("arguments") or "")
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
        # The SDK ends quietly at [DONE] or at a clean close; only a finish reason or the
        # usage chunk proves the reply was complete.
        if not saw_any or (finish is None and not usage.reported):
            raise ModelError(
                ModelErrorKind.STREAM_INCOMPLETE, "the stream ended without a finish reason", provider=self.provider
            )
        yield Done(self._response(text, reasoning, calls, usage, finish, model_name))

    async def _from_completion(self, data: dict[str, Any]) -> AsyncIterator[StreamEvent]:
        choice = (data.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        reasoning: dict[str, list[str]] = {}
        content = message.get("content")
        if isinstance(content, list):
            pieces: list[str] = []
            for event in _content_blocks(content, pieces, reasoning):
                yield event
            content = "".join(pieces)
        text = content or ""
        for field in REASONING_FIELDS:
            if isinstance(message.get(field), str) and message[field]:
                reasoning[field] = [message[field]]
                yield ThinkingDelta(message[field])
        if text and not isinstance(message.get("content"), list):
            yield TextDelta(text)
        calls = ToolCallAssembler()
        for index, tc in enumerate(message.get("tool_calls") or []):
            fn = tc.get("function") or {}
            yield calls.add(index, id=tc.get("id"), name=fn.get("name"), arguments=fn.get("arguments") or "")
        yield Done(
            self._response(
                [text] if text else [],
                reasoning,
                calls,
                _usage(data.get("usage")),
                choice.get("finish_reason"),
                data.get("model") or self.name,
            )
        )

    def _response(
        self,
        text: list[str],
        reasoning: dict[str, list[str]],
        calls: ToolCallAssembler,
        usage: Usage,
        finish: str | None,
        model_name: str,
    ) -> ModelResponse:
        parts: list[Part] = []
        for field, pieces in reasoning.items():
            parts.append(Thinking("".join(pieces), origin=self.endpoint.origin, field=field))
        if text:
            parts.append(Text("".join(text)))
        tool_calls = calls.finish()
        parts.extend(tool_calls)
        stop: StopReason = _STOP.get(finish or "", "other") if finish else ("tool_calls" if tool_calls else "end")  # type: ignore[assignment]
        if tool_calls and stop == "end":
            stop = "tool_calls"
        return ModelResponse(Message("assistant", tuple(parts)), usage, stop, model_name, self.provider)
