"""What can go wrong talking to a model, each with a sentence for the user."""

from __future__ import annotations

import enum


class ModelErrorKind(enum.Enum):
    AUTH = "auth"
    RATE_LIMITED = "rate_limited"
    OVERLOADED = "overloaded"
    SERVER = "server"
    CONTEXT_OVERFLOW = "context_overflow"
    MODEL_NOT_FOUND = "model_not_found"
    MODEL_UNAVAILABLE = "model_unavailable"
    TOOLS_UNSUPPORTED = "tools_unsupported"
    BAD_REQUEST = "bad_request"
    NETWORK = "network"
    STREAM_INCOMPLETE = "stream_incomplete"


_SENTENCES = {
    ModelErrorKind.AUTH: "The provider rejected the API key. Check the key in your config.",
    ModelErrorKind.RATE_LIMITED: "The provider is rate limiting requests. Wait a moment and try again.",
    ModelErrorKind.OVERLOADED: "The provider is overloaded right now. Try again shortly.",
    ModelErrorKind.SERVER: "The provider had a server error. Try again shortly.",
    ModelErrorKind.CONTEXT_OVERFLOW: "The conversation is longer than the model's context window.",
    ModelErrorKind.MODEL_NOT_FOUND: "The provider does not know this model. Check the model name.",
    ModelErrorKind.MODEL_UNAVAILABLE: "This model is not available to your account or plan.",
    ModelErrorKind.TOOLS_UNSUPPORTED: "This model does not support tool calls; Mika needs a model that does.",
    ModelErrorKind.BAD_REQUEST: "The provider rejected the request as malformed.",
    ModelErrorKind.NETWORK: "Could not reach the provider. Check your network connection.",
    ModelErrorKind.STREAM_INCOMPLETE: "The model's reply was cut off before it finished.",
}

RETRYABLE = frozenset(
    {
        ModelErrorKind.RATE_LIMITED,
        ModelErrorKind.OVERLOADED,
        ModelErrorKind.SERVER,
        ModelErrorKind.NETWORK,
        ModelErrorKind.STREAM_INCOMPLETE,
    }
)


class ModelError(Exception):
    def __init__(
        self,
        kind: ModelErrorKind,
        detail: str = "",
        *,
        status: int | None = None,
        retry_after: float | None = None,
        provider: str = "",
    ) -> None:
        super().__init__(detail or _SENTENCES[kind])
        self.kind = kind
        # The server's own words, shown after the sentence so the user can act on it.
        self.detail = detail
        self.status = status
        self.retry_after = retry_after
        self.provider = provider

    @property
    def sentence(self) -> str:
        return _SENTENCES[self.kind]

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE

    def user_message(self) -> str:
        if self.detail and self.detail != self.sentence:
            return f"{self.sentence} ({self.detail})"
        return self.sentence
