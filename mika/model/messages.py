"""The one vocabulary between the core and every model provider.

Each adapter maps these neutral types to its protocol and back and knows nothing else;
the loop, context builder and records speak only this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Image:
    data: bytes
    mime: str = "image/png"
    # Where the image came from (an observation id), so records can point at the frame
    # without storing the bytes twice.
    ref: str | None = None


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    # The argument text exactly as streamed, kept so a request can be replayed
    # byte-identically (prefix caching) even when the JSON had odd spacing.
    raw_arguments: str | None = None
    # Provider data that must travel back with this call (Gemini's thoughtSignature).
    provider_data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolResult:
    call_id: str
    name: str
    text: str
    image: Image | None = None
    is_error: bool = False


@dataclass(frozen=True)
class Thinking:
    """Reasoning a model returned.

    It is sent back only to the same `origin` (provider address + model) and in the same
    `field` it arrived in; any other model gets nothing of it.
    """

    text: str
    origin: str
    field: str  # reasoning_content | reasoning | thinking | redacted_thinking | encrypted | thought
    signature: str | None = None
    # Opaque provider payload (Responses encrypted_content, Anthropic redacted data).
    data: str | None = None


Part = Text | Image | ToolCall | ToolResult | Thinking
Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    parts: tuple[Part, ...]

    @staticmethod
    def user(text: str, *more: Part) -> Message:
        return Message("user", (Text(text), *more))

    @staticmethod
    def assistant(text: str) -> Message:
        return Message("assistant", (Text(text),))

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, Text))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCall))

    @property
    def tool_results(self) -> tuple[ToolResult, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolResult))


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    # Input tokens served from the provider's prompt cache (part of input_tokens).
    cached_input_tokens: int = 0
    # Input tokens written to the cache (Anthropic cache_creation_input_tokens).
    cache_write_tokens: int = 0
    # False when the provider reported no usage at all for the call.
    reported: bool = True

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reported and other.reported,
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "input": self.input_tokens,
            "output": self.output_tokens,
            "cached": self.cached_input_tokens,
            "cache_write": self.cache_write_tokens,
        }


NO_USAGE = Usage(reported=False)


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: name, description and JSON schema of parameters."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ModelRequest:
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_output_tokens: int | None = None
    # Indexes into `messages` after which the stable prefix ends a zone (the opening
    # context); adapters with explicit prompt caching put a breakpoint there.
    cache_marks: tuple[int, ...] = ()
    # Conversation the call belongs to (for providers' session headers); None for calls
    # outside a conversation.
    conversation_id: str | None = None
    # What the call is for: main, judge, summary, intent, memory, probe, describe.
    purpose: str = "main"


StopReason = Literal["end", "tool_calls", "max_tokens", "other"]


@dataclass(frozen=True)
class ModelResponse:
    message: Message
    usage: Usage
    stop_reason: StopReason
    model: str
    provider: str = ""
