"""`mika runs recover` names each run it settled and says what it did, with true counts.

Before: one sentence, "Marked 1 run(s) interrupted; delivered 0, told 1, …", that named no
run and counted as "marked" only the runs this very start marked — a run an earlier start
marked and this one settled was not said at all beside the counts. Real `mika`
subprocesses on a scripted model; a recovery is cut short by SIGKILL at the rename that
would write a run's record (the launcher below wraps `os.replace`, as the crash tests do).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WAIT = {"tool_calls": [{"name": "wait", "arguments": {"seconds": 0}}]}
ANSWER = "The parcel arrives tomorrow."

# KILL_AT_RENAME=<suffix>: SIGKILL this process right before the first rename onto a path
# ending with <suffix> (the temp file is written, the rename never happens).
LAUNCHER = textwrap.dedent("""
    import os, runpy, signal, sys
    suffix = os.environ.pop("KILL_AT_RENAME", "")
    real = os.replace
    def replace(src, dst, *args, **kwargs):
        if suffix and os.fspath(dst).endswith(suffix):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(src, dst, *args, **kwargs)
    os.replace = replace
    sys.argv = ["mika", *sys.argv[1:]]
    runpy.run_module("mika.cli", run_name="__main__")
""")


def _mika(state: Path, *args: str, lang: str = "en", **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    full.update(MIKA_STATE_DIR=str(state), XDG_CONFIG_HOME=str(state.parent / "cfg"), MIKA_LANGUAGE=lang, **env)
    return subprocess.run(
        [sys.executable, "-c", LAUNCHER, "--device", "none", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=full,
        cwd=ROOT,
    )


def _killed_run(tmp_path: Path, goal: str, replies: list, kill_at: str, *args: str) -> str:
    state = tmp_path / "state"
    script = tmp_path / f"script-{abs(hash(goal))}.json"
    script.write_text(json.dumps(replies))
    killed = _mika(state, "--no-ui", *args, "--model", f"script:{script}", goal, MIKA_TEST_KILL_AT=kill_at)
    assert killed.returncode == -9, killed.stderr
    (run_id,) = [
        json.loads((d / "run.json").read_text())["id"]
        for d in (state / "runs").iterdir()
        if json.loads((d / "run.json").read_text())["goal"] == goal
    ]
    return run_id


def _running(tmp_path: Path, goal: str, replies: list, steps_before: int) -> subprocess.Popen:
    """A live `mika --no-ui` whose model call after `steps_before` steps takes 60 s."""
    state = tmp_path / "state"
    script = tmp_path / f"script-{abs(hash(goal))}.json"
    script.write_text(json.dumps(replies))
    full = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    full.update(MIKA_STATE_DIR=str(state), XDG_CONFIG_HOME=str(state.parent / "cfg"), MIKA_LANGUAGE="en")
    proc = subprocess.Popen(
        [sys.executable, "-m", "mika.cli", "--device", "none", "--no-ui", "--model", f"script:{script}", goal],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=full,
        cwd=ROOT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None
        for events in (state / "runs").glob("*/events.jsonl") if (state / "runs").is_dir() else ():
            if f'"step": {steps_before + 1}, ' in events.read_text() and f'"goal": "{goal}"' in events.read_text():
                return proc
        time.sleep(0.1)
    raise AssertionError(f"{goal!r} never reached step {steps_before + 1}")


def test_each_settled_run_is_named_with_what_was_done(tmp_path):
    state = tmp_path / "state"
    # Two Mikas at once, so that neither start settles the other's run: one is killed in
    # its third model call, the other right after its outcome.
    slow = _running(tmp_path, "check the parcel status", [WAIT, WAIT, {**WAIT, "delay": 60}], steps_before=2)
    # --output-format json prints its answer only at the end: killed after the outcome, the
    # answer was saved and never shown, so recovery sends it again.
    saved = _killed_run(tmp_path, "book a table", [ANSWER], "outcome:1", "--output-format", "json")
    slow.kill()
    slow.wait(timeout=30)
    mid = next(
        json.loads((d / "run.json").read_text())["id"]
        for d in (state / "runs").iterdir()
        if json.loads((d / "run.json").read_text())["goal"] == "check the parcel status"
    )

    done = _mika(state, "runs", "recover")
    assert done.returncode == 0, done.stderr
    # What was delivered is the command's data, on stdout: the notice and the saved answer.
    assert sorted(done.stdout.splitlines()) == [
        f"(recovered after a restart) {ANSWER}",
        "Mika was closed while working on “check the parcel status”. The task was interrupted;"
        " you can start it again in that conversation.",
    ]
    lines = done.stderr.splitlines()
    assert "Settled 2 run(s) (2 marked interrupted by this recovery): delivered 1, told 1, closed 0" in lines[0]
    assert f"  {mid} “check the parcel status”: marked interrupted after 2 steps; told you it was interrupted." in lines
    # Its delivery is on the ledger as failed (json output prints at the end, never reached).
    assert f"  {saved} “book a table”: marked interrupted after 1 step; its saved answer sent again" in done.stderr

    again = _mika(state, "runs", "recover")
    assert again.stdout == ""  # nothing sent twice
    assert again.stderr.splitlines() == [
        "Nothing to recover now; settled earlier:",
        f"  {mid} “check the parcel status”: already told earlier.",
    ]  # the delivered run is closed; the told one stays interrupted, and is said as told


def test_a_run_marked_by_an_earlier_start_is_counted_as_settled_not_as_marked(tmp_path):
    """The first recovery dies after marking the run in run-state.json, before its record
    and before telling anyone; the next one settles it and does not claim to have marked it."""
    state = tmp_path / "state"
    run_id = _killed_run(tmp_path, "check the parcel status", [WAIT, WAIT, ANSWER], "tool_call:2")
    cut = _mika(state, "runs", "recover", KILL_AT_RENAME="run.json")
    assert cut.returncode == -9
    runs = json.loads((state / "run-state.json").read_text())["runs"]
    assert runs[run_id]["phase"] == "interrupted"  # marked by the start that died

    done = _mika(state, "runs", "recover", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    # The old keys keep their meaning: this start marked nothing, and told one.
    assert report["interrupted"] == [] and report["told"] == [run_id]
    assert report["delivered"] == report["ended"] == report["uncertain"] == []
    assert {"borrowed_restored", "borrowed_kept", "errors"} <= set(report)
    assert report["settled"] == [run_id] and report["skipped"] == []
    assert report["runs"] == [
        {
            "id": run_id,
            "goal": "check the parcel status",
            "marked_interrupted": False,
            "steps": 2,
            "done": "told_interrupted",
        }
    ]
    # Its record was put right by this start all the same, with its numbers.
    (record,) = (state / "runs").glob(f"*-{run_id}/run.json")
    summary = json.loads(record.read_text())
    assert (summary["state"], summary["steps"]) == ("interrupted", 2)


def test_the_text_report_in_the_same_case(tmp_path):
    state = tmp_path / "state"
    run_id = _killed_run(tmp_path, "check the parcel status", [WAIT, ANSWER], "tool_call:1")
    assert _mika(state, "runs", "recover", KILL_AT_RENAME="run.json").returncode == -9
    done = _mika(state, "runs", "recover")
    assert done.stderr.splitlines()[:2] == [
        "Settled 1 run(s) (0 marked interrupted by this recovery): delivered 0, told 1, closed 0;"
        " gave back 0 borrowed thing(s).",
        f"  {run_id} “check the parcel status”: told you it was interrupted.",
    ]


def test_the_report_in_chinese(tmp_path):
    state = tmp_path / "state"
    mid = _killed_run(tmp_path, "查快递", [WAIT, ANSWER], "tool_call:1")
    done = _mika(state, "runs", "recover", lang="zh")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "善后 1 个运行（其中 1 个由这次标记为中断）：补送 0 条，告知 1 条，结束 0 个；归还借用 0 项。",
        f"  {mid}「查快递」：做了 1 步后中断，已标记；已告诉你它中断了。",
    ]
    assert "查快递" in done.stdout  # the notice itself, in Chinese
    again = _mika(state, "runs", "recover", lang="zh")
    assert again.stderr.splitlines() == ["现在没有需要善后的运行；之前已善后：", f"  {mid}「查快递」：之前已告知。"]
