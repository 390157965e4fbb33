"""A Model for freezing the app mid-run: it streams some text, then waits until released.

The package's ScriptedModel/FunctionModel return whole replies; a snapshot of a half
streamed answer needs a stream that stops halfway, so this one yields the first pieces
and then awaits `release` (an asyncio.Event) before finishing like a real adapter.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from mika.model.base import Done, StreamEvent, TextDelta
from mika.model.messages import Message, ModelRequest, ModelResponse, Text, Usage


@dataclass
class HoldingModel:
    pieces: tuple[str, ...] = ()
    rest: str = ""
    provider: str = "test"
    name: str = "holding"
    context_window: int = 128_000
    supports_images: bool = True
    release: asyncio.Event = field(default_factory=asyncio.Event)
    requests: list[ModelRequest] = field(default_factory=list)
    streaming: bool = False
    # Requests after the held one (the stop summary, for instance) are answered at once.
    after: str = "I opened the cart and tapped Checkout; the order was not placed."

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)

        held_already = self.streaming

        async def run() -> AsyncIterator[StreamEvent]:
            if held_already:
                yield TextDelta(self.after)
                yield Done(
                    ModelResponse(
                        Message("assistant", (Text(self.after),)),
                        Usage(input_tokens=50, output_tokens=10),
                        "end",
                        self.name,
                        self.provider,
                    )
                )
                return
            for piece in self.pieces:
                yield TextDelta(piece)
            self.streaming = True
            await self.release.wait()
            if self.rest:
                yield TextDelta(self.rest)
            text = "".join(self.pieces) + self.rest
            yield Done(
                ModelResponse(
                    Message("assistant", (Text(text),)),
                    Usage(input_tokens=100, output_tokens=20),
                    "end",
                    self.name,
                    self.provider,
                )
            )

        return run()
