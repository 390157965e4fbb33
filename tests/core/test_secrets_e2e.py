"""The reproduction of issue 11 end to end: a provider on loopback answers 401 with
`Incorrect API key provided: <the key>`; `mika --no-ui` runs as a user runs it (a real
subprocess, the real adapter, real files). Afterwards the whole state dir — every file,
recursively, read as bytes — and stdout/stderr hold the key 0 times, in any encoding;
every file is 0600 and every folder 0700, under any umask.

The provider is the one thing we can't run here, so it is the loopback replay server
(tests/models/replay_server.py) answering with the bodies a real one sends.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from html import escape
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from replay_server import ReplayServer, Reply

KEY = "sk-proj-Zq8v/T3x+Lw9R2mN5bK7cY4h=J6gF1dS0aE"
FILE_KEY = "sk-ant-api03-Pf7uQ2wXr9Tz4Kd8Lm3Nb6Vc1Hs5Jg0A"
HEADER = 'hdr"tok\\Q7xP2mR4kT8wZ<3>&'  # a custom header secret with what JSON/HTML/repr escape
FORMATS = ("text", "json", "stream-json")


def forms(secret: str) -> list[str]:
    out = {
        secret,
        json.dumps(secret)[1:-1],
        quote(secret, safe=""),
        quote_plus(secret),
        escape(secret),
        repr(secret)[1:-1],
        json.dumps(json.dumps(secret)[1:-1])[1:-1],
        re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(secret, safe="")),
    }
    return sorted(out)


def hits(blob: bytes, secret: str) -> list[str]:
    return [f for f in forms(secret) if f.encode() in blob]


def state_hits(state: Path, secret: str) -> dict[str, list[str]]:
    found = {}
    for p in state.rglob("*"):
        if p.is_file():
            h = hits(p.read_bytes(), secret)
            if h:
                found[str(p.relative_to(state))] = h
    return found


def bad_modes(state: Path) -> list[str]:
    bad = []
    for p in [state, *state.rglob("*")]:
        mode = stat.S_IMODE(p.lstat().st_mode)
        want = 0o700 if p.is_dir() else 0o600
        if mode != want:
            bad.append(f"{p.relative_to(state.parent)} {oct(mode)}")
    return bad


def body_401(*secrets: str) -> bytes:
    """What a provider (or a proxy in front of it) says back: the key verbatim, inside a
    JSON string, URL-encoded in a quoted request line, and in a nested JSON document."""
    said = "; ".join(
        f"Incorrect API key provided: {s}. Request was GET /v1/chat?key={quote(s, safe='')} "
        f"upstream={json.dumps({'api_key': s})}"
        for s in secrets
    )
    return json.dumps({"error": {"message": said, "type": "invalid_request_error", "code": "invalid_api_key"}}).encode()


def write_config(tmp: Path, url: str, source: str) -> Path:
    cfg = tmp / "cfg" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    lines = ["[providers.bad]", 'kind = "openai-chat"', f'base_url = "{url}/v1"']
    if source == "env":
        lines.append('api_key_env = "BAD_PROVIDER_KEY"')
    elif source == "file":
        (cfg.parent / "keys").mkdir(exist_ok=True)
        (cfg.parent / "keys" / "bad.key").write_text(FILE_KEY + "\n")
        (cfg.parent / "keys" / "bad.key").chmod(0o600)
        lines.append('api_key_file = "keys/bad.key"')
    lines += [
        "[providers.bad.headers]",
        f'"X-Custom-Auth" = {json.dumps(HEADER)}',
        "[roles]",
        'main = "bad/some-model"',
        "[run]",
        "judge_outcome = false",
    ]
    cfg.write_text("\n".join(lines) + "\n")
    return cfg


def run_mika(tmp: Path, cfg: Path, args: list[str], umask: int = 0o022) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(
        MIKA_DEVICE="none",
        MIKA_STATE_DIR=str(tmp / "state"),
        MIKA_CONFIG=str(cfg),
        BAD_PROVIDER_KEY=KEY,
        XDG_CONFIG_HOME=str(tmp / "xdg"),
    )

    def set_umask() -> None:
        os.umask(umask)

    return subprocess.run(
        [sys.executable, "-m", "mika.cli", *args], capture_output=True, timeout=90, env=env, preexec_fn=set_umask
    )


@pytest.mark.parametrize(("source", "secret"), [("env", KEY), ("file", FILE_KEY), ("header", HEADER)])
def test_a_401_that_echoes_the_key_leaves_it_nowhere(tmp_path, source, secret):
    with ReplayServer() as server:
        server.default = Reply(body_401(secret), status=401)
        cfg = write_config(tmp_path, server.url, source)
        outputs = []
        for fmt in FORMATS:
            r = run_mika(tmp_path, cfg, ["--no-ui", "--output-format", fmt, f"check my inbox ({fmt})"])
            assert r.returncode == 4, r.stderr.decode()  # a model error, said as such
            outputs.append((fmt, r))
        sent = [s.headers.get("authorization", "") + s.headers.get("x-custom-auth", "") for s in server.requests]
    # The secret really went to the provider (so it really was the configured one)…
    assert all(secret in s or secret.strip() in s for s in sent), sent
    state = tmp_path / "state"
    # …and the provider's answer is in the record, masked.
    events = "".join(p.read_text() for p in state.rglob("events.jsonl"))
    assert "Incorrect API key provided: [redacted]" in events
    for fmt, r in outputs:
        assert hits(r.stdout, secret) == [], (fmt, "stdout", r.stdout[-400:])
        assert hits(r.stderr, secret) == [], (fmt, "stderr", r.stderr[-400:])
        assert b"Incorrect API key provided: [redacted]" in r.stdout + r.stderr, fmt
    stream_lines = [json.loads(x) for x in outputs[2][1].stdout.splitlines()]
    assert stream_lines[-1]["type"] == "result" and stream_lines[-1]["outcome"] == "failed"
    assert state_hits(state, secret) == {}
    written = {p.name for p in state.rglob("*") if p.is_file()}
    assert {"events.jsonl", "run.json", "run-state.json", "outbox.json", "run-metrics.jsonl"} <= written
    assert any((state / "conversations").iterdir())
    assert bad_modes(state) == []


@pytest.mark.parametrize("umask", [0o000, 0o002])
def test_state_files_are_0600_and_folders_0700_under_any_umask(tmp_path, umask):
    with ReplayServer() as server:
        server.default = Reply(body_401(KEY), status=401)
        cfg = write_config(tmp_path, server.url, "env")
        r = run_mika(tmp_path, cfg, ["--no-ui", "go"], umask=umask)
    assert r.returncode == 4, r.stderr.decode()
    state = tmp_path / "state"
    assert len(list(state.rglob("*"))) > 8
    assert bad_modes(state) == []


def _sse(*pieces: str) -> bytes:
    def chunk(delta: dict, finish=None) -> str:
        return (
            "data: "
            + json.dumps(
                {
                    "id": "c1",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": "some-model",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }
            )
            + "\n\n"
        )

    out = chunk({"role": "assistant", "content": ""})
    out += "".join(chunk({"content": p}) for p in pieces)
    out += chunk({}, "stop") + "data: [DONE]\n\n"
    return out.encode()


def test_a_key_split_across_two_stream_chunks_is_masked_on_stream_json_and_in_files(tmp_path):
    """A model (or a proxy) that repeats the key back in its answer, the key cut in two
    SSE chunks: the deltas on stream-json, joined, still don't spell it."""
    half = len(KEY) // 2
    with ReplayServer() as server:
        server.default = Reply(
            _sse("Your key is ", KEY[:half], KEY[half:], " — done."), content_type="text/event-stream"
        )
        cfg = write_config(tmp_path, server.url, "env")
        r = run_mika(tmp_path, cfg, ["--no-ui", "--output-format", "stream-json", "what is my key"])
        t = run_mika(tmp_path, cfg, ["--no-ui", "what is my key"])
    assert r.returncode == 0, r.stderr.decode()
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    deltas = "".join(x["text"] for x in lines if x["type"] == "delta")
    assert deltas == "Your key is [redacted] — done."
    assert lines[-1]["answer"] == "Your key is [redacted] — done."
    assert t.stdout.decode() == "Your key is [redacted] — done.\n"
    for out in (r.stdout, r.stderr, t.stdout, t.stderr):
        assert hits(out, KEY) == []
    assert state_hits(tmp_path / "state", KEY) == {}


