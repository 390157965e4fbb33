"""How much time the adapters add per call, and whether building a request grows with the
history. Run:

    uv run python benchmarks/model_adapters.py [N]

1. Whole calls: each real streaming recording is replayed N times over loopback (no
   delay) through its adapter, the old request path beside the new.
2. Request building along a run: a run of 120 messages is played step by step, each
   request made as the agent's context makes it (the same history objects as the request
   before plus the new reply and result, older screenshots turned into a line of text). Build time is from the call to the moment the HTTP client is
   handed the finished request (its `request` event hook), so it holds everything our
   code and the SDK do before a byte is sent; the request then stops there. Beside it:
   the old path (body rebuilt and handed to the SDK's `create`, `legacy_request=True`) and
   a `json.dumps` of the same body, all measured in this run.
   Target (issue 16, 4): at step 40 within 2 ms of step 1, for every adapter.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "models"))

import anthropic
import httpx
import httpx2
import openai
from adapters_kit import adapter, ask
from long_history import as_sent, history
from replay_server import ReplayServer, Reply

from mika.model.adapters import build_adapter
from mika.model.adapters.anthropic import AnthropicModel
from mika.model.adapters.client_options import sdk_client_options
from mika.model.adapters.endpoint import Endpoint, strip_version_suffix
from mika.model.adapters.gemini import GeminiModel
from mika.model.adapters.openai_chat import OpenAIChatModel
from mika.model.adapters.openai_responses import OpenAIResponsesModel
from mika.model.base import complete
from mika.model.messages import ModelRequest

RECORDINGS = [
    ("openai-chat", "openai_chat_completions_stream/openai-python__tool_call_stream_2024.sse"),
    ("openai-responses", "openai_responses_stream/pydantic-ai__function_call_stream_usage_details.sse"),
    ("anthropic", "anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse"),
    ("gemini", "gemini_stream/pydantic-ai__functionCall_thought_signature_alt_sse.sse"),
    ("gemini", "gemini_stream/simonw-llm-gemini__functionCall_json_array_stream.json"),
]
KINDS = ["openai-chat", "openai-responses", "anthropic", "gemini"]
# Messages in the request: step 1 (the task alone), 2, 40, step 40 (task + 39 reply/result pairs), 120.
SIZES = [1, 2, 40, 79, 120]
STEP_1, STEP_40 = 1, 79
# Requests on either side of a size that count towards its median (sizes 1 and 2 alone).
WINDOW = 3
TARGET_MS = 2.0


# -- 1. whole calls over loopback


async def bench_call(kind: str, name: str, n: int) -> tuple[list[float], list[float]]:
    """Old and new path, call for call in turn against the same server (paired, so a
    loaded machine slows both alike)."""
    with ReplayServer() as server:
        server.default = Reply.recording(name)
        endpoint = adapter(kind, server.url).endpoint
        models = [build_adapter(kind, endpoint, legacy_request=True), build_adapter(kind, endpoint)]
        times: tuple[list[float], list[float]] = ([], [])
        for model in models:
            await complete(model, ask())  # warm up: imports, connection setup
        for i in range(n):
            pairs = list(zip(models, times, strict=True))
            # Which goes first alternates: the second call of a pair meets the first one's closing connection.
            for model, out in pairs if i % 2 else pairs[::-1]:
                start = time.perf_counter()
                await complete(model, ask())
                out.append((time.perf_counter() - start) * 1000)
        return times


def whole_calls(n: int) -> None:
    print(f"whole calls over loopback, a short request (paired, {n} each)")
    print(f"{'adapter':<18} {'recording':<58} {'old median':>10} {'new median':>10} {'new p95':>8}")
    for kind, name in RECORDINGS:
        old, new = (sorted(t) for t in asyncio.run(bench_call(kind, name, n)))
        p95 = new[int(len(new) * 0.95) - 1]
        print(
            f"{kind:<18} {Path(name).name:<58} {statistics.median(old):>10.2f} {statistics.median(new):>10.2f} {p95:>8.2f}"
        )


# -- 2. request building along a run


class _Sent(Exception):
    """Raised by the request hook: the request is built, nothing more is measured."""


class _Clock:
    def __init__(self) -> None:
        self.at = 0.0
        self.body = b""

    async def hook(self, request: object) -> None:
        self.at = time.perf_counter()
        self.body = request.content  # type: ignore[attr-defined]
        raise _Sent


def _model(kind: str, clock: _Clock, legacy: bool):
    """The adapter as `build_adapter` makes it, with a client whose request hook stops the clock."""
    url = "http://127.0.0.1:9"  # never reached: the hook stops every request first
    endpoint = Endpoint(
        "bench", "bench-model", adapter(kind, url).endpoint.base_url, api_key="sk-b", supports_images=True
    )
    hooks = {"request": [clock.hook]}
    if kind == "gemini":
        return GeminiModel(endpoint, httpx.AsyncClient(event_hooks=hooks), legacy_request=legacy)
    if kind == "anthropic":
        client = anthropic.AsyncAnthropic(
            base_url=strip_version_suffix(endpoint.base_url, "/v1"),
            http_client=httpx2.AsyncClient(event_hooks=hooks),
            **sdk_client_options(endpoint, anthropic.Timeout),
        )
        return AnthropicModel(endpoint, client, legacy_request=legacy)
    client = openai.AsyncOpenAI(
        base_url=endpoint.base_url,
        http_client=httpx2.AsyncClient(event_hooks=hooks),
        **sdk_client_options(endpoint, openai.Timeout),
    )
    cls = OpenAIChatModel if kind == "openai-chat" else OpenAIResponsesModel
    return cls(endpoint, client, legacy_request=legacy)


async def _build_ms(model, clock: _Clock, request: ModelRequest) -> float:
    start = time.perf_counter()
    try:
        await complete(model, request)
    except Exception as exc:  # the SDK wraps the hook's stop in its own error types
        if clock.at < start:
            raise RuntimeError(f"the request failed before it was sent: {exc!r}") from exc
    return (clock.at - start) * 1000


async def _run(kind: str, legacy: bool) -> dict[int, list[tuple[float, int]]]:
    """One run, step by step: build time and body size of each request."""
    clock = _Clock()
    model = _model(kind, clock, legacy)
    messages = history(max(SIZES) + WINDOW, model.endpoint.origin)
    await _build_ms(model, clock, as_sent(messages[:1]))  # warm up
    out: dict[int, list[tuple[float, int]]] = {}
    for n in range(1, len(messages) + 1):
        ms = await _build_ms(model, clock, as_sent(messages[:n]))
        out[n] = [(ms, len(clock.body))]
    return out


def _at(runs: list[dict[int, list[tuple[float, int]]]], n: int) -> float:
    """The median build time at `n` messages: the requests within WINDOW of it, in every run
    (one request alone is at the mercy of a garbage collection or a busy neighbour)."""
    near = range(n, n + 1) if n <= 2 else range(n - WINDOW, n + WINDOW + 1)
    return statistics.median(ms for r in runs for m in near for ms, _ in r[m])


def _dumps_ms(kind: str, n: int, repeats: int) -> float:
    """`json.dumps` of the same body (the old builder's dict), the cost of encoding it once."""
    model = build_adapter(kind, adapter(kind, "http://127.0.0.1:9").endpoint)
    body = model.builder.body(as_sent(history(n, model.endpoint.origin)))  # type: ignore[attr-defined]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def request_building(runs: int) -> bool:
    print()
    print(
        f"request building along a run (ms until the HTTP client has the request; median over {runs} runs"
        f" × the {2 * WINDOW + 1} requests around each size)"
    )
    print(
        f"{'adapter':<18} {'messages':>8} {'body KB':>8} {'json.dumps':>10} {'old path':>9} {'new path':>9} {'old/new':>8}"
    )
    ok = True
    summary = []
    for kind in KINDS:
        old_runs, new_runs = [], []
        for _ in range(runs):  # in turn, so a busy moment of the machine slows both alike
            old_runs.append(asyncio.run(_run(kind, True)))
            new_runs.append(asyncio.run(_run(kind, False)))
        # Same bodies from both paths (their sizes; the tests compare the bytes).
        assert all(o[n][0][1] == r[n][0][1] for o, r in zip(old_runs, new_runs, strict=True) for n in o), kind
        old = {n: _at(old_runs, n) for n in SIZES}
        new = {n: _at(new_runs, n) for n in SIZES}
        for n in SIZES:
            kb = new_runs[0][n][0][1] / 1024
            print(
                f"{kind:<18} {n:>8} {kb:>8.1f} {_dumps_ms(kind, n, 20):>10.3f} {old[n]:>9.3f} {new[n]:>9.3f} "
                f"{old[n] / new[n]:>7.1f}×"
            )
        grew_old, grew_new = old[STEP_40] - old[STEP_1], new[STEP_40] - new[STEP_1]
        holds = grew_new <= TARGET_MS
        ok = ok and holds
        summary.append((kind, grew_old, grew_new, holds))
    print()
    print(f"{'adapter':<18} {'step 40 − step 1, old':>22} {'new':>8} {'target':>8}")
    for kind, grew_old, grew_new, holds in summary:
        print(f"{kind:<18} {grew_old:>19.2f} ms {grew_new:>5.2f} ms {'≤ 2 ms':>8} {'ok' if holds else 'MISSED'}")
    return ok


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    whole_calls(n)
    ok = request_building(runs=5)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
