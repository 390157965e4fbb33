"""Bytes that are not the provider's API — not UTF-8, HTML pages, cut or foreign SSE, JSON of
the wrong shape — and servers that stall: each is a `ModelError` whose sentence names the
provider, through all four adapters, streamed and not; headless, exit 4 with no traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

import pytest
from adapters_kit import adapter, ask
from replay_server import Reply

from mika.model.base import complete
from mika.model.errors import ModelError
from mika.model.errors import ModelErrorKind as K

KINDS = ["openai-chat", "openai-responses", "anthropic", "gemini"]

GARBAGE = {
    "not_utf8_json": Reply(b"\xff\xfe\x00garbage"),
    "not_utf8_sse": Reply(b"\xff\xfe\x00garbage", content_type="text/event-stream"),
    "not_utf8_in_sse_data": Reply(b"data: \xff\xfe\x00garbage\n\n", content_type="text/event-stream"),
    "html_error_page": Reply(
        b"<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>",
        status=200,
        content_type="text/html; charset=utf-8",
    ),
    "json_wrong_shape": Reply(b'{"hello": [1, 2, 3]}'),
    "json_array_of_numbers": Reply(b"[1, 2, 3]"),
    "sse_event_is_a_list": Reply(b"data: [1, 2]\n\n", content_type="text/event-stream"),
    "truncated_sse": Reply(
        b'data: {"id":"x","choices":[{"index":0,"delta":{"content":"hi', content_type="text/event-stream"
    ),
}


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "plain"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("body", list(GARBAGE), ids=list(GARBAGE))
async def test_a_garbage_body_is_a_model_error_naming_the_provider(server, kind, streaming, body):
    server.default = GARBAGE[body]
    with pytest.raises(ModelError) as info:
        await complete(adapter(kind, server.url, streaming=streaming), ask())
    err = info.value
    # A cut stream is honestly a cut stream; everything else is a reply we cannot read.
    assert err.kind in (K.BAD_REPLY, K.STREAM_INCOMPLETE), err
    if body != "truncated_sse":
        assert err.kind is K.BAD_REPLY, err.user_message()
    if err.kind is K.BAD_REPLY:
        assert not err.retryable
        assert "The provider test sent a reply Mika cannot read" in err.user_message("en")
        assert "服务商 test 返回了 Mika 读不懂的回复" in err.user_message("zh")
        # What arrived is shown escaped: no raw NUL or control byte reaches the terminal.
        assert "\x00" not in err.user_message()
    assert err.provider == "test"


async def test_bad_bytes_are_shown_escaped_and_cut_short(server):
    server.default = Reply(b"\xff\xfe\x00" + b"garbage " * 200)
    with pytest.raises(ModelError) as info:
        await complete(adapter("openai-chat", server.url, streaming=False), ask())
    detail = info.value.detail
    assert detail.startswith("the reply is not UTF-8 text: \\xff\\xfe\\x00garbage")
    assert "\x00" not in detail and len(detail) < 300


async def test_a_200_json_error_object_is_classified_not_ignored(server):
    server.default = Reply(b'{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}')
    with pytest.raises(ModelError) as info:
        await complete(adapter("openai-chat", server.url, streaming=False), ask())
    assert "Incorrect API key provided" in info.value.detail


@pytest.fixture
def stalling_port():
    """Accepts connections, reads nothing, answers nothing: a reachable server that hangs."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    yield srv.getsockname()[1]
    srv.close()
    for conn in held:
        conn.close()


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "plain"])
@pytest.mark.parametrize("kind", KINDS)
async def test_a_stalled_server_is_a_timeout_not_unreachable(stalling_port, kind, streaming):
    model = adapter(kind, f"http://127.0.0.1:{stalling_port}", streaming=streaming, read_timeout=0.3)
    with pytest.raises(ModelError) as info:
        await complete(model, ask())
    err = info.value
    assert err.kind is K.TIMEOUT, err.user_message()
    assert "timed out" in err.user_message("en") and "0.3 s" in err.user_message("en")
    assert "Could not reach" not in err.user_message("en")
    assert "超时" in err.user_message("zh")


async def test_a_stream_that_stalls_midway_says_so(server):
    server.default = Reply.recording(
        "openai_chat_completions_stream/openai-python__tool_call_stream_2024.sse", delay=2.0
    )
    with pytest.raises(ModelError) as info:
        await complete(adapter("openai-chat", server.url, read_timeout=0.3), ask())
    assert info.value.kind is K.TIMEOUT and "partway through the reply" in info.value.detail


def test_headless_exits_4_naming_the_provider_without_a_traceback(server, tmp_path):
    server.default = GARBAGE["not_utf8_sse"]
    (tmp_path / "config.toml").write_text(
        f'[providers.loop]\nkind = "openai-chat"\nbase_url = "{server.url}/v1"\napi_key_env = "LOOP_KEY"\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(
        MIKA_DEVICE="none",
        MIKA_CONFIG=str(tmp_path / "config.toml"),
        MIKA_STATE_DIR=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "cfg"),
        LOOP_KEY="k",
        LANG="C.UTF-8",
    )
    r = subprocess.run(
        [sys.executable, "-m", "mika.cli", "--no-ui", "--model", "loop/m", "hi"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 4, r.stderr
    assert "The provider loop sent a reply Mika cannot read" in r.stderr
    assert "Traceback" not in r.stderr and "UnicodeDecodeError" not in r.stderr and "Internal error" not in r.stderr


async def test_a_cut_stream_names_the_provider_too(server):
    server.default = Reply.recording(
        "openai_chat_completions_stream/openai-python__tool_call_stream_2024.sse", cut_after=2
    )
    with pytest.raises(ModelError) as info:
        await complete(adapter("openai-chat", server.url), ask())
    assert info.value.kind is K.STREAM_INCOMPLETE
    assert "The model's reply from the provider test was cut off" in info.value.user_message("en")
    assert "服务商 test 的回复在完成前被截断了" in info.value.user_message("zh")


@pytest.mark.parametrize("kind", ["openai-responses", "anthropic"])
async def test_a_200_error_object_is_classified_for_every_sdk_adapter(server, kind):
    server.default = Reply(b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}')
    with pytest.raises(ModelError) as info:
        await complete(adapter(kind, server.url, streaming=False), ask())
    assert info.value.kind is not K.BAD_REPLY and "Overloaded" in info.value.detail
