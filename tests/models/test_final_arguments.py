"""A provider's final, whole tool-call arguments win over the streamed deltas.

Of the four protocols only OpenAI Responses sends the complete arguments at the end of a
call (`response.function_call_arguments.done`, `response.output_item.done`, and the
`output` of `response.completed`); Chat Completions and Anthropic Messages only stream
deltas, and Gemini sends each `functionCall` whole. The recorded Responses stream is
edited here on purpose: a proxy that drops or repeats one delta, and that sends an empty
final `output` (some OpenAI-compatible servers do), is exactly the fault under test, and
no public recording of such a proxy exists.
"""

from __future__ import annotations

import json

from adapters_kit import adapter, ask
from replay_server import FIXTURES, Reply

from mika.model.base import Done, ToolCallDelta

STREAM = "openai_responses_stream/simonw-llm__tool_use_stream.sse"
WHOLE = {"a": 1231, "b": 2331}


def _frames() -> list[str]:
    return (FIXTURES / STREAM).read_text().split("\n\n")


def _data(frame: str) -> dict:
    return json.loads(frame.split("\ndata: ", 1)[1])


def _edited(*, drop_delta: int | None = None, repeat_delta: int | None = None, drop: tuple[str, ...] = ()) -> bytes:
    """The recording with delta number `drop_delta` left out (or `repeat_delta` sent twice),
    the events named in `drop` left out, and response.completed's `output` emptied."""
    out, n = [], -1
    for frame in _frames():
        kind = frame.split("\n", 1)[0].removeprefix("event: ")
        if kind == "response.function_call_arguments.delta":
            n += 1
            if n == drop_delta:
                continue
            if n == repeat_delta:
                out.append(frame)
        if kind in drop:
            continue
        if kind == "response.completed":
            event = _data(frame)
            event["response"]["output"] = []
            frame = "event: response.completed\ndata: " + json.dumps(event)
        out.append(frame)
    assert n >= 3, "the recording should hold several argument deltas"
    return "\n\n".join(out).encode()


async def _reply(server, body: bytes):
    server.queue(Reply(body, content_type="text/event-stream"))
    model = adapter("openai-responses", server.url)
    events = [e async for e in model.stream(ask())]
    assert isinstance(events[-1], Done)
    response = events[-1].response
    streamed = "".join(e.arguments_delta for e in events if isinstance(e, ToolCallDelta))
    return response, streamed


async def test_arguments_done_wins_over_a_dropped_delta(server):
    # Only arguments.done carries the whole text: output_item.done is gone and the final output is empty.
    response, streamed = await _reply(server, _edited(drop_delta=3, drop=("response.output_item.done",)))
    assert streamed != json.dumps(WHOLE, separators=(",", ":"))  # the deltas really are broken
    call = response.message.tool_calls[0]
    assert (call.name, call.arguments) == ("multiply", WHOLE)
    assert call.raw_arguments == '{"a":1231,"b":2331}'
    assert call.id == "call_sVidsfFJ6zlzRpelrPkTPlpd"
    assert response.stop_reason == "tool_calls"


async def test_arguments_done_wins_over_a_repeated_delta(server):
    response, streamed = await _reply(server, _edited(repeat_delta=4, drop=("response.output_item.done",)))
    assert streamed == '{"a":12311,"b":2331}'  # a 1231 that became 12311
    assert response.message.tool_calls[0].arguments == WHOLE


async def test_output_item_done_wins_when_arguments_done_is_missing(server):
    response, _ = await _reply(server, _edited(drop_delta=1, drop=("response.function_call_arguments.done",)))
    assert response.message.tool_calls[0].arguments == WHOLE


async def test_final_output_wins_over_everything_streamed(server):
    # The untouched final output is the authority even when every streamed piece is wrong.
    frames = []
    for frame in _frames():
        kind = frame.split("\n", 1)[0].removeprefix("event: ")
        if kind in ("response.function_call_arguments.done", "response.output_item.done"):
            event = _data(frame)
            target = event.get("item", event)
            target["arguments"] = '{"a":0,"b":0}'
            frame = f"event: {kind}\ndata: " + json.dumps(event)
        if kind == "response.function_call_arguments.delta" and '"delta":"123"' in frame:
            continue
        frames.append(frame)
    response, _ = await _reply(server, "\n\n".join(frames).encode())
    assert response.message.tool_calls[0].arguments == WHOLE


async def test_deltas_alone_still_make_the_call(server):
    # No final text at all (neither done event, empty output): the deltas are all there is.
    body = _edited(drop=("response.function_call_arguments.done", "response.output_item.done"))
    response, streamed = await _reply(server, body)
    assert streamed == '{"a":1231,"b":2331}'
    call = response.message.tool_calls[0]
    assert (call.name, call.arguments, call.raw_arguments) == ("multiply", WHOLE, streamed)


async def test_when_final_and_deltas_agree_nothing_changes(server):
    response, streamed = await _reply(server, _edited())
    assert streamed == '{"a":1231,"b":2331}'
    assert [(c.name, c.arguments) for c in response.message.tool_calls] == [("multiply", WHOLE)]
    assert response.usage.input_tokens == 58
