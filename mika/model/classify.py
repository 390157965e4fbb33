"""Turn a provider's error response into a `ModelError` of the right kind.

Status codes decide most cases; the phrases below (seed: ModelAccessErrors) catch the
answers that say "this model can't do it for you" behind a generic 400/403/404, in
English and Chinese, so a probe can move on to the next candidate model.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from typing import Any

from mika.model.errors import ModelError, ModelErrorKind

TOOLS_UNSUPPORTED_PHRASES = (
    "does not support tools",
    "does not support tool",
    "tools is not supported",
    "tools are not supported",
    "tool use is not supported",
    "tool calling is not supported",
    "function calling is not supported",
    "does not support function calling",
    "tool_choice is not supported",
    "不支持工具",
    "不支持函数调用",
    "不支持 function call",
)
UNAVAILABLE_PHRASES = (
    "not activated",
    "not authorized to access this model",
    "does not have access to the model",
    "do not have access to the model",
    "not have access to model",
    "model.accessdenied",
    "access to this model is not allowed",
    "not available on your plan",
    "not available for your account",
    "未开通",
    "无权限",
    "没有权限",
    "无访问权限",
)
NOT_FOUND_PHRASES = (
    "model_not_found",
    "model not exist",
    "model does not exist",
    "model not found",
    "no such model",
    "unknown model",
    "invalid model",
    "模型不存在",
    "模型未找到",
)
CONTEXT_PHRASES = (
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "prompt is too long",
    "input is too long",
    "too many input tokens",
    "request_too_large",
    "上下文长度",
    "超出最大长度",
    "超过最大长度",
)

# Anthropic (and some others) name the error in `error.type`; these win over the status
# because in-stream errors arrive on an HTTP 200.
_TYPE_KINDS = {
    "overloaded_error": ModelErrorKind.OVERLOADED,
    "rate_limit_error": ModelErrorKind.RATE_LIMITED,
    "rate_limit_exceeded": ModelErrorKind.RATE_LIMITED,
    "insufficient_quota": ModelErrorKind.RATE_LIMITED,
    "api_error": ModelErrorKind.SERVER,
    "server_error": ModelErrorKind.SERVER,
    "authentication_error": ModelErrorKind.AUTH,
    "invalid_api_key": ModelErrorKind.AUTH,
    "permission_error": ModelErrorKind.AUTH,
    "not_found_error": ModelErrorKind.MODEL_NOT_FOUND,
    "model_not_found": ModelErrorKind.MODEL_NOT_FOUND,
    "request_too_large": ModelErrorKind.CONTEXT_OVERFLOW,
    "context_length_exceeded": ModelErrorKind.CONTEXT_OVERFLOW,
    "invalid_request_error": ModelErrorKind.BAD_REQUEST,
}


def _error_object(body: Any) -> dict[str, Any]:
    """The innermost error object, whichever wrapper the provider used."""
    if isinstance(body, list) and body:
        body = body[0]
    if isinstance(body, (str, bytes)):
        try:
            body = json.loads(body)
        except (ValueError, TypeError):
            return {}
    if not isinstance(body, dict):
        return {}
    inner = body.get("error")
    if isinstance(inner, dict):
        return inner
    return body


def server_words(body: Any) -> str:
    """The provider's own explanation, to show after our sentence."""
    err = _error_object(body)
    message = err.get("message") if err else None
    if not message and isinstance(body, (str, bytes)):
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        return text.strip()[:500]
    words = str(message or "").strip()
    # OpenRouter puts the upstream's real words in metadata.raw.
    meta = err.get("metadata") if err else None
    if isinstance(meta, dict) and isinstance(meta.get("raw"), str):
        raw = meta["raw"].strip()
        words = f"{words}: {raw}" if words and raw not in words else raw
    return words[:500]


def _error_type(body: Any) -> str:
    err = _error_object(body)
    for key in ("type", "code", "status"):
        value = err.get(key)
        if isinstance(value, str) and value:
            return value.lower()
    return ""


def retry_after_seconds(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """`retry-after-ms`, then `retry-after` in seconds or as an HTTP date."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _has(text: str, phrases: tuple[str, ...]) -> bool:
    return any(p in text for p in phrases)


def classify_kind(status: int | None, body: Any) -> ModelErrorKind:
    words = server_words(body).lower()
    etype = _error_type(body)
    haystack = f"{etype} {words}"
    if status == 401:
        return ModelErrorKind.AUTH
    if status in (400, 403, 404, None, 200, 422):
        # Model-specific answers first: they decide whether a probe tries the next model.
        if _has(haystack, TOOLS_UNSUPPORTED_PHRASES):
            return ModelErrorKind.TOOLS_UNSUPPORTED
        if _has(haystack, UNAVAILABLE_PHRASES):
            return ModelErrorKind.MODEL_UNAVAILABLE
        if status != 404 and _has(haystack, NOT_FOUND_PHRASES):
            return ModelErrorKind.MODEL_NOT_FOUND
        if _has(haystack, CONTEXT_PHRASES):
            return ModelErrorKind.CONTEXT_OVERFLOW
    if status == 404:
        return ModelErrorKind.MODEL_NOT_FOUND
    if status == 413:
        return ModelErrorKind.CONTEXT_OVERFLOW
    if etype in _TYPE_KINDS and (status is None or status in (200, 400, 403, 429) or status >= 500):
        kind = _TYPE_KINDS[etype]
        if not (kind is ModelErrorKind.BAD_REQUEST and status is not None and status >= 500):
            return kind
    if status == 429:
        return ModelErrorKind.RATE_LIMITED
    if status in (503, 529):
        return ModelErrorKind.OVERLOADED
    if status is not None and status >= 500:
        return ModelErrorKind.SERVER
    if status == 403:
        return ModelErrorKind.AUTH
    if status is None or status == 200:
        # An error event inside a stream with nothing recognisable: the provider failed.
        return ModelErrorKind.SERVER
    return ModelErrorKind.BAD_REQUEST


def classify_http(
    status: int | None,
    body: Any,
    headers: Mapping[str, str] | None = None,
    *,
    provider: str = "",
    model: str = "",
) -> ModelError:
    kind = classify_kind(status, body)
    detail = server_words(body)
    if kind is ModelErrorKind.MODEL_NOT_FOUND and model and model not in detail:
        detail = f"{model}: {detail}" if detail else model
    return ModelError(
        kind,
        detail,
        status=status,
        retry_after=retry_after_seconds(headers) if kind is not ModelErrorKind.AUTH else None,
        provider=provider,
    )
