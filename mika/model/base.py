"""The `Model` protocol: one streaming call over neutral messages."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from mika.model.messages import ModelRequest, ModelResponse


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    text: str


@dataclass(frozen=True)
class ToolCallDelta:
    """A piece of a tool call as it streams in; `index` orders calls within a reply."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments_delta: str = ""


@dataclass(frozen=True)
class Done:
    """Always the last event of a successful stream."""

    response: ModelResponse


StreamEvent = TextDelta | ThinkingDelta | ToolCallDelta | Done


@runtime_checkable
class Model(Protocol):
    """A model at one provider address.

    `stream` yields deltas and ends with exactly one `Done`; failures raise
    `mika.model.errors.ModelError`. Cancelling the consuming task cancels the request.
    """

    # Read-only to the caller: an adapter may keep them as plain attributes, a wrapper
    # (metering, the light model's fallback) as properties that forward.
    @property
    def provider(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def context_window(self) -> int: ...
    @property
    def supports_images(self) -> bool: ...

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...


async def complete(model: Model, request: ModelRequest) -> ModelResponse:
    """Run a request to the end and return the response (for side calls)."""
    final: ModelResponse | None = None
    async for event in model.stream(request):
        if isinstance(event, Done):
            final = event.response
    if final is None:
        from mika.model.errors import ModelError, ModelErrorKind

        raise ModelError(ModelErrorKind.STREAM_INCOMPLETE, "the reply ended before it was complete")
    return final
