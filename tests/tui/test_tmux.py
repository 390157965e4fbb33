"""The real app, started as a user would (`mika --device sim`) inside tmux, against the
simulated phone on a real adb server: type a task, read the answer off the pane.

Catches a broken start that in-process Pilot tests cannot (entry point, terminal
driver, the sim started as a child process). Needs tmux (CI installs it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

# On a developer machine without tmux the test is skipped; in CI (.ci/run installs tmux) a
# missing tmux must fail, not skip.
pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None and not os.environ.get("CI"), reason="tmux is not installed (CI installs it)"
)


def _pane(session: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout


def _wait_for(session: str, text: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    pane = ""
    while time.monotonic() < deadline:
        pane = _pane(session)
        if text in pane:
            return pane
        time.sleep(0.3)
    raise AssertionError(f"{text!r} never appeared; the pane shows:\n{pane}")


def test_the_app_starts_in_tmux_runs_a_task_and_quits(tmp_path: Path, adb_server):
    script = tmp_path / "model.json"
    script.write_text(
        json.dumps(
            [
                "Dark mode is **on** now.",
                {"tool_calls": [{"name": "phone_list_apps", "arguments": {}}]},
                "Those are the apps on the phone.",
            ]
        )
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TEXTUAL_") and k != "NO_COLOR" and not k.startswith("PYTEST")
    }
    env.update(
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        TERM="xterm-256color",
        LANG="C.UTF-8",
        ANDROID_ADB_SERVER_PORT=str(adb_server.port),
    )
    session = f"mika-test-{os.getpid()}"
    cmd = f"{sys.executable} -m mika_tui.launcher --device sim --model script:{script}"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", cmd],
        env=env,
        check=True,
        cwd=str(Path(__file__).resolve().parents[2]),
    )
    try:
        pane = _wait_for(session, "Type a task", 60)
        assert "simulated phone" in pane
        subprocess.run(["tmux", "send-keys", "-t", session, "-l", "turn on dark mode"], check=True)
        subprocess.run(["tmux", "send-keys", "-t", session, "Enter"], check=True)
        pane = _wait_for(session, "Dark mode is on now.", 30)
        assert "view run" in pane
        # A second task in the same conversation goes to the simulated phone through adb.
        subprocess.run(["tmux", "send-keys", "-t", session, "-l", "which apps do I have"], check=True)
        subprocess.run(["tmux", "send-keys", "-t", session, "Enter"], check=True)
        _wait_for(session, "Those are the apps on the phone.", 60)
        # Its row in the step timeline, in words (the row may be cut short in the narrow column).
        pane = _wait_for(session, "1 ✓ List apps", 20)
        subprocess.run(["tmux", "send-keys", "-t", session, "C-c"], check=True)
        time.sleep(0.2)
        subprocess.run(["tmux", "send-keys", "-t", session, "C-c"], check=True)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if subprocess.run(["tmux", "has-session", "-t", session], capture_output=True).returncode != 0:
                break
            time.sleep(0.3)
        else:
            raise AssertionError("the app did not quit on Ctrl+C twice:\n" + _pane(session))
        assert "Traceback" not in pane
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
