"""`mika runs list` shows the steps and time a run's record holds, for every kind of run.

Before: the recorder writes steps and metrics into run.json only at a run's end, so a
killed run (while it said "running", and after recovery marked it interrupted) was
listed as "0 steps 0.0s" although it had taken two steps over seconds. Now recovery
writes the numbers its events show, and a run still going is listed with its steps so
far and the time since it started. Everything here is a real `mika` subprocess on a
scripted model; `runs show` and the TUI's runs screen are checked against the same
numbers.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from mika.record.metrics_text import secs

ROOT = Path(__file__).resolve().parents[2]
WAIT = {"tool_calls": [{"name": "wait", "arguments": {"seconds": 1}}]}
# Two one-second waits, then a model call that takes 30 s: killed, or listed, during it.
SLOW = [WAIT, WAIT, {**WAIT, "delay": 30}, "ok"]
LINE = re.compile(r"^(?P<id>\S+)\s+(?P<outcome>\S+)\s+(?P<steps>\d+) steps\s+(?P<secs>[\d.]+)s  (?P<goal>.*)$")


def _env(state: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_STATE_DIR=str(state), XDG_CONFIG_HOME=str(state.parent / "cfg"), MIKA_LANGUAGE="en")
    return env


def _script(path: Path, replies: list) -> str:
    path.write_text(json.dumps(replies))
    return f"script:{path}"


def _mika(state: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "mika.cli", "--device", "none", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(state),
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return done


def _start(state: Path, script: str, goal: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "mika.cli", "--device", "none", "--no-ui", "--model", script, goal],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=_env(state),
        cwd=ROOT,
    )


def _record(state: Path, goal: str) -> Path:
    (folder,) = [d for d in (state / "runs").iterdir() if json.loads((d / "run.json").read_text()).get("goal") == goal]
    return folder


def _until_in_third_step(state: Path, goal: str, proc: subprocess.Popen) -> Path:
    """Wait until the run has taken two steps and its third model call is out."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before it was caught mid-way"
        try:
            folder = _record(state, goal)
            events = [json.loads(x) for x in (folder / "events.jsonl").read_text().splitlines() if x.strip()]
        except (OSError, ValueError):
            events = []
        if any(e["type"] == "model_request" and e["step"] == 3 for e in events):
            return folder
        time.sleep(0.1)
    raise AssertionError("the run never reached its third model call")


def _listed(state: Path, run_id: str) -> dict[str, str]:
    lines = [m for line in _mika(state, "runs", "list").stdout.splitlines() if (m := LINE.match(line))]
    (match,) = [m for m in lines if m["id"] == run_id]
    return match.groupdict()


def _shown_time_and_steps(state: Path, run_id: str) -> tuple[str, int]:
    shown = _mika(state, "runs", "show", run_id).stdout
    found = re.search(r"time (\S+) · first feedback \S+ · (\d+) steps", shown)
    assert found, shown
    return found[1], int(found[2])


def _assert_list_matches_run_json(state: Path, folder: Path) -> dict:
    summary = json.loads((folder / "run.json").read_text())
    m = summary["metrics"]
    row = _listed(state, summary["id"])
    assert int(row["steps"]) == m["steps"] == summary["steps"]
    assert row["secs"] == f"{m['total_ms'] / 1000:.1f}"
    assert _shown_time_and_steps(state, summary["id"]) == (secs(m["total_ms"]), m["steps"])
    return summary


def test_a_normally_ended_run_is_listed_with_its_record_numbers(tmp_path):
    state = tmp_path / "state"
    script = _script(tmp_path / "s.json", [WAIT, WAIT, "done"])
    _mika(state, "--no-ui", "--model", script, "wait twice")
    summary = _assert_list_matches_run_json(state, _record(state, "wait twice"))
    assert summary["state"] == "ended" and summary["steps"] == 3  # two waits and the answer
    assert summary["metrics"]["total_ms"] >= 2000  # the two one-second waits


