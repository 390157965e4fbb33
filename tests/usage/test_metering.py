"""metered(): every call counted once, failures and cancels as calls without usage.
Uses the real Chat Completions adapter against the loopback replay server."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from adapters_kit import adapter, ask
from replay_server import ReplayServer, Reply

from mika.model.base import complete
from mika.model.errors import ModelError
from mika.model.messages import ModelRequest
from mika.model.metering import metered
from mika.usage.ledger import UsageLedger

REC = "openai_chat_completions_stream/pydantic-ai__get_capital_tool_call_with_usage_chunk.sse"


@pytest.fixture
def server():
    with ReplayServer() as s:
        yield s


async def test_counts_once_under_the_right_purpose(server):
    server.queue(Reply.recording(REC), Reply.recording(REC))
    ledger = UsageLedger(None)
    model = metered(adapter("openai-chat", server.url), ledger, "light")
    assert metered(model, ledger, "light") is model  # never wrapped (and counted) twice
    assert (model.provider, model.name) == ("test", "test-model")
    await complete(model, ask())
    await complete(model, ModelRequest("s", ask().messages, purpose="judge"))
    rows = {r.purpose: r for r in ledger.rows()}
    assert (rows["light"].input, rows["light"].output, rows["light"].calls) == (53, 15, 1)
    assert rows["judge"].calls == 1 and rows["judge"].unreported == 0


async def test_errors_and_cancels_count_as_calls_without_usage(server):
    server.queue(Reply(b'{"error":{"message":"bad key"}}', status=401), Reply.recording(REC, delay=0.5))
    ledger = UsageLedger(None)
    model = metered(adapter("openai-chat", server.url), ledger, "main")
    with pytest.raises(ModelError):
        await complete(model, ask())
    streaming = asyncio.Event()

    async def read_to_the_end() -> None:
        async for _ in model.stream(ask()):
            streaming.set()  # the reply has begun: the call is in flight, its usage not yet known

    task = asyncio.create_task(read_to_the_end())
    await asyncio.wait_for(streaming.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (row,) = ledger.rows()
    assert (row.calls, row.unreported, row.input) == (0, 2, 0)
