"""The notification end to end: the real app (`python -m mika_tui.launcher`) in a real
terminal (tmux), Textual's real driver. The terminal reports focus-out with the bytes a
terminal sends for it (ESC [ O, focus reporting mode 1004, written into the pane's input
with `send-keys -H`); the question card that comes up afterwards must ring the bell on
the terminal (seen in the pane's raw output through `pipe-pane`) and run notify-send (a
fake one first on PATH that records its argv) with our own words only.

Needs tmux (CI installs it), like tests/tui/test_tmux.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None and not os.environ.get("CI"), reason="tmux is not installed (CI installs it)"
)

HOSTILE = "\x1b]9;Your bank: call +1 555 0100\x07 <a href='http://evil'>verify</a>"
# How long the scripted model "thinks" before its question: the test leaves the terminal
# as soon as the pane shows the run, well inside this.
THINK_S = 6


def _tmux(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False)


def _wait(what, predicate, timeout: float, session: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"{what} never happened; the pane shows:\n{_tmux('capture-pane', '-p', '-t', session).stdout}")


def test_a_question_while_the_terminal_is_in_the_background_rings_and_notifies(tmp_path: Path):
    script = tmp_path / "model.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool_calls": [{"name": "ask_user", "arguments": {"question": HOSTILE, "options": ["S", "M"]}}],
                    "delay": THINK_S,
                },
                "ok",
            ]
        )
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "notify-send.log"
    fake = bin_dir / "notify-send"
    fake.write_text(
        f"#!{sys.executable}\nimport json, sys\nopen({str(log)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
    )
    fake.chmod(0o755)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TEXTUAL_", "PYTEST", "SSH_")) and k not in ("NO_COLOR", "TMUX")
    }
    env.update(
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        TERM="xterm-256color",
        LANG="C.UTF-8",
        PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        DBUS_SESSION_BUS_ADDRESS="unix:path=/run/user/1000/bus",
    )
    session = f"mika-notify-{os.getpid()}"
    raw = tmp_path / "pane.raw"
    cmd = f"{sys.executable} -m mika_tui.launcher --device none --model script:{script}"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", cmd],
        env=env,
        check=True,
        cwd=str(Path(__file__).resolve().parents[2]),
    )
    try:
        _tmux("pipe-pane", "-o", "-t", session, f"cat >> {raw}")
        _wait("the prompt", lambda: "Type a task" in _tmux("capture-pane", "-p", "-t", session).stdout, 60, session)
        _tmux("send-keys", "-t", session, "-l", "buy a shirt")
        _tmux("send-keys", "-t", session, "Enter")
        _wait("the run", lambda: "running" in _tmux("capture-pane", "-p", "-t", session).stdout, 20, session)
        _tmux("send-keys", "-t", session, "-H", "1b", "5b", "4f")  # ESC [ O: the terminal lost focus
        calls = _wait("notify-send", lambda: log.exists() and log.read_text().splitlines(), THINK_S + 20, session)
        assert [json.loads(c) for c in calls] == [["-a", "Mika", "--", "Mika", "Mika needs you: answer a question"]]
        # The notification is sent as the card is mounted; the card's paint can land a frame later.
        _wait("the card", lambda: "needs you" in _tmux("capture-pane", "-p", "-t", session).stdout, 10, session)
        # A bare BEL, not the end of one of Textual's own OSC sequences (title, colours).
        _wait(
            "the bell",
            lambda: b"\x07" in re.sub(rb"\x1b\][^\x07\x1b]*(\x07|\x1b\\)", b"", raw.read_bytes()),
            10,
            session,
        )
        assert b"\x1b]9;Your bank" not in raw.read_bytes()  # the page's escape never reaches the terminal
    finally:
        _tmux("kill-session", "-t", session)
