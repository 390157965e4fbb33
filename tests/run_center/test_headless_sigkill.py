"""Done means: `mika --no-ui` killed with SIGKILL mid-step, started again — the
conversation is told once, the run is marked interrupted, every state file is JSON.

Real subprocesses of the real CLI with a scripted model, against the simulated phone
through the test's real adb server: the process dies inside a phone step (`phone_wait`
polling the screen for text that never comes).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_STATE_DIR=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "cfg"), MIKA_LANGUAGE="en")
    return env


def _script(tmp_path: Path, name: str, replies: list) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(replies))
    return f"script:{path}"


def _mika(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    # The later starts need no phone: they only show what recovery tells.
    return subprocess.run(
        [sys.executable, "-m", "mika.cli", "--device", "none", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path),
        cwd=ROOT,
    )


def test_headless_sigkill_mid_step_then_restart(tmp_path, adb_server):
    slow = _script(
        tmp_path,
        "slow.json",
        [
            {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "Settings"}}]},
            {"tool_calls": [{"name": "phone_wait", "arguments": {"expect": "Parcel delivered", "timeout_s": 20}}]},
            "never",
        ],
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mika.cli",
            "--no-ui",
            "--device",
            "sim",
            "--output-format",
            "stream-json",
            "--model",
            slow,
            "check the parcel status",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
        cwd=ROOT,
    )
    events = []
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        assert line, f"mika ended before its phone_wait step: {proc.communicate()[1]}"
        events.append(json.loads(line))
        if events[-1]["type"] == "tool_call" and events[-1]["name"] == "phone_wait":
            break
    run_id, conv = events[0]["run_id"], events[0]["conversation_id"]
    assert conv and all(e["run_id"] == run_id and e["conversation_id"] == conv for e in events)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    proc.stderr.close()

    quick = _script(tmp_path, "quick.json", ["The parcel arrives tomorrow."])
    again = _mika(tmp_path, "--no-ui", "--conversation", conv, "--model", quick, "try again")
    assert again.returncode == 0, again.stderr
    assert again.stdout == "The parcel arrives tomorrow.\n"
    assert again.stderr.count("interrupted") == 1 and "check the parcel status" in again.stderr
    for _ in range(2):  # later starts say nothing more about it
        later = _mika(tmp_path, "--no-ui", "--conversation", conv, "--model", quick, "and now")
        assert later.returncode == 0, later.stderr
        assert "interrupted" not in later.stderr

    shown = json.loads(_mika(tmp_path, "conversations", "show", conv, "--json").stdout)
    turns = [(t["run_id"], t["user"], t["outcome"]) for t in shown["turns"]]
    assert turns[0] == (run_id, "check the parcel status", "failed")
    assert shown["turns"][0]["answer"] == "The task was interrupted; you can start it again."
    assert [t[2] for t in turns[1:]] == ["answered", "answered", "answered"]

    state = tmp_path / "state"
    runs = json.loads((state / "run-state.json").read_text())["runs"]
    assert runs[run_id]["phase"] == "interrupted"
    ledger = json.loads((state / "outbox.json").read_text())["entries"]
    assert [k for k in ledger if k.startswith("interrupted:")] == [f"interrupted:{run_id}"]
    files = list(state.rglob("*.json"))
    assert len(files) >= 4
    for path in files:
        json.loads(path.read_text())
