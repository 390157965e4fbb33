"""The OpenAI-style adapters' own HTTP path (mika.model.adapters.http_call: httpx2 and our
own server-sent-event reader, no SDK) gives what the SDK path gives, for every real
recorded stream, reply and error body, every garbage reply, cut and stalled streams: the
same events, or the same error (kind, words, status, retry hint, provider).

Both paths talk to the same loopback server; the SDK path is the adapter handed an SDK
client, as before this path existed."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from adapters_kit import adapter, ask
from replay_server import FIXTURES, ReplayServer, Reply
from test_garbage_bodies import GARBAGE

from mika.model.adapters import build_adapter
from mika.model.adapters.client_options import openai_client
from mika.model.adapters.openai_chat import OpenAIChatModel
from mika.model.adapters.openai_responses import OpenAIResponsesModel
from mika.model.adapters.sse import EventReader
from mika.model.errors import ModelError

KINDS = ["openai-chat", "openai-responses"]
STREAMS = {
    "openai-chat": sorted(
        str(p.relative_to(FIXTURES)) for p in (FIXTURES / "openai_chat_completions_stream").glob("*.sse")
    ),
    "openai-responses": sorted(
        str(p.relative_to(FIXTURES)) for p in (FIXTURES / "openai_responses_stream").glob("*.sse")
    ),
}
PLAIN = {
    "openai-chat": "non_streaming/openai_chat__tool_calls__simonw-llm.json",
    "openai-responses": "non_streaming/openai_responses__function_call__simonw-llm.json",
}
ERRORS = sorted(
    str(p.relative_to(FIXTURES)) for p in (FIXTURES / "errors").glob("*.json") if not p.name.endswith(".meta.json")
)


def _sdk(kind: str, url: str, **kw):
    """The adapter on the SDK path: handed an SDK client, as the ChatGPT provider did."""
    endpoint = adapter(kind, url, **kw).endpoint
    cls = OpenAIChatModel if kind == "openai-chat" else OpenAIResponsesModel
    return cls(endpoint, openai_client(endpoint))


async def _outcome(model, request) -> tuple[str, object]:
    events = []
    try:
        async for event in model.stream(request):
            events.append(event)
    except ModelError as err:
        return "error", (err.kind, err.detail, err.status, err.retry_after, err.provider, len(events))
    return "events", events


async def _both(kind: str, reply: Reply, **kw) -> tuple[tuple[str, object], tuple[str, object], list, list]:
    with ReplayServer() as server:
        server.default = reply
        own = adapter(kind, server.url, **kw)
        assert own._http is not None, "the default adapter takes the own path"
        own_got = await _outcome(own, ask(conversation_id="c-1"))
        own_seen = list(server.requests)
        server.requests.clear()
        sdk_got = await _outcome(_sdk(kind, server.url, **kw), ask(conversation_id="c-1"))
        return own_got, sdk_got, own_seen, list(server.requests)


def _assert_same(own: tuple[str, object], sdk: tuple[str, object]) -> None:
    assert own == sdk


@pytest.mark.parametrize(("kind", "name"), [(k, n) for k in KINDS for n in STREAMS[k]])
async def test_every_recorded_stream_reads_the_same(kind, name):
    own, sdk, own_seen, sdk_seen = await _both(kind, Reply.recording(name))
    assert own[0] == "events", own
    _assert_same(own, sdk)
    # The same request went out: path, body, and the headers but for the SDK's telemetry.
    assert [(s.path, s.body) for s in own_seen] == [(s.path, s.body) for s in sdk_seen]
    sdk_headers = {k: v for k, v in sdk_seen[0].headers.items() if not k.startswith("x-stainless-")}
    assert own_seen[0].headers == sdk_headers
    assert own_seen[0].headers["authorization"] == "Bearer sk-test"


@pytest.mark.parametrize("kind", KINDS)
async def test_the_recorded_plain_reply_reads_the_same(kind):
    own, sdk, own_seen, sdk_seen = await _both(kind, Reply.recording(PLAIN[kind]), streaming=False)
    assert own[0] == "events", own
    _assert_same(own, sdk)
    assert [s.body for s in own_seen] == [s.body for s in sdk_seen]


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "plain"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ERRORS, ids=[Path(n).stem for n in ERRORS])
async def test_every_recorded_error_body_is_the_same_error(kind, name, streaming):
    reply = Reply.recording(name)
    if reply.status == 200:  # the log without a sidecar: Anthropic sends it with 529
        reply.status = 529
    reply.headers = {"Retry-After": "7"}
    own, sdk, _, _ = await _both(kind, reply, streaming=streaming)
    assert own[0] == "error", own
    _assert_same(own, sdk)


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "plain"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("body", list(GARBAGE), ids=list(GARBAGE))
async def test_every_garbage_reply_is_the_same_error(kind, body, streaming):
    own, sdk, _, _ = await _both(kind, GARBAGE[body], streaming=streaming)
    assert own[0] == "error", own
    _assert_same(own, sdk)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("cut", [1, 2, 4])
async def test_a_cut_stream_is_the_same_error(kind, cut):
    own, sdk, _, _ = await _both(kind, Reply.recording(STREAMS[kind][0], cut_after=cut))
    assert own[0] == "error", own
    _assert_same(own, sdk)


@pytest.mark.parametrize("kind", KINDS)
async def test_an_error_event_inside_a_stream_is_the_same_error(kind):
    body = b'data: {"error": {"message": "The server had an error", "type": "server_error"}}\n\n'
    own, sdk, _, _ = await _both(kind, Reply(body, content_type="text/event-stream"))
    assert own[0] == "error", own
    _assert_same(own, sdk)


async def test_a_stream_that_stalls_midway_is_the_same_timeout():
    reply = Reply.recording(STREAMS["openai-chat"][0], delay=1.0)
    own, sdk, _, _ = await _both("openai-chat", reply, read_timeout=0.3)
    assert own[0] == "error" and "partway through the reply" in own[1][1], own  # type: ignore[index]
    _assert_same(own, sdk)


@pytest.mark.parametrize("kind", KINDS)
async def test_nothing_listening_is_the_same_network_error(kind):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    assert await _outcome(adapter(kind, url), ask()) == await _outcome(_sdk(kind, url), ask())


async def test_the_client_built_ahead_is_the_one_the_call_uses():
    with ReplayServer() as server:
        server.default = Reply.recording(STREAMS["openai-chat"][0])
        model = build_adapter("openai-chat", adapter("openai-chat", server.url).endpoint)
        model.prepare()
        first = await model._http.get()
        kind, events = await _outcome(model, ask())
        assert kind == "events" and events and server.requests
        assert await model._http.get() is first


def test_server_sent_events_split_anywhere_read_the_same():
    """CR, LF and CRLF line ends, a CRLF split between chunks, comments, multi-line data,
    an event without data (dropped), and an unfinished last event (not dispatched)."""
    stream = b': hi\r\nevent: a\r\ndata: {"x":\r\ndata: 1}\r\n\r\nevent: ping\n\ndata: two\r\rdata: cut'
    whole = [(e.event, e.data) for e in EventReader().feed(stream)]
    assert whole == [("a", '{"x":\n1}'), ("", "two")]
    for size in range(1, len(stream)):
        reader = EventReader()
        got = [(e.event, e.data) for i in range(0, len(stream), size) for e in reader.feed(stream[i : i + size])]
        reader.end()
        assert got == whole, size


def test_a_line_that_is_not_utf8_is_an_error_where_it_is():
    reader = EventReader()
    with pytest.raises(UnicodeDecodeError):
        list(reader.feed(b"data: \xff\n\n"))


def test_a_headless_run_on_an_openai_style_provider_never_imports_the_sdk(tmp_path):
    """Through the console script's entry, to the answer: the SDK stays unloaded."""
    with ReplayServer() as server:
        server.default = Reply.recording(STREAMS["openai-chat"][0])
        cfg = tmp_path / "cfg" / "mika"
        cfg.mkdir(parents=True)
        (cfg / "config.toml").write_text(
            f'[providers.loop]\nkind = "openai-chat"\nbase_url = "{server.url}/v1"\napi_key_env = "LOOP_KEY"\n'
            '[roles]\nmain = "loop/m"\n'
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
        env.update(MIKA_STATE_DIR=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "cfg"), LOOP_KEY="sk-loop")
        probe = (
            "import atexit, json, sys\n"
            "atexit.register(lambda: sys.stderr.write('LOADED ' + json.dumps('openai' in sys.modules) + '\\n'))\n"
            "from mika_tui.launcher import main\n"
            "sys.argv = ['mika', '--no-ui', '--device', 'none', '--max-steps', '1', 'say hello']\n"
            "main()\n"
        )
        r = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        assert server.requests, r.stderr[-2000:]
    loaded = [json.loads(line.split(" ", 1)[1]) for line in r.stderr.splitlines() if line.startswith("LOADED ")]
    assert loaded == [False], r.stderr[-2000:]
