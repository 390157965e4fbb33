"""Tool-call arguments that are not JSON reach the model as malformed, with the parser's
words and the raw text cut short — not as "missing required parameter". The provider is the
real OpenAI-compatible adapter reading a stream from the loopback server; the loop and the
toy capability are real; what the model is told is read from the next request's bytes."""

from __future__ import annotations

import json

import pytest

from mika.model.adapters import build_adapter
from mika.model.adapters.endpoint import Endpoint
from mika.runtypes.result import OutcomeStatus
from mika.tool.errors import BadArguments
from mika.tool.schema import check_arguments
from tests.models.replay_server import ReplayServer, Reply

RAW_SHOWN = 200  # how much of the raw text the model is shown (mika.tool.schema.RAW_SHOWN)


def _tool_call_stream(raw_arguments: str) -> Reply:
    chunks = [
        {
            "id": "c1",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "toy_tap", "arguments": ""},
                            }
                        ],
                    },
                }
            ],
        },
        {
            "id": "c1",
            "model": "m",
            "choices": [
                {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": raw_arguments}}]}}
            ],
        },
        {"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
    return Reply(body, content_type="text/event-stream")


def _answer(text: str) -> Reply:
    chunk = {"id": "c2", "model": "m", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]}
    return Reply(b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n", content_type="text/event-stream")


def _tool_message(server: ReplayServer) -> str:
    sent = server.requests[1].json()
    tool_msgs = [m for m in sent["messages"] if m["role"] == "tool"]  # type: ignore[index]
    assert len(tool_msgs) == 1
    return tool_msgs[0]["content"]


@pytest.mark.parametrize(
    ("raw", "parser_words"),
    [
        ('{"label": "OK" "note": "x"}', "Expecting ',' delimiter"),
        ('{"label": "OK", ', "Expecting property name enclosed in double quotes"),
        ("label=OK", "Expecting value"),
    ],
    ids=["missing_comma", "cut_off", "not_json"],
)
async def test_malformed_arguments_are_reported_as_malformed(make_run, world, raw, parser_words):
    with ReplayServer() as server:
        server.queue(_tool_call_stream(raw), _answer("Could not tap."))
        model = build_adapter("openai-chat", Endpoint("loop", "m", server.url + "/v1", api_key="k"))
        result = await make_run(model).run()
        told = _tool_message(server)
    assert result.status is OutcomeStatus.ANSWERED
    assert "malformed JSON" in told and parser_words in told
    assert json.dumps(raw) in told  # the raw text, as a quoted string
    assert "missing required parameter" not in told
    assert world.taps == []


async def test_a_long_malformed_text_is_cut_short(make_run):
    raw = '{"label": "' + "x" * 5000 + '" oops}'
    with ReplayServer() as server:
        server.queue(_tool_call_stream(raw), _answer("Could not tap."))
        model = build_adapter("openai-chat", Endpoint("loop", "m", server.url + "/v1", api_key="k"))
        await make_run(model).run()
        told = _tool_message(server)
    assert "malformed JSON" in told and f"cut at {RAW_SHOWN} of {len(raw)} characters" in told
    assert len(told) < RAW_SHOWN + 400


def test_json_that_is_not_an_object_is_named():
    with pytest.raises(BadArguments) as info:
        check_arguments("toy_tap", {"required": ["label"]}, {}, raw='["OK"]')
    assert "must be one JSON object, got a JSON list" in str(info.value)
    assert info.value.code == "malformed_arguments"


def test_well_formed_but_incomplete_arguments_still_name_the_parameter():
    with pytest.raises(BadArguments) as info:
        check_arguments("toy_tap", {"required": ["label"]}, {}, raw="{}")
    assert "missing required parameter 'label'" in str(info.value)
    # A model that sends nothing (or null) for a tool without parameters is not at fault.
    assert check_arguments("toy_read", {}, {}, raw="") == {}
    assert check_arguments("toy_read", {}, {}, raw="null") == {}


def test_a_number_where_text_is_asked_for_becomes_its_digits_but_other_kinds_still_fail():
    schema = {"properties": {"value": {"type": "string"}, "keep": {"type": "string"}}}
    # phone_set_wheel's value "7": a model sending 7, 7.0 or 45.5 means the same text
    assert check_arguments("phone_set_wheel", schema, {"value": 7})["value"] == "7"
    assert check_arguments("phone_set_wheel", schema, {"value": 7.0})["value"] == "7"
    assert check_arguments("phone_set_wheel", schema, {"value": 45.5})["value"] == "45.5"
    for odd in (True, [7], {"v": 7}):
        with pytest.raises(BadArguments) as info:
            check_arguments("phone_set_wheel", schema, {"keep": odd})
        assert "parameter 'keep' must be string" in str(info.value)