def test_a_crash_with_the_key_in_the_exception_repr(tmp_path):
    """The CLI's last line of defence: the one-line message on stderr and crash.log."""
    with ReplayServer() as server:
        cfg = write_config(tmp_path, server.url, "env")
        # The run itself blows up (after start-up registered the configured secrets), with
        # the key inside the exception's repr, as a bug in any layer could.
        code = (
            "import mika.cli as c, mika.headless_command as h\n"
            "async def broken(*a, **k):\n"
            f"    raise RuntimeError({{'headers': {{'Authorization': 'Bearer ' + {KEY!r}, 'X-Custom-Auth': {HEADER!r}}}}})\n"
            "h.run_headless = broken\n"
            "c.main(['--no-ui', 'go'])\n"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
        env.update(
            MIKA_STATE_DIR=str(tmp_path / "state"), MIKA_CONFIG=str(cfg), BAD_PROVIDER_KEY=KEY, MIKA_DEVICE="none"
        )
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, env=env)
    assert r.returncode == 1
    assert b"mika: internal error: RuntimeError" in r.stderr and b"Traceback" not in r.stderr
    log = tmp_path / "state" / "crash.log"
    assert b"Traceback" in log.read_bytes() and b"[redacted]" in log.read_bytes()
    for secret in (KEY, HEADER):
        assert hits(r.stderr + r.stdout, secret) == []
        assert hits(log.read_bytes(), secret) == []
    assert bad_modes(tmp_path / "state") == []