def test_a_live_run_is_listed_with_its_steps_so_far_and_its_time_since_start(tmp_path):
    state = tmp_path / "state"
    proc = _start(state, _script(tmp_path / "slow.json", SLOW), "wait a lot")
    try:
        folder = _until_in_third_step(state, "wait a lot", proc)
        summary = json.loads((folder / "run.json").read_text())
        assert summary["state"] == "running" and "metrics" not in summary
        before = time.time()
        row = _listed(state, summary["id"])
        after = time.time()
        assert (row["outcome"], int(row["steps"])) == ("running", 2)  # the third step's reply is not in
        shown = float(row["secs"])
        assert before - summary["started_at"] - 0.1 <= shown <= after - summary["started_at"] + 0.1
        assert shown >= 2.0  # the two waits at least
        time_shown, steps_shown = _shown_time_and_steps(state, summary["id"])
        assert steps_shown == 2 and float(time_shown.rstrip("s")) >= shown
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_a_killed_run_is_listed_with_its_numbers_before_and_after_recovery(tmp_path):
    state = tmp_path / "state"
    proc = _start(state, _script(tmp_path / "slow.json", SLOW), "wait a lot")
    folder = _until_in_third_step(state, "wait a lot", proc)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    run_id = json.loads((folder / "run.json").read_text())["id"]
    assert int(_listed(state, run_id)["steps"]) == 2  # "0 steps 0.0s" before

    _mika(state, "runs", "recover")
    summary = _assert_list_matches_run_json(state, folder)
    events = [json.loads(x) for x in (folder / "events.jsonl").read_text().splitlines()]
    started = next(e["at"] for e in events if e["type"] == "run_started")
    assert (summary["state"], summary["outcome"], summary["steps"]) == ("interrupted", "interrupted", 2)
    # Its time is the time its record saw it alive: up to its last event, the third
    # model call going out, after the two one-second waits.
    assert summary["last_event_at"] == events[-1]["at"]
    assert summary["metrics"]["total_ms"] == int((events[-1]["at"] - started) * 1000)
    assert summary["metrics"]["total_ms"] >= 2000 and summary["metrics"]["outcome"] == "interrupted"
    # A second recovery leaves the numbers as they are.
    before = (folder / "run.json").read_bytes()
    _mika(state, "runs", "recover")
    assert (folder / "run.json").read_bytes() == before


async def test_the_tui_runs_screen_shows_the_same_numbers(tmp_path, monkeypatch):
    """An ended run, a killed one the TUI's own start recovers, and a live one (timed by
    the app's clock, which the test sets): each row has `runs list`'s steps and time."""
    from textual.widgets import DataTable

    from mika.model.testing import ScriptedModel
    from mika_tui.run_view import format_elapsed
    from tests.tui.conftest import make_app

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    state = tmp_path / "state" / "mika"  # where make_app keeps its state
    _mika(state, "--no-ui", "--model", _script(tmp_path / "s.json", [WAIT, "done"]), "ended run")
    killed = _start(state, _script(tmp_path / "k.json", SLOW), "killed run")
    _until_in_third_step(state, "killed run", killed)
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)
    live = _start(state, _script(tmp_path / "l.json", SLOW), "live run")
    try:
        live_dir = _until_in_third_step(state, "live run", live)
        live_summary = json.loads((live_dir / "run.json").read_text())
        app = make_app(tmp_path, ScriptedModel(["ok"]))
        app.deps.clock.now = live_summary["started_at"] + 75.4  # type: ignore[attr-defined]
        async with app.run_test(size=(140, 40)) as pilot:
            await app.workers.wait_for_complete()
            app.action_open("runs")
            await pilot.pause()
            table = app.screen.query_one("#runs-table", DataTable)
            labels = [str(c.label) for c in table.columns.values()]
            steps_col, time_col = labels.index(app.tr("col_steps")), labels.index(app.tr("col_time"))
            for goal in ("ended run", "killed run"):
                summary = json.loads((_record(state, goal) / "run.json").read_text())
                row = table.get_row(summary["id"])
                assert summary["state"] == ("ended" if goal == "ended run" else "interrupted")
                assert (
                    int(str(row[steps_col]))
                    == summary["metrics"]["steps"]
                    == int(_listed(state, summary["id"])["steps"])
                )
                assert str(row[time_col]) == format_elapsed(summary["metrics"]["total_ms"] / 1000)
            row = table.get_row(live_summary["id"])
            assert (int(str(row[steps_col])), str(row[time_col])) == (2, "1m15s")
    finally:
        live.kill()
        live.wait(timeout=30)
