"""A real call that proves a provider and model work for Mika: offer one parameterless
tool `get_time` and see whether the model calls it (20 s limit, up to 3 candidates)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mika.model.base import Model, complete
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.messages import NO_USAGE, Message, ModelRequest, ToolSpec, Usage
from mika.resources import prompt

PROBE_TIMEOUT = 20.0
PROBE_CANDIDATES = 3
# Enough for one tool call plus the thinking of a model that thinks first.
PROBE_MAX_TOKENS = 1024
# The model itself can't do it: the next candidate may.
MODEL_PROBLEMS = frozenset(
    {ModelErrorKind.MODEL_UNAVAILABLE, ModelErrorKind.MODEL_NOT_FOUND, ModelErrorKind.TOOLS_UNSUPPORTED}
)

TOOL_CALLED = "tool_called"
NO_TOOL_CALL = "no_tool_call"
ERROR = "error"


def probe_request() -> ModelRequest:
    tool = ToolSpec("get_time", prompt("models/get_time.md"), {"type": "object", "properties": {}})
    return ModelRequest(
        system=prompt("models/probe_system.md"),
        messages=(Message.user(prompt("models/probe_user.md")),),
        tools=(tool,),
        max_output_tokens=PROBE_MAX_TOKENS,
        conversation_id=None,  # outside any conversation: a fresh session id
        purpose="probe",
    )


@dataclass(frozen=True)
class ProbeAttempt:
    provider: str
    model: str
    outcome: str  # tool_called | no_tool_call | error
    text: str = ""
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    usage: Usage = NO_USAGE
    latency_ms: int = 0
    error: ModelError | None = None

    @property
    def ok(self) -> bool:
        return self.outcome == TOOL_CALLED

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "outcome": self.outcome if self.error is None else self.error.kind.value,
            "provider": self.provider,
            "model": self.model,
            "text": self.text,
            "tool_calls": [{"name": n, "arguments": a} for n, a in self.tool_calls],
            "usage": {
                "input": self.usage.input_tokens,
                "output": self.usage.output_tokens,
                "cached": self.usage.cached_input_tokens,
            },
            "latency_ms": self.latency_ms,
            "error": None
            if self.error is None
            else {
                "kind": self.error.kind.value,
                "message": self.error.sentence,
                "server": self.error.detail,
                "status": self.error.status,
            },
        }


@dataclass(frozen=True)
class ProbeResult:
    attempts: tuple[ProbeAttempt, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> ProbeAttempt | None:
        return next((a for a in self.attempts if a.ok), None)

    @property
    def last(self) -> ProbeAttempt | None:
        return self.attempts[-1] if self.attempts else None


async def probe_model(model: Model, timeout: float = PROBE_TIMEOUT) -> ProbeAttempt:
    started = time.monotonic()

    def took() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        response = await asyncio.wait_for(complete(model, probe_request()), timeout)
    except TimeoutError:
        # Our own limit, not the network's: the user needs to hear that, and what to do.
        err = ModelError(ModelErrorKind.PROBE_TIMEOUT, provider=model.provider, seconds=timeout)
        return ProbeAttempt(model.provider, model.name, ERROR, latency_ms=took(), error=err)
    except ModelError as err:
        return ProbeAttempt(model.provider, model.name, ERROR, latency_ms=took(), error=err)
    calls = tuple((c.name, c.arguments) for c in response.message.tool_calls)
    outcome = TOOL_CALLED if calls else NO_TOOL_CALL
    return ProbeAttempt(model.provider, model.name, outcome, response.message.text, calls, response.usage, took())


async def probe(
    make_model: Callable[[str], Model],
    candidates: list[str],
    *,
    limit: int = PROBE_CANDIDATES,
    timeout: float = PROBE_TIMEOUT,
) -> ProbeResult:
    """Try candidates in order until one calls the tool. A model-specific failure (only
    text, no access, not found, no tools) moves on; anything else (key, network,
    address, timeout, server) stops, since the next model would fail the same way."""
    attempts: list[ProbeAttempt] = []
    for name in candidates[:limit]:
        attempt = await probe_model(make_model(name), timeout)
        attempts.append(attempt)
        if attempt.ok:
            break
        if attempt.error is not None and attempt.error.kind not in MODEL_PROBLEMS:
            break
    return ProbeResult(tuple(attempts))
