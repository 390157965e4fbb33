"""How much time the adapters add per call: each real streaming recording is replayed
N times over loopback (no delay) through its adapter. Run:

    uv run python benchmarks/model_adapters.py [N]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "models"))

from adapters_kit import adapter, ask
from replay_server import ReplayServer, Reply

from mika.model.base import complete

RECORDINGS = [
    ("openai-chat", "openai_chat_completions_stream/openai-python__tool_call_stream_2024.sse"),
    ("openai-responses", "openai_responses_stream/pydantic-ai__function_call_stream_usage_details.sse"),
    ("anthropic", "anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse"),
    ("gemini", "gemini_stream/pydantic-ai__functionCall_thought_signature_alt_sse.sse"),
    ("gemini", "gemini_stream/simonw-llm-gemini__functionCall_json_array_stream.json"),
]


async def bench(kind: str, name: str, n: int) -> list[float]:
    with ReplayServer() as server:
        server.default = Reply.recording(name)
        model = adapter(kind, server.url)
        await complete(model, ask())  # warm up: imports, connection setup
        times = []
        for _ in range(n):
            start = time.perf_counter()
            await complete(model, ask())
            times.append((time.perf_counter() - start) * 1000)
        return times


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    print(f"{'adapter':<18} {'recording':<58} {'n':>4} {'median ms':>10} {'p95 ms':>8}")
    for kind, name in RECORDINGS:
        times = sorted(asyncio.run(bench(kind, name, n)))
        p95 = times[int(len(times) * 0.95) - 1]
        print(f"{kind:<18} {Path(name).name:<58} {n:>4} {statistics.median(times):>10.2f} {p95:>8.2f}")


if __name__ == "__main__":
    main()
