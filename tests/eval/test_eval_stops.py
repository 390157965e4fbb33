"""An evaluation that runs long ends cleanly: a task past --timeout is reported
"timeout", Ctrl+C stops `mika eval` with exit 130 and a report of what got done — and
neither leaves a child process (phone or run) behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.eval.evalrun import MIXED, empty_config, run_eval

pytestmark = pytest.mark.usefixtures("adb_server")


def leftovers(marker: Path) -> list[int]:
    """Processes whose environment names `marker` (each task's state folder is under it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if str(marker).encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def ended(marker: Path, within_s: float = 10.0) -> bool:
    """Whether every process under `marker` is gone, waiting on that and not a fixed time."""
    deadline = time.monotonic() + within_s
    while leftovers(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_task_past_its_timeout_is_reported_and_its_processes_end(tmp_path):
    # 1 s, the least --timeout takes: less than `mika run` needs to start and act, so the task
    # is always past it (3 s held only while every read of the Wi-Fi page went to OCR).
    run = run_eval(tmp_path, "--suite", str(MIXED), "--tasks", "settings_wifi_off", "--timeout", "1")
    assert run.code == 0, run.stderr
    row = run.rows()["settings_wifi_off"]
    assert row["category"] == "timeout" and "longer than 1 s" in row["detail"]
    assert row["wall_s"] < 15
    assert leftovers(run.folder) == []


def test_ctrl_c_stops_the_evaluation_with_exit_130_and_a_partial_report(tmp_path):
    report = tmp_path / "report"
    argv = [sys.executable, "-c", "import sys; from mika.cli import main; main(sys.argv[1:])"]
    argv += ["--config", str(empty_config(tmp_path)), "eval", "--suite", str(MIXED), "--report", str(report)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Once the first task's run has started (its state folder exists), interrupt.
    deadline = time.monotonic() + 60
    while not list(report.glob("runs/*/state")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert list(report.glob("runs/*/state")), "no task started"
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "stopped: the report has the task runs as far as they got" in err and "Traceback" not in err

    rows = json.loads((report / "report.json").read_text())["rows"]
    assert len(rows) == 4
    assert "interrupted" in {r["category"] for r in rows}
    assert ended(report), leftovers(report)