def test_a_120000_character_goal_is_shown_and_stored_as_the_goal(tmp_path):
    goal = "x" * 120_000  # one argument, under Linux's 128 KiB limit for one
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["Done."]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_DEVICE="none", MIKA_STATE_DIR=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    cmd = [sys.executable, "-m", "mika.cli"]
    r = subprocess.run(
        [*cmd, "--no-ui", "--model", f"script:{script}", goal], capture_output=True, text=True, timeout=90, env=env
    )
    assert r.returncode == 0, r.stderr[-500:]
    listed = subprocess.run([*cmd, "runs", "list", "--json"], capture_output=True, text=True, timeout=60, env=env)
    run = json.loads(listed.stdout)[0]
    assert run["goal"] == goal
    events = [json.loads(x) for x in next((tmp_path / "state").rglob("events.jsonl")).read_text().splitlines()]
    assert next(e for e in events if e["type"] == "run_started")["goal"] == goal
    conversation = json.loads(next((tmp_path / "state" / "conversations").glob("*.json")).read_text())
    assert goal in json.dumps(conversation)
    assert "[redacted]" not in listed.stdout


@pytest.mark.parametrize("as_json", [False, True])
def test_models_test_against_a_401_that_echoes_the_key_prints_it_nowhere(tmp_path, as_json):
    with ReplayServer() as server:
        server.default = Reply(body_401(KEY, HEADER), status=401)
        cfg = write_config(tmp_path, server.url, "env")
        r = run_mika(tmp_path, cfg, ["models", "test", "bad/some-model", *(["--json"] if as_json else [])])
    assert b"[redacted]" in r.stdout + r.stderr, (r.stdout, r.stderr)
    for secret in (KEY, HEADER):
        assert hits(r.stdout + r.stderr, secret) == []
        assert state_hits(tmp_path / "state", secret) == {}
