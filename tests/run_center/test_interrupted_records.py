"""A killed run's record says "interrupted" after recovery, wherever runs are listed.

Before: `mika runs recover` fixed run-state.json only, and `runs list`, `runs show` and
the TUI's runs screen (all reading `runs/<time>-<id>/run.json`) showed the run
"running" forever. Real `mika --no-ui` processes on a scripted model kill themselves
(MIKA_TEST_KILL_AT, mika/run/fault_injection.py); the commands run through click's
CliRunner (in this process) and the TUI through Textual's pilot.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from mika.cli import cli

ROOT = Path(__file__).resolve().parents[2]
ANSWER = "The parcel arrives tomorrow."


def _headless(state: Path, goal: str, replies: list, kill_at: str = "") -> subprocess.CompletedProcess:
    state.parent.mkdir(parents=True, exist_ok=True)
    script = state.parent / f"script-{abs(hash(goal))}.json"
    script.write_text(json.dumps(replies))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_STATE_DIR=str(state), XDG_CONFIG_HOME=str(state.parent / "cfg"), MIKA_LANGUAGE="en")
    if kill_at:
        env["MIKA_TEST_KILL_AT"] = kill_at
    return subprocess.run(
        [sys.executable, "-m", "mika.cli", "--device", "none", "--no-ui", "--model", f"script:{script}", goal],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )


WAIT_THEN_ANSWER = [{"tool_calls": [{"name": "wait", "arguments": {"seconds": 0}}]}, ANSWER]


def _cli(state: Path, *args: str):
    result = CliRunner().invoke(
        cli, list(args), env={"MIKA_STATE_DIR": str(state), "MIKA_LANGUAGE": "en"}, catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return result


def _listed(state: Path) -> dict[str, dict]:
    return {r["id"]: r for r in json.loads(_cli(state, "runs", "list", "--json").stdout)}


def _by_goal(state: Path, goal: str) -> str:
    (run_id,) = [rid for rid, r in _listed(state).items() if r.get("goal") == goal]
    return run_id


def test_runs_recover_marks_the_record_of_a_killed_run_interrupted(tmp_path):
    state = tmp_path / "state"
    killed = _headless(state, "check the parcel status", WAIT_THEN_ANSWER, kill_at="tool_call:1")
    assert killed.returncode == -9
    run_id = _by_goal(state, "check the parcel status")
    assert _listed(state)[run_id]["state"] == "running"  # what the list said forever before

    recover = _cli(state, "runs", "recover", "--json")
    assert json.loads(recover.stdout)["interrupted"] == [run_id]

    record = _listed(state)[run_id]
    assert (record["state"], record["outcome"]) == ("interrupted", "interrupted") and record["interrupted_at"] > 0
    table = _cli(state, "runs", "list").stdout
    (line,) = [x for x in table.splitlines() if x.startswith(run_id)]
    assert line.split()[1] == "interrupted"
    shown = _cli(state, "runs", "show", run_id)
    assert shown.stdout.startswith(f"run {run_id} · interrupted · check the parcel status")
    assert json.loads(_cli(state, "runs", "show", run_id, "--json").stdout)["run"]["state"] == "interrupted"
    # A second recovery changes nothing: run.json is not rewritten once it is marked.
    path = next((state / "runs").glob(f"*-{run_id}/run.json"))
    before = path.read_bytes()
    _cli(state, "runs", "recover")
    assert path.read_bytes() == before


def test_recovery_at_start_marks_records_and_keeps_a_saved_answer(tmp_path):
    """The next headless run recovers at start: a run killed after its outcome was told
    is listed with its answer (only the aftercare was cut), one killed mid-step as
    interrupted; the new run ends normally."""
    state = tmp_path / "state"
    assert _headless(state, "first: killed mid-step", WAIT_THEN_ANSWER, kill_at="tool_call:1").returncode == -9
    assert _listed(state)[_by_goal(state, "first: killed mid-step")]["state"] == "running"
    # The second start recovers the first run's record before it is killed itself.
    assert _headless(state, "second: killed after outcome", WAIT_THEN_ANSWER, kill_at="outcome:1").returncode == -9
    listed = {r["goal"]: r["state"] for r in _listed(state).values()}
    assert listed == {"first: killed mid-step": "interrupted", "second: killed after outcome": "running"}

    nxt = _headless(state, "third: runs to its end", ["Done."])
    assert nxt.returncode == 0, nxt.stderr
    listed = {r["goal"]: r for r in _listed(state).values()}
    assert (listed["first: killed mid-step"]["state"], listed["first: killed mid-step"]["outcome"]) == (
        "interrupted",
        "interrupted",
    )
    second = listed["second: killed after outcome"]
    assert (second["state"], second["outcome"], second["answer"]) == ("interrupted", "answered", ANSWER)
    assert (listed["third: runs to its end"]["state"], listed["third: runs to its end"]["outcome"]) == (
        "ended",
        "answered",
    )
    assert not [r for r in listed.values() if r["state"] == "running"]


async def test_the_tui_runs_screen_shows_an_interrupted_run_as_interrupted(tmp_path, monkeypatch):
    """The TUI recovers at start too, and its runs screen reads the same records."""
    from textual.widgets import DataTable

    from mika.model.testing import ScriptedModel
    from tests.tui.conftest import make_app

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    state = tmp_path / "state" / "mika"  # where make_app keeps its state
    assert _headless(state, "check the parcel status", WAIT_THEN_ANSWER, kill_at="tool_call:1").returncode == -9
    run_id = _by_goal(state, "check the parcel status")

    app = make_app(tmp_path, ScriptedModel(["ok"]))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        app.action_open("runs")
        await pilot.pause()
        table = app.screen.query_one("#runs-table", DataTable)
        row = table.get_row(run_id)
        goal = [str(c.label) for c in table.columns.values()].index(app.tr("col_goal"))
        assert str(row[1]) == "interrupted" and str(row[goal]) == "check the parcel status"
