"""A headless run without a phone (`--device none`) never loads the phone stack: adbutils,
requests/urllib3, PIL, uiautomator2 and the phone capability cost ~300 ms of start-up
(benchmarks/startup.py) and a run without a phone uses none of them.

Run in a fresh interpreter through the console script's own entry, on a scripted model
(so the run is a real one, to its answer, without a provider).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.core.mika_import_probe import probe

PHONE_STACK = ["adbutils", "requests", "urllib3", "PIL", "uiautomator2", "mika.cap.phone"]


def _run(tmp_path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_STATE_DIR=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    return probe(args, {"loaded": PHONE_STACK}, env=env)


def test_a_run_without_a_phone_loads_no_phone_stack(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["Nothing to do on a phone."]))
    r, report = _run(tmp_path, "--no-ui", "--device", "none", "--model", f"script:{script}", "say hello")
    assert report["code"] in (0, None), r.stderr
    assert r.stdout == "Nothing to do on a phone.\n"
    assert report["loaded"] == [], f"a run without a phone imported {report['loaded']}"


def test_a_run_with_something_owed_still_loads_the_phone_restorers(tmp_path, adb_server):
    """The ledger of what a crashed run borrowed is settled at start: with an item owed, the
    phone's restorers are loaded to give it back (here: the phone is not attached to this
    test's own adb server, so the item is kept for a later start, as before)."""
    state = tmp_path / "state"
    state.mkdir()
    owed = {"id": "ime-00000000", "kind": "ime", "key": "no-such-serial", "restore": {"ime": "x/.Y"},
            "run_id": "r1", "owner": "gone-process", "at": 0.0}  # fmt: skip
    (state / "borrowed.json").write_text(json.dumps({"version": 1, "items": [owed]}))
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["ok"]))
    r, report = _run(tmp_path, "--no-ui", "--device", "none", "--model", f"script:{script}", "say hello")
    assert report["code"] in (0, None), r.stderr
    assert "mika.cap.phone.restore" in report["loaded"]
    items = json.loads((state / "borrowed.json").read_text())["items"]
    assert [i["id"] for i in items] == ["ime-00000000"], "an item owed to an absent phone is kept"


# What a headless run's first model request must not wait for (issue 35): the faces it is
# not (the TUI, the MCP server), the providers' SDKs (an OpenAI-style provider is called
# over our own HTTP client: mika.model.adapters.http_call), the browser, the phone stack
# (no phone here) and what only an action reads (price_parser: amounts on screen).
NOT_BEFORE_FIRST_REQUEST = [
    "textual", "mcp", "mcp_types", "uvicorn", "openai", "anthropic", "google.genai", "playwright",
    "adbutils", "uiautomator2", "PIL", "av", "price_parser", "mika.cap.phone", "mika.mcp",
]  # fmt: skip

_FIRST_REQUEST_PROBE = """
import json, sys
from mika.model.adapters import openai_chat

prefixes = json.loads(sys.argv[1])
real_events = openai_chat.http_events

def events(*args, **kwargs):
    loaded = sorted(m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in prefixes))
    sys.stderr.write("FIRST-REQUEST " + json.dumps(loaded) + "\\n")
    sys.stderr.flush()
    return real_events(*args, **kwargs)

openai_chat.http_events = events
from mika_tui.launcher import main
sys.argv = ["mika", *json.loads(sys.argv[2])]
main()
"""


def test_a_headless_runs_first_model_request_waits_for_nothing_it_does_not_use(tmp_path):
    """Through a real provider config (an OpenAI-compatible server on loopback replaying a
    recorded stream): what is loaded when the run's first request goes out."""
    from tests.models.replay_server import ReplayServer, Reply

    with ReplayServer() as server:
        server.queue(Reply.recording("openai_chat_completions_stream/openai-python__tool_call_stream_2024.sse"))
        cfg = tmp_path / "cfg" / "mika"
        cfg.mkdir(parents=True)
        (cfg / "config.toml").write_text(
            f'[providers.loop]\nkind = "openai-chat"\nbase_url = "{server.url}/v1"\napi_key_env = "LOOP_KEY"\n'
            '[roles]\nmain = "loop/m"\n'
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
        env.update(MIKA_STATE_DIR=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "cfg"), LOOP_KEY="sk-loop")
        args = ["--no-ui", "--device", "none", "--max-steps", "1", "say hello"]
        r = subprocess.run(
            [sys.executable, "-c", _FIRST_REQUEST_PROBE, json.dumps(NOT_BEFORE_FIRST_REQUEST), json.dumps(args)],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        assert server.requests, f"no request reached the provider: {r.stderr[-2000:]}"
    reports = [json.loads(line.split(" ", 1)[1]) for line in r.stderr.splitlines() if line.startswith("FIRST-REQUEST ")]
    assert reports, r.stderr[-2000:]
    assert reports[0] == [], f"the first model request waited for {reports[0]}"
