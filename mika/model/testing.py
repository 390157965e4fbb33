"""Test doubles of `Model` for tests, demos and benchmarks.

`ScriptedModel` plays back a list of replies in order; `FunctionModel` computes each reply
from the request. Both stream like a real adapter (text in pieces, tool calls as deltas,
usage at the end) and keep every request they saw, so tests can assert on what the loop
sent. They are part of the package (not tests/) so users' own tests and `--model test`
can use them.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mika.model.base import Done, StreamEvent, TextDelta, ThinkingDelta, ToolCallDelta
from mika.model.errors import ModelError
from mika.model.messages import (
    Message,
    ModelRequest,
    ModelResponse,
    Part,
    Text,
    Thinking,
    ToolCall,
    Usage,
)


@dataclass(frozen=True)
class Reply:
    """One scripted model reply."""

    text: str = ""
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    thinking: str = ""
    usage: Usage | None = None
    # Seconds to stall before the reply (lets tests steer or cancel mid-request).
    delay: float = 0.0
    error: ModelError | None = None
    stop_reason: str | None = None

    @staticmethod
    def call(name: str, **arguments: Any) -> Reply:
        return Reply(tool_calls=((name, arguments),))

    @staticmethod
    def calls(*calls: tuple[str, dict[str, Any]], text: str = "") -> Reply:
        return Reply(text=text, tool_calls=tuple(calls))


def estimate_tokens(request: ModelRequest) -> int:
    """A rough, deterministic input size: 1 token per 4 chars of everything sent."""
    size = len(request.system)
    for t in request.tools:
        size += len(t.name) + len(t.description) + len(json.dumps(t.parameters))
    for m in request.messages:
        for p in m.parts:
            size += len(getattr(p, "text", "") or "")
            if isinstance(p, ToolCall):
                size += len(json.dumps(p.arguments, ensure_ascii=False))
    return max(1, size // 4)


_call_ids = itertools.count(1)


async def _stream_reply(reply: Reply, request: ModelRequest, provider: str, name: str) -> AsyncIterator[StreamEvent]:
    if reply.delay:
        await asyncio.sleep(reply.delay)
    if reply.error is not None:
        raise reply.error
    parts: list[Part] = []
    if reply.thinking:
        yield ThinkingDelta(reply.thinking)
        parts.append(Thinking(reply.thinking, origin=f"{provider}/{name}", field="thinking"))
    if reply.text:
        # Stream in a few pieces, as real providers do.
        step = max(1, len(reply.text) // 3)
        for i in range(0, len(reply.text), step):
            yield TextDelta(reply.text[i : i + step])
            await asyncio.sleep(0)
        parts.append(Text(reply.text))
    for index, (tool, args) in enumerate(reply.tool_calls):
        call_id = f"call_{next(_call_ids)}"
        raw = json.dumps(args, ensure_ascii=False)
        yield ToolCallDelta(index, id=call_id, name=tool, arguments_delta=raw)
        parts.append(ToolCall(call_id, tool, dict(args), raw_arguments=raw))
    usage = reply.usage or Usage(
        input_tokens=estimate_tokens(request),
        output_tokens=max(1, (len(reply.text) + sum(len(str(a)) for _, a in reply.tool_calls)) // 4),
    )
    stop = reply.stop_reason or ("tool_calls" if reply.tool_calls else "end")
    yield Done(ModelResponse(Message("assistant", tuple(parts)), usage, stop, name, provider))  # type: ignore[arg-type]


@dataclass
class ScriptedModel:
    """Plays `replies` in order; running past the end is a test failure, said clearly."""

    replies: Sequence[Reply | str]
    provider: str = "test"
    name: str = "scripted"
    context_window: int = 128_000
    supports_images: bool = True
    requests: list[ModelRequest] = field(default_factory=list)
    _next: int = 0

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        if self._next >= len(self.replies):
            raise AssertionError(
                f"ScriptedModel ran out of replies after {len(self.replies)}; "
                f"last request ended with: {request.messages[-1].text[:200] if request.messages else ''!r}"
            )
        reply = self.replies[self._next]
        self._next += 1
        if isinstance(reply, str):
            reply = Reply(text=reply)
        return _stream_reply(reply, request, self.provider, self.name)

    @property
    def remaining(self) -> int:
        return len(self.replies) - self._next


ReplyFn = Callable[[ModelRequest], Reply | str | Awaitable[Reply | str]]


@dataclass
class FunctionModel:
    """Computes each reply with `fn(request)` (sync or async)."""

    fn: ReplyFn
    provider: str = "test"
    name: str = "function"
    context_window: int = 128_000
    supports_images: bool = True
    requests: list[ModelRequest] = field(default_factory=list)

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)

        async def run() -> AsyncIterator[StreamEvent]:
            reply = self.fn(request)
            if inspect.isawaitable(reply):
                reply = await reply
            if isinstance(reply, str):
                reply = Reply(text=reply)
            async for event in _stream_reply(reply, request, self.provider, self.name):
                yield event

        return run()


def last_tool_results(request: ModelRequest) -> list[str]:
    """The tool result texts at the end of a request (handy inside FunctionModel fns)."""
    if not request.messages:
        return []
    return [r.text for r in request.messages[-1].tool_results]
