"""OpenAI Responses: neutral messages to `POST {base}/responses` and back.

Always `stream:true` and `store:false`; the whole context goes in `input` each time.
Only model, instructions, input, tools, store, stream and include are sent (plan-quota
routes reject optional fields). Reasoning comes back encrypted and is replayed in front
of the tool calls it preceded, to the same address only.
"""

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
from mika.model.classify import classify_http
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.messages import (
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

ENCRYPTED = "encrypted"
_INCLUDE = ["reasoning.encrypted_content"]


def usage_of(raw: Any) -> Usage:
    return openai_usage(raw, input_key="input_tokens", output_key="output_tokens", details_key="input_tokens_details")


class ResponsesRequestBuilder:
    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self._messages: IdentityMemo[Message, list[str]] = IdentityMemo(lambda m: [dumps(i) for i in self._items(m)])
        self._tools: IdentityMemo[ToolSpec, str] = IdentityMemo(lambda t: dumps(self._tool(t)))

    def body(self, request: ModelRequest, *, include: bool = True) -> dict[str, Any]:
        """The body as a dict, built afresh (the old path, which the SDK then transforms)."""
        items: list[dict[str, Any]] = []
        for message in request.messages:
            items.extend(self._items(message))
        body: dict[str, Any] = {
            "model": self.endpoint.model,
            "instructions": request.system,
            "input": items,
        }
        if request.tools and self.endpoint.supports_tools:
            body["tools"] = [self._tool(t) for t in request.tools]
        body["store"] = False
        if include:
            body["include"] = list(_INCLUDE)
        return body

    def encoded(self, request: ModelRequest, *, stream: bool, include: bool = True) -> bytes:
        """The body as sent, from messages converted once each. Fields in the order the
        SDK's `create` sends them, so the bytes are the old path's exactly."""
        items: list[str] = []
        for index, message in enumerate(request.messages):
            items.extend(self._messages.get(message, slot=index))
        fields: list[tuple[str, Any]] = [("model", self.endpoint.model), ("stream", stream)]
        if include:
            fields.append(("include", list(_INCLUDE)))
        fields += [("input", JsonArray(items)), ("instructions", request.system), ("store", False)]
        if request.tools and self.endpoint.supports_tools:
            tools = [self._tools.get(t) for t in request.tools]
            fields.append(("tools", JsonArray(tools)))
        self._messages.next_request()
        self._tools.next_request()
        return encode_object(fields)

    @staticmethod
    def _tool(t: ToolSpec) -> dict[str, Any]:
        return {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.parameters,
            "strict": False,
        }

    def _content(self, parts: list[Part]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for p in parts:
            if isinstance(p, Text):
                out.append({"type": "input_text", "text": p.text})
            elif isinstance(p, Image):
                if self.endpoint.supports_images:
                    out.append({"type": "input_image", "image_url": data_url(p)})
                else:
                    out.append({"type": "input_text", "text": NO_VISION_PLACEHOLDER})
        return out

    def _items(self, message: Message) -> list[dict[str, Any]]:
        if message.role == "user":
            results, trailing = split_user_turn(message)
            out: list[dict[str, Any]] = [
                {"type": "function_call_output", "call_id": r.call_id, "output": r.text} for r in results
            ]
            if trailing:
                out.append({"role": "user", "content": self._content(trailing)})
            return out
        out = []
        for p in own_thinking(message, self.endpoint):
            if p.field == ENCRYPTED and p.data:
                # The server-side id is meaningless with store:false, so it is left out.
                summary = [{"type": "summary_text", "text": p.text}] if p.text else []
                out.append({"type": "reasoning", "summary": summary, "encrypted_content": p.data})
        text = "".join(p.text for p in message.parts if isinstance(p, Text))
        if text:
            out.append({"role": "assistant", "content": text})
        for part in message.parts:
            if isinstance(part, ToolCall):
                out.append(
                    {"type": "function_call", "call_id": part.id, "name": part.name, "arguments": arguments_text(part)}
                )
        return out


class OpenAIResponsesModel(EndpointModel):
    kind = "openai-responses"

    def __init__(
        self, endpoint: Endpoint, client: openai.AsyncOpenAI | None = None, *, legacy_request: bool = False
    ) -> None:
        """`legacy_request`: build the body afresh and hand it to the SDK's `create`, which
        walks it again (the old path, kept to measure against and to prove the bytes equal).
        Without a `client` (an SDK client someone made) the request goes over our own HTTP
        client, and the SDK is never imported (mika.model.adapters.http_call says why)."""
        super().__init__(endpoint)
        self.builder = ResponsesRequestBuilder(endpoint)
        self.legacy_request = legacy_request
        # Some compatible servers refuse `include`; once told, we stop sending it.
        self._include = True
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

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        try:
            async for event in self._attempt(request):
                yield event
        except ModelError as err:
            if not (self._include and err.kind is ModelErrorKind.BAD_REQUEST and "include" in err.detail.lower()):
                raise
            self._include = False
            async for event in self._attempt(request):
                yield event

    def _attempt(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        if self._http is not None:
            include = self._include
            return http_events(
                self._http,
                self.endpoint.base_url.rstrip("/") + "/responses",
                lambda streaming: self.builder.encoded(request, stream=streaming, include=include),
                request,
                self.endpoint,
                whole=self._from_response,
                pieces=self._from_stream,
                needs="output",
            )
        return sdk_events(
            lambda streaming, headers: self._send(request, streaming, headers),
            request,
            self.endpoint,
            whole=self._from_response,
            pieces=self._from_stream,
            needs="output",
        )

    async def _send(self, request: ModelRequest, streaming: bool, headers: dict[str, str]) -> Any:
        if self.legacy_request:
            create: Callable[..., Awaitable[Any]] = self._client.responses.create
            return await create(
                **self.builder.body(request, include=self._include), stream=streaming, extra_headers=headers
            )
        import openai
        from openai.types.responses import Response, ResponseStreamEvent

        # The SDK's documented call for a prepared body: same client, auth, stream and errors.
        return await self._client.post(
            "/responses",
            content=self.builder.encoded(request, stream=streaming, include=self._include),
            cast_to=Response,
            stream=streaming,
            stream_cls=openai.AsyncStream[ResponseStreamEvent],
            # As `create` sets them: our headers, the client's API key as the bearer token.
            options={"headers": headers, "security": {"bearer_auth": True}},
        )

    async def _from_stream(self, stream: Any) -> AsyncIterator[StreamEvent]:
        # What streamed in, for servers whose final response carries an empty `output`.
        calls = ToolCallAssembler()
        streamed_items: dict[int, dict[str, Any]] = {}
        text: list[str] = []
        async for data in stream:
            kind = data.get("type", "")
            if kind == "response.output_text.delta":
                text.append(data.get("delta") or "")
                yield TextDelta(data.get("delta") or "")
            elif kind == "response.output_item.done":
                item = data.get("item") or {}
                index = int(data.get("output_index") or len(streamed_items))
                streamed_items[index] = item
                if item.get("type") == "function_call" and isinstance(item.get("arguments"), str):
                    calls.replace_arguments(index, item["arguments"])
            elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
                yield ThinkingDelta(data.get("delta") or "")
            elif kind == "response.output_item.added":
                item = data.get("item") or {}
                if item.get("type") == "function_call":
                    index = int(data.get("output_index") or 0)
                    yield calls.add(index, id=item.get("call_id"), name=item.get("name"))
            elif kind == "response.function_call_arguments.delta":
                index = int(data.get("output_index") or 0)
                yield calls.add(index, arguments=data.get("delta") or "")
            elif kind == "response.function_call_arguments.done" and isinstance(data.get("arguments"), str):
                # The whole text, sent once at the end: it wins over the deltas, which a
                # proxy may have dropped or repeated.
                calls.replace_arguments(int(data.get("output_index") or 0), data["arguments"])
            elif kind in ("response.completed", "response.incomplete"):
                final = dict(data.get("response") or {})
                if not final.get("output") and (streamed_items or text or calls):
                    # A call whose output_item.done never came is rebuilt from what streamed.
                    for index, call in calls.by_index().items():
                        streamed_items.setdefault(
                            index,
                            {
                                "type": "function_call",
                                "call_id": call.id,
                                "name": call.name,
                                "arguments": call.raw_arguments or "",
                            },
                        )
                    items = [streamed_items[i] for i in sorted(streamed_items)]
                    if text and not any(i.get("type") == "message" for i in items):
                        items.insert(
                            0, {"type": "message", "content": [{"type": "output_text", "text": "".join(text)}]}
                        )
                    final["output"] = items
                async for out in self._from_response(final, emit=False):
                    yield out
                return
            elif kind in ("response.failed", "error"):
                err = (data.get("response") or {}).get("error") or data.get("error") or data
                raise classify_http(None, {"error": err}, None, provider=self.provider, model=self.name)
        raise ModelError(
            ModelErrorKind.STREAM_INCOMPLETE, "the stream ended before response.completed", provider=self.provider
        )

    async def _from_response(self, response: dict[str, Any], *, emit: bool = True) -> AsyncIterator[StreamEvent]:
        """The final response object holds the whole reply; streaming only previewed it."""
        parts: list[Part] = []
        text: list[str] = []
        calls = ToolCallAssembler()
        for index, item in enumerate(response.get("output") or []):
            kind = item.get("type")
            if kind == "reasoning":
                summary = "".join(s.get("text", "") for s in item.get("summary") or [])
                if item.get("encrypted_content") or summary:
                    parts.append(
                        Thinking(
                            summary, origin=self.endpoint.origin, field=ENCRYPTED, data=item.get("encrypted_content")
                        )
                    )
                    if emit and summary:
                        yield ThinkingDelta(summary)
            elif kind == "message":
                for c in item.get("content") or []:
                    if c.get("type") == "output_text" and c.get("text"):
                        text.append(c["text"])
                        if emit:
                            yield TextDelta(c["text"])
            elif kind == "function_call":
                piece = calls.add(
                    index, id=item.get("call_id"), name=item.get("name"), arguments=item.get("arguments") or ""
                )
                if emit:
                    yield piece
        if text:
            parts.append(Text("".join(text)))
        tool_calls = calls.finish()
        parts.extend(tool_calls)
        status = response.get("status")
        reason = ((response.get("incomplete_details") or {}).get("reason")) or ""
        stop: StopReason
        if status == "incomplete":
            stop = "max_tokens" if reason == "max_output_tokens" else "other"
        else:
            stop = "tool_calls" if tool_calls else "end"
        yield Done(
            ModelResponse(
                Message("assistant", tuple(parts)),
                usage_of(response.get("usage")),
                stop,
                response.get("model") or self.name,
                self.provider,
            )
        )
