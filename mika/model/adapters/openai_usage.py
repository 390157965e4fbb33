"""Token counts as OpenAI's two APIs report them: the same three numbers under other names."""

from __future__ import annotations

from typing import Any

from mika.model.messages import NO_USAGE, Usage


def openai_usage(raw: Any, *, input_key: str, output_key: str, details_key: str) -> Usage:
    """`input_key` counts cached tokens too; the cached share is `cached_tokens` in `details_key`."""
    if not isinstance(raw, dict):
        return NO_USAGE
    details = raw.get(details_key) or {}
    return Usage(
        input_tokens=int(raw.get(input_key) or 0),
        output_tokens=int(raw.get(output_key) or 0),
        cached_input_tokens=int(details.get("cached_tokens") or 0),
    )
