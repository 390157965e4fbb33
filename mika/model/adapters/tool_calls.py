"""Assemble tool calls from streamed pieces, keyed by the provider's index."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mika.model.base import ToolCallDelta
from mika.model.messages import ToolCall


def parse_arguments(raw: str) -> dict[str, Any]:
    """The arguments object; text that is not a JSON object gives {} (raw text is kept
    on the call, so the dispatcher can report the malformed arguments to the model)."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def arguments_json(arguments: Any) -> str:
    """Arguments as compact JSON, for providers that hand over an object, not text."""
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def arguments_text(call: ToolCall) -> str:
    """The arguments as they were received when we have that text, so a reply goes back unchanged."""
    if call.raw_arguments is not None:
        return call.raw_arguments
    return arguments_json(call.arguments)


@dataclass
class _Pending:
    id: str = ""
    name: str = ""
    raw: str = ""
    provider_data: dict[str, Any] = field(default_factory=dict)


class ToolCallAssembler:
    def __init__(self) -> None:
        self._calls: dict[int, _Pending] = {}

    def add(
        self,
        index: int,
        *,
        id: str | None = None,
        name: str | None = None,
        arguments: str = "",
        provider_data: dict[str, Any] | None = None,
    ) -> ToolCallDelta:
        """Keep one piece of the call at `index`; returns the delta that announces it."""
        call = self._calls.setdefault(index, _Pending())
        # Some servers repeat id and name on every piece; they name the call, never extend it.
        if id:
            call.id = id
        if name:
            call.name = name
        call.raw += arguments
        if provider_data:
            call.provider_data.update(provider_data)
        return ToolCallDelta(index, id, name, arguments)

    def replace_arguments(self, index: int, raw: str) -> None:
        """A provider's final 'arguments done' text is authoritative."""
        self._calls.setdefault(index, _Pending()).raw = raw

    def __bool__(self) -> bool:
        return bool(self._calls)

    def by_index(self) -> dict[int, ToolCall]:
        """The calls so far, keyed by the provider's index (for a final reply built from the stream)."""
        out = {}
        for n, index in enumerate(sorted(self._calls)):
            c = self._calls[index]
            out[index] = ToolCall(
                id=c.id or f"call_{n}",
                name=c.name,
                arguments=parse_arguments(c.raw),
                raw_arguments=c.raw,
                provider_data=dict(c.provider_data),
            )
        return out

    def finish(self) -> list[ToolCall]:
        return list(self.by_index().values())
