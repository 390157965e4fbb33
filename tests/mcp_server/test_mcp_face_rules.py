"""The small rules of `mika mcp` that need no client: the loopback rule, the --http
address, the bearer gate's answer, and its sentences in both languages."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mika.mcp.http import BadHttpAddress, BearerGate, is_loopback, parse_address
from mika.mcp.texts import TEXTS


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),  # all of 127.0.0.0/8 is loopback
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),  # every interface: needs the token
        ("::", False),
        ("192.168.1.20", False),
        ("mika.example", False),  # a name may resolve anywhere
    ],
)
def test_the_loopback_rule(host, loopback):
    assert is_loopback(host) is loopback


def test_http_addresses():
    assert parse_address("127.0.0.1:8765") == ("127.0.0.1", 8765)
    assert parse_address("[::1]:9000") == ("::1", 9000)
    for bad in ("8765", "127.0.0.1:", "127.0.0.1:http", ":80", "127.0.0.1:70000"):
        with pytest.raises(BadHttpAddress, match="HOST:PORT"):
            parse_address(bad)


async def test_the_gate_answers_401_before_the_app_sees_anything():
    seen: list[dict] = []

    async def app(scope, receive, send):
        seen.append(scope)

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    gate = BearerGate(app, "s3cret")
    for headers in ([], [(b"authorization", b"Bearer nope")], [(b"authorization", b"s3cret")]):
        await gate({"type": "http", "headers": headers}, None, send)
    assert not seen
    assert [m["status"] for m in sent if m["type"] == "http.response.start"] == [401, 401, 401]
    await gate({"type": "http", "headers": [(b"Authorization", b"Bearer s3cret")]}, None, send)
    await gate({"type": "lifespan"}, None, send)
    assert [s["type"] for s in seen] == ["http", "lifespan"]


def test_every_sentence_exists_in_english_and_chinese():
    assert set(TEXTS["en"]) == set(TEXTS["zh"])
    for key, english in TEXTS["en"].items():
        assert TEXTS["zh"][key] != english, key


def test_a_bad_http_address_is_a_usage_error_without_a_traceback(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_STATE_DIR=str(tmp_path / "s"), XDG_CONFIG_HOME=str(tmp_path / "c"), MIKA_LANGUAGE="zh")
    r = subprocess.run(
        [sys.executable, "-m", "mika.cli", "mcp", "--http", "nowhere"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert r.returncode == 2
    assert "--http 需要 HOST:PORT" in r.stderr and "Traceback" not in r.stderr
