"""`mika --no-ui` as a user runs it: a real subprocess, real files, exit codes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def mika(args, env_extra=None, timeout=60, **kw):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env["MIKA_DEVICE"] = "none"  # these tests need no phone; test_phone_* below use the simulated one
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "mika.cli", *args], capture_output=True, text=True, timeout=timeout, env=env, **kw
    )


@pytest.fixture
def state(tmp_path):
    return {"MIKA_STATE_DIR": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}


def script(tmp_path, replies) -> str:
    p = tmp_path / "script.json"
    p.write_text(json.dumps(replies))
    return f"script:{p}"


def test_text_output_prints_only_the_answer_on_stdout(tmp_path, state):
    r = mika(
        [
            "--no-ui",
            "--model",
            script(tmp_path, [{"tool_calls": [{"name": "wait", "arguments": {"seconds": 0}}]}, "It is done."]),
            "do it",
        ],
        state,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == "It is done.\n"
    assert "wait" in r.stderr


def test_stream_json_ends_with_a_result_event(tmp_path, state):
    r = mika(["run", "--output-format", "stream-json", "--model", script(tmp_path, ["ok"]), "go"], state)
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert all("run_id" in x for x in lines)
    assert all("conversation_id" in x for x in lines[:-1])
    final = lines[-1]
    assert final["type"] == "result" and final["outcome"] == "answered" and final["answer"] == "ok"
    assert set(final["usage"]) == {"input", "output", "cached"}
    assert r.returncode == 0


def test_runs_list_and_show_read_the_record(tmp_path, state):
    mika(["--no-ui", "--model", script(tmp_path, ["recorded answer"]), "remember me"], state)
    r = mika(["runs", "list", "--json"], state)
    runs = json.loads(r.stdout)
    assert runs[0]["goal"] == "remember me" and runs[0]["outcome"] == "answered"
    shown = mika(["runs", "show", runs[0]["id"], "--json"], state)
    assert json.loads(shown.stdout)["events"][-1]["type"] in ("outcome", "phase")
    missing = mika(["runs", "show", "nope"], state)
    assert missing.returncode == 2 and "mika runs list" in missing.stderr


@pytest.mark.parametrize(
    ("replies", "args", "code"),
    [
        ([{"tool_calls": [{"name": "end_not_done", "arguments": {"subtype": "blocked", "message": "stuck"}}]}], [], 1),
        ([{"tool_calls": [{"name": "wait", "arguments": {"seconds": 0}}]}] * 3, ["--max-steps", "2"], 6),
    ],
)
def test_exit_codes(tmp_path, state, replies, args, code):
    r = mika(["--no-ui", *args, "--model", script(tmp_path, replies), "task"], state)
    assert r.returncode == code, r.stderr


def test_a_bad_config_exits_2_without_a_traceback(tmp_path, state):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[general]\npace = 3\n")
    r = mika(["--no-ui", "--config", str(cfg), "x"], state)
    assert r.returncode == 2
    assert "general.pace: expected a string" in r.stderr
    assert "Traceback" not in r.stderr


def test_no_model_configured_says_how_to_add_one(state):
    r = mika(["--no-ui", "x"], state)
    assert r.returncode == 2 and "[roles]" in r.stderr and "Traceback" not in r.stderr


def test_sigint_stops_the_run_and_closes_the_record(tmp_path, state):
    slow = script(tmp_path, [{"tool_calls": [{"name": "wait", "arguments": {"seconds": 30}}]}, "never"])
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")} | state | {"MIKA_DEVICE": "none"}
    p = subprocess.Popen(
        [sys.executable, "-m", "mika.cli", "--no-ui", "--model", slow, "wait a lot"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    runs = Path(state["MIKA_STATE_DIR"]) / "runs"
    deadline = time.time() + 30
    while time.time() < deadline:
        if runs.exists() and any(
            (d / "events.jsonl").exists() and '"tool_call"' in (d / "events.jsonl").read_text() for d in runs.iterdir()
        ):
            break
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    _out, err = p.communicate(timeout=20)
    assert p.returncode == 130, err
    run_dir = next(runs.iterdir())
    summary = json.loads((run_dir / "run.json").read_text())
    assert summary["state"] == "ended" and summary["outcome"] == "stopped"


async def test_a_conversation_continues_with_its_earlier_turns(tmp_path):
    import io

    from mika.assembly import RunEnvironment, capabilities_for
    from mika.headless import run_headless
    from mika.model.testing import FunctionModel
    from mika.run.task_run import RunOptions, TaskRun

    model = FunctionModel(
        lambda req: "Alice's number is 555-0100." if len(model.requests) == 1 else "Calling 555-0100 now."
    )

    def factory(spec):
        return TaskRun(
            spec, model, capabilities_for(spec, RunEnvironment()), RunOptions(state_dir=tmp_path, pacing=False)
        )

    out = io.StringIO()
    first = await run_headless("find Alice's number", factory, tmp_path, fmt="json", out=out, err=io.StringIO())
    conv = json.loads(out.getvalue())["conversation_id"]
    out2 = io.StringIO()
    second = await run_headless(
        "call her", factory, tmp_path, conversation_id=conv, fmt="json", out=out2, err=io.StringIO()
    )
    assert first.exit_code == 0 and second.exit_code == 0
    opening = model.requests[1].messages[0].text
    assert "find Alice's number" in opening and "555-0100" in opening
    assert opening.endswith("call her")
    assert json.loads(out2.getvalue())["conversation_id"] == conv


def test_an_unknown_conversation_is_a_usage_error(tmp_path, state):
    r = mika(["--no-ui", "--conversation", "nope123", "--model", script(tmp_path, ["x"]), "go"], state)
    assert r.returncode == 2 and "no conversation" in r.stderr


async def test_history_read_pages_through_older_turns(tmp_path):
    import io

    from mika.assembly import RunEnvironment, capabilities_for
    from mika.headless import run_headless
    from mika.model.testing import FunctionModel, Reply
    from mika.run.task_run import RunOptions, TaskRun

    def reply(req):
        if req.messages[0].text.endswith("what did I ask first?") and len(req.messages) == 1:
            return Reply.call("history_read", offset=0, limit=1)
        if req.messages[-1].tool_results:
            return "You first asked: " + req.messages[-1].tool_results[0].text.split("User: ")[1].split("\n")[0]
        return "noted"

    model = FunctionModel(reply)

    def factory(spec):
        env = RunEnvironment(state_dir=tmp_path)
        return TaskRun(spec, model, capabilities_for(spec, env), RunOptions(state_dir=tmp_path, pacing=False))

    out = io.StringIO()
    await run_headless("remember the word pelican", factory, tmp_path, fmt="json", out=out, err=io.StringIO())
    conv = json.loads(out.getvalue())["conversation_id"]
    out2 = io.StringIO()
    await run_headless(
        "what did I ask first?", factory, tmp_path, conversation_id=conv, fmt="json", out=out2, err=io.StringIO()
    )
    assert json.loads(out2.getvalue())["answer"] == "You first asked: remember the word pelican"


def test_runs_recover_is_a_command(state):
    r = mika(["runs", "recover", "--json"], state)
    assert r.returncode == 0, r.stderr
    assert set(json.loads(r.stdout)) >= {"interrupted", "delivered", "told"}


def test_no_phone_attached_exits_3_saying_how_to_attach_one(tmp_path, state):
    import socket

    from adbutils._utils import adb_path

    # A fresh adb server of its own, so no simulated phone of another test is attached.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**state, "MIKA_DEVICE": "", "ANDROID_ADB_SERVER_PORT": str(port), "ADB_MDNS": "0"}
    try:
        r = mika(["--no-ui", "--model", script(tmp_path, ["x"]), "go"], env)
    finally:
        subprocess.run([adb_path(), "-P", str(port), "kill-server"], capture_output=True, timeout=30)
    assert r.returncode == 3, r.stderr
    assert "--device sim" in r.stderr and "Traceback" not in r.stderr


def test_a_headless_run_on_the_simulated_phone(tmp_path, state, adb_server):
    replies = [{"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "Settings"}}]}, "Settings is open."]
    r = mika(["--no-ui", "--device", "sim", "--model", script(tmp_path, replies), "open settings"], state, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Settings is open.\n"


def test_the_readme_demo_turns_on_dark_mode(state, adb_server):
    """The README's first command, exactly, on a fresh state dir."""
    root = Path(__file__).resolve().parents[2]
    r = mika(
        ["--no-ui", "--device", "sim", "--model", "script:examples/dark-mode.json", "turn on dark mode"],
        state,
        timeout=120,
        cwd=root,
    )
    assert r.returncode == 0, r.stderr
    assert "Dark theme is on" in r.stdout
    events = json.loads(
        mika(
            ["runs", "show", json.loads(mika(["runs", "list", "--json"], state).stdout)[0]["id"], "--json"], state
        ).stdout
    )["events"]
    taps = [e for e in events if e["type"] == "tool_result" and e["name"] == "phone_tap"]
    assert taps[-1]["text"].startswith(
        'Tapped switch <untrusted source="screen" app="com.android.settings">Dark theme</untrusted>'
    )
    assert all(e["ok"] for e in taps)


