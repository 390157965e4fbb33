"""`mika --no-ui` with the phone, as a user runs it: a real subprocess on the real adb
server of this test process, with the simulated phone (`--device sim`) or none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def mika(args, tmp_path: Path, timeout=120):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update({"MIKA_STATE_DIR": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    return subprocess.run(
        [sys.executable, "-m", "mika.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def script(tmp_path: Path, replies) -> str:
    p = tmp_path / "script.json"
    p.write_text(json.dumps(replies))
    return f"script:{p}"


def events(tmp_path: Path) -> list[dict]:
    runs = sorted((tmp_path / "state" / "runs").iterdir())
    return [json.loads(line) for line in (runs[-1] / "events.jsonl").read_text().splitlines()]


def test_an_alarm_is_set_on_the_simulated_phone(tmp_path, adb_server):
    model = script(
        tmp_path,
        [
            {"tool_calls": [{"name": "phone_set_alarm", "arguments": {"hour": 15, "minute": 0, "label": "meeting"}}]},
            "Your 15:00 meeting alarm is set.",
        ],
    )
    r = mika(["--no-ui", "--device", "sim", "--model", model, "Set an alarm for 3PM labelled meeting"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("Your 15:00 meeting alarm is set.")
    alarm = next(e for e in events(tmp_path) if e["type"] == "tool_result" and e["name"] == "phone_set_alarm")
    assert alarm["ok"] and "check: verified" in alarm["text"]


def test_a_phone_that_is_not_attached_exits_3_saying_so(tmp_path, adb_server):
    r = mika(["--no-ui", "--device", "nope:1", "--model", script(tmp_path, ["x"]), "go"], tmp_path)
    assert r.returncode == 3
    assert "No phone 'nope:1'" in r.stderr and "Traceback" not in r.stderr


def test_several_phones_exit_3_listing_them(tmp_path, sim_phone_factory):
    a, b = sim_phone_factory(serial="a"), sim_phone_factory(serial="b")
    r = mika(["--no-ui", "--model", script(tmp_path, ["x"]), "go"], tmp_path)
    assert r.returncode == 3, r.stderr
    assert a.serial in r.stderr and b.serial in r.stderr and "--device" in r.stderr
