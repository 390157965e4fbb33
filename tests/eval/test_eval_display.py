"""`mika eval`'s runs work on the phone's main screen, where the task's scenario was set
up: the notification shade exists on display 0 only, and an app the scenario opened is
there. A user's `[phone] display = "virtual"` (the default, which keeps a real phone's
screen free) is left as it is for every other run."""

from __future__ import annotations

import json

import pytest

from mika.assembly.assembly import run_display
from mika.config.errors import ConfigError
from mika.config.settings import parse_settings
from tests.eval.evalrun import run_eval


def test_the_display_is_the_setting_unless_the_harness_overrides(monkeypatch):
    monkeypatch.delenv("MIKA_RUN_DISPLAY", raising=False)
    assert run_display(parse_settings({})) == "virtual"  # a real phone keeps its own screen
    assert run_display(parse_settings({"phone": {"display": "main"}})) == "main"
    monkeypatch.setenv("MIKA_RUN_DISPLAY", "main")
    assert run_display(parse_settings({"phone": {"display": "virtual"}})) == "main"
    monkeypatch.setenv("MIKA_RUN_DISPLAY", "second")
    with pytest.raises(ConfigError, match="MIKA_RUN_DISPLAY: expected one of virtual, main"):
        run_display(parse_settings({}))


@pytest.mark.usefixtures("adb_server")
def test_eval_runs_on_the_screen_the_scenario_prepared(tmp_path, monkeypatch):
    # The shade (drawn on display 0 only) and a Form Lab screen the scenario opened: on a
    # display of the run's own both were an empty, black screen.
    monkeypatch.delenv("MIKA_RUN_DISPLAY", raising=False)
    wanted = ("shade_dnd_on", "lab_load_more")
    run = run_eval(tmp_path, "--tasks", ",".join(wanted), "--model", "reference", "--parallel", "2")
    assert run.code == 0, run.stderr
    rows = run.rows()
    assert sorted(rows) == sorted(wanted)
    for task, row in rows.items():
        assert row["passed"], (task, row["category"], row["detail"])
        events = [json.loads(line) for line in (run.folder / row["record"] / "events.jsonl").open(encoding="utf-8")]
        started = next(e for e in events if e["type"] == "run_started")
        assert started["display"] == {"mode": "main", "id": 0}, started["display"]
        assert not [e for e in events if e["type"] == "display" and e.get("mode") == "virtual"]