def test_a_password_typed_on_the_phone_never_reaches_the_record(tmp_path, state, adb_server):
    secret = "hunter2-Sw0rdfish"
    replies = [
        {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "Mika ID"}}]},
        {"tool_calls": [{"name": "phone_type_text", "arguments": {"element": 3, "text": secret}}]},
        "Typed the password.",
    ]
    r = mika(["--no-ui", "--device", "sim", "--model", script(tmp_path, replies), "sign in"], state, timeout=120)
    assert r.returncode == 0, r.stderr
    run_dir = next((Path(state["MIKA_STATE_DIR"]) / "runs").iterdir())
    record = (run_dir / "events.jsonl").read_text() + (run_dir / "run.json").read_text()
    assert secret not in record
    typed = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines() if '"tool_result"' in x]
    assert any(e["name"] == "phone_type_text" and e["ok"] for e in typed)


async def test_a_payment_nobody_could_approve_exits_5(tmp_path):
    import io

    from mika.assembly import RunEnvironment, capabilities_for
    from mika.exit_codes import ExitCode
    from mika.headless import run_headless
    from mika.model.testing import Reply, ScriptedModel
    from mika.run.task_run import RunOptions, TaskRun
    from tests.core.toy import ToyCapability, ToyWorld

    world = ToyWorld(screen="Checkout · Total ¥23.50 · Place order")
    model = ScriptedModel(
        [
            Reply.call("toy_open", page=world.screen),
            Reply.call("toy_tap", label="Place order"),
            Reply.call(
                "end_not_done", subtype="blocked", message="Everything is in the cart; placing the order needs you."
            ),
        ]
    )

    def factory(spec):
        caps = capabilities_for(spec, RunEnvironment(extra=[ToyCapability(world)]))
        return TaskRun(spec, model, caps, RunOptions(state_dir=tmp_path, pacing=False))

    err = io.StringIO()
    outcome = await run_headless("buy the beans", factory, tmp_path, out=io.StringIO(), err=err)
    assert outcome.exit_code is ExitCode.APPROVAL
    assert world.taps == []
    assert "approval_unavailable" in err.getvalue()
