"""Issue 13's Done-when, as a user runs it: a headless run (`mika --no-ui
--output-format stream-json`, a real subprocess on the test's adb server) opens Settings
and operates it on the run's own display, while display 0's foreground stays what the
user had (`simctl state` read before, and again while the run still holds its display).

DEPENDS ON the `simscrcpy` (the sim's scrcpy server) and `simdisplays` (u2 dumps with
display-id on every display) branches: on a simulated phone without them the helper
cannot start, the run falls back to display 0, and this test fails at the
"virtual" assertion — by design, it is not skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

NEVER = "zz-this-text-never-appears-zz"


def _state(sim_phone) -> dict:
    return json.loads(sim_phone.shell("simctl state"))


def test_a_headless_run_works_settings_on_its_own_display_and_leaves_display_0_alone(tmp_path: Path, sim_phone):
    before = _state(sim_phone)["foreground"]
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "com.android.settings"}}]},
                {"tool_calls": [{"name": "phone_tap", "arguments": {"x": 540, "y": 700}}]},
                # Holds the run (and its display) while the test reads the phone's state.
                {"tool_calls": [{"name": "phone_wait", "arguments": {"expect": NEVER, "timeout_s": 10}}]},
                "Settings was opened.",
            ]
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update({"MIKA_STATE_DIR": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mika.cli",
            "--no-ui",
            "--device",
            sim_phone.serial,
            "--output-format",
            "stream-json",
            "--model",
            f"script:{script}",
            "Open Settings",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    seen: list[dict] = []
    during = None
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if not line.strip().startswith("{"):
                continue
            event = json.loads(line)
            seen.append(event)
            if event.get("type") == "tool_result" and event.get("name") == "phone_tap" and during is None:
                during = _state(sim_phone)["foreground"]
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    started = next(e for e in seen if e.get("type") == "run_started")
    assert started["display"]["mode"] == "virtual"
    results = {e["name"]: e for e in seen if e.get("type") == "tool_result"}
    assert results["phone_launch_app"]["ok"] and results["phone_tap"]["ok"]
    display = results["phone_tap"]["display"]
    assert display["mode"] == "virtual", f"the run fell back to the main screen: {display}"
    n = display["id"]
    assert n != 0 and results["phone_launch_app"]["display"]["id"] == n
    assert during is not None
    assert during["0"] == before["0"], "display 0's foreground changed while the run worked"
    assert (during.get(str(n)) or "").startswith("com.android.settings/")
    # When the run ends its display is removed (the task moves to the main screen,
    # vd_destroy_content=false: see mika/cap/phone/display/life.py).
    assert str(n) not in _state(sim_phone)["foreground"]
