"""`metered()` wraps every model handed out, so every call is counted exactly once.

The count goes to a `UsageBook`: anything with `record(provider, model, purpose, usage)`,
in practice `mika.usage.ledger.UsageLedger`. The model layer names only this protocol, so
it never imports `mika.usage` (which sits above it and stores the neutral `Usage`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from mika.model.base import Done, Model, StreamEvent
from mika.model.messages import NO_USAGE, ModelRequest, Usage


class UsageBook(Protocol):
    def record(self, provider: str, model: str, purpose: str, usage: Usage) -> None: ...


class MeteredModel:
    """Same name and capabilities as the model inside; errors pass through unchanged."""

    def __init__(self, inner: Model, ledger: UsageBook, purpose_default: str) -> None:
        self.inner = inner
        self.ledger = ledger
        self.purpose_default = purpose_default
        self.provider = inner.provider
        self.name = inner.name
        self.context_window = inner.context_window
        self.supports_images = inner.supports_images

    def prepare(self) -> None:
        """Build the client of the model inside now (its SDK loads at first use otherwise)."""
        prepare = getattr(self.inner, "prepare", None)
        if prepare is not None:
            prepare()

    def purpose_of(self, request: ModelRequest) -> str:
        # A side call says what it is for (judge, memory…); a plain call is booked under the
        # role the model was handed out for (a "use main" vision call counts as vision).
        return request.purpose if request.purpose and request.purpose != "main" else self.purpose_default

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        purpose = self.purpose_of(request)
        counted = False
        try:
            async for event in self.inner.stream(request):
                if isinstance(event, Done) and not counted:
                    counted = True
                    self.ledger.record(self.provider, self.name, purpose, event.response.usage)
                yield event
        finally:
            if not counted:
                # Failed, cancelled or abandoned: one call, tokens unknown (never estimated).
                self.ledger.record(self.provider, self.name, purpose, NO_USAGE)

    def __repr__(self) -> str:
        return f"metered({self.provider}/{self.name}, {self.purpose_default})"


def metered(model: Model, ledger: UsageBook, purpose_default: str) -> Model:
    if isinstance(model, MeteredModel):
        return model  # already counted at the source; wrapping twice would count twice
    return MeteredModel(model, ledger, purpose_default)
