"""Done when: `mika serve` — real processes of the real CLI, a private state dir, a
scripted model (`--model script:PATH`: no provider can run here), `--device none`.

- a `+3s` task runs exactly once;
- killed with SIGKILL before the window is claimed, then restarted: it runs once;
- killed after the claim, inside the run, then restarted (twice): never run again, and the
  conversation is told "result unknown" exactly once;
- a reminder is delivered by a serve whose model fails if called;
- a condition fires only on its false→true edges (false, true, true, error, false, true → 2).

Every wait polls for evidence on disk or on the process's stdout, with a deadline.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from mika.run.conversations import ConversationStore
from mika.run.outbox import Outbox
from mika.run.run_store import RunStore
from mika.trigger.definition import Timing, TimingKind, Trigger, TriggerKind
from mika.trigger.store import TriggerStore

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_S = 60


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_") and k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(
        MIKA_STATE_DIR=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "cfg"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        MIKA_LANGUAGE="en",
    )
    return env


def _script(tmp_path: Path, name: str, replies: list) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(replies))
    return f"script:{path}"


def _mika(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "mika.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(tmp_path),
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return done


def _add(tmp_path: Path, *args: str) -> tuple[str, str]:
    """(trigger id, conversation id) of a new schedule."""
    _mika(tmp_path, "schedule", "add", *args)
    (row,) = [r for r in json.loads(_mika(tmp_path, "schedule", "list", "--json").stdout) if r["goal"] == args[-1]]
    return row["id"], row["conversation_id"]


def _serve(tmp_path: Path, model: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "mika.cli", "--device", "none", "serve", "--poll", "0.2", "--model", model],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
        cwd=ROOT,
    )


def _until(what: str, check, proc: subprocess.Popen | None = None):
    deadline = time.time() + DEADLINE_S
    while True:
        found = check()
        if found:
            return found
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"mika serve ended before {what}: {proc.communicate()[1]}")
        if time.time() >= deadline:
            said = ""
            if proc is not None:  # what serve said is the only clue to why it never got there
                proc.kill()
                out, err = proc.communicate(timeout=DEADLINE_S)
                said = f"\nserve stdout:\n{out}\nserve stderr:\n{err}"
            raise AssertionError(f"timed out waiting for {what}{said}")
        time.sleep(0.05)


def _stop(proc: subprocess.Popen) -> tuple[str, str]:
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err
    return out, err


def _windows(tmp_path: Path, trigger_id: str) -> dict:
    return TriggerStore(tmp_path / "state").get(trigger_id).windows


def _done(tmp_path: Path, trigger_id: str) -> bool:
    return any(w.get("state") == "done" for w in _windows(tmp_path, trigger_id).values())


def _turns(tmp_path: Path, cid: str):
    return ConversationStore(tmp_path / "state").get(cid).turns


def test_a_plus_3s_task_runs_exactly_once(tmp_path):
    model = _script(tmp_path, "once.json", ["The weather is sunny."])  # a second run would find no reply
    tid, cid = _add(tmp_path, "--at", "+3s", "check the weather")
    marker, _ = _add(tmp_path, "--at", "+5s", "--reminder", "later marker")
    serve = _serve(tmp_path, model)
    _until("the marker reminder after the task", lambda: _done(tmp_path, marker) and _done(tmp_path, tid), serve)
    out, _ = _stop(serve)
    assert [t.answer for t in _turns(tmp_path, cid)] == ["The weather is sunny."]
    assert len(_windows(tmp_path, tid)) == 1
    assert [r.goal for r in RunStore(tmp_path / "state").all()] == ["check the weather"]
    lines = [line for line in out.splitlines() if line.strip()]
    assert sum(f"{tid}@" in line for line in lines) == 1 and "answered: The weather is sunny." in out


def test_killed_before_the_claim_then_restarted_runs_once(tmp_path):
    model = _script(tmp_path, "once.json", ["Done: the report is posted."])
    # Due well after serve is up: a loaded machine took over 3 s to start it, and claimed first.
    tid, cid = _add(tmp_path, "--at", "+10s", "post the report")
    first = _serve(tmp_path, model)
    _until(
        "serve to start",
        lambda: (tmp_path / "state" / "leases").is_dir() and any((tmp_path / "state" / "leases").iterdir()),
        first,
    )
    assert _windows(tmp_path, tid) == {}
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=DEADLINE_S)
    assert _windows(tmp_path, tid) == {}  # killed before its time: nothing claimed
    second = _serve(tmp_path, model)
    _until("the task to run", lambda: _done(tmp_path, tid), second)
    _stop(second)
    assert [t.answer for t in _turns(tmp_path, cid)] == ["Done: the report is posted."]


def _in_wait_step(root: Path) -> bool:
    for events in (root / "runs").glob("*/events.jsonl"):
        for line in events.read_text().splitlines():
            if '"tool_call"' in line and '"wait"' in line:
                return True
    return False


def test_killed_after_the_claim_is_never_repeated_and_told_unknown_once(tmp_path):
    slow = _script(tmp_path, "slow.json", [{"tool_calls": [{"name": "wait", "arguments": {"seconds": 60}}]}, "posted"])
    refuse = _script(tmp_path, "refuse.json", [])  # any model call fails the run: a repeat would show
    tid, cid = _add(tmp_path, "--at", "+3s", "post the report")
    state = tmp_path / "state"
    first = _serve(tmp_path, slow)
    _until("the run's wait step", lambda: _in_wait_step(state), first)
    (window,) = _windows(tmp_path, tid).values()
    assert window["state"] == "claimed" and window["run_id"]
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=DEADLINE_S)

    for _ in range(2):  # restarted twice: told once, run never again
        marker, _ = _add(tmp_path, "--at", "+1s", "--reminder", f"marker {time.time()}")
        again = _serve(tmp_path, refuse)
        _until("the restart's marker", lambda marker=marker: _done(tmp_path, marker), again)
        _stop(again)

    (window,) = _windows(tmp_path, tid).values()
    assert window["state"] == "unknown"
    turns = _turns(tmp_path, cid)
    assert len(turns) == 1 and "result is unknown — Mika won't repeat it" in turns[0].answer
    told = [e for e in Outbox(state).entries() if e.delivery.get("conversation_id") == cid]
    assert len(told) == 1 and "won't repeat it" in told[0].delivery["text"]
    assert not any("start it again" in e.delivery.get("text", "") for e in told)
    runs = [r for r in RunStore(state).all() if r.conversation_id == cid]
    assert len(runs) == 1  # the killed run only; nothing was dispatched again


def test_a_reminder_is_delivered_by_a_serve_whose_model_fails_if_called(tmp_path):
    refuse = _script(tmp_path, "refuse.json", [])
    tid, cid = _add(tmp_path, "--at", "+2s", "--reminder", "stand up and stretch")
    serve = _serve(tmp_path, refuse)
    _until("the reminder", lambda: _done(tmp_path, tid), serve)
    out, _ = _stop(serve)
    assert [t.answer for t in _turns(tmp_path, cid)] == ["Reminder: stand up and stretch"]
    assert RunStore(tmp_path / "state").all() == []  # no run, so no model call
    assert "reminder delivered: Reminder: stand up and stretch" in out


def test_a_condition_fires_only_on_its_false_to_true_edges(tmp_path):
    def verdict(v: str) -> str:
        return f"Looked.\nCONDITION: {v}"

    error = {"tool_calls": [{"name": "end_not_done", "arguments": {"subtype": "blocked", "message": "page down"}}]}
    model = _script(
        tmp_path,
        "cond.json",
        [
            verdict("FALSE"),
            verdict("TRUE"),
            "Bought two tickets.",
            verdict("TRUE"),
            error,
            verdict("FALSE"),
            verdict("TRUE"),
            "Bought two more.",
        ],
    )
    state = tmp_path / "state"
    cid = ConversationStore(state).create().id
    start = datetime.now(UTC) + timedelta(seconds=2)
    # 2 s between checks (the CLI's shortest is 1m; the store takes any interval).
    TriggerStore(state).add(
        Trigger(
            "s1",
            TriggerKind.CONDITION,
            "buy the tickets",
            Timing(TimingKind.EVERY, at=start, every_s=2),
            conversation_id=cid,
            condition="tickets are on sale",
        )
    )
    serve = _serve(tmp_path, model)

    def six_checks() -> bool:
        return sum(w.get("state") in ("done", "unknown") for w in _windows(tmp_path, "s1").values()) >= 6

    _until("six checks", six_checks, serve)
    serve.send_signal(signal.SIGTERM)
    out, err = serve.communicate(timeout=DEADLINE_S)
    assert serve.returncode == 0, err
    assert [t.answer for t in _turns(tmp_path, cid)] == ["Bought two tickets.", "Bought two more."]
    outcomes = [line.split()[4].rstrip(":") for line in out.splitlines() if "s1@" in line][:6]
    assert outcomes == ["check:false", "fired:answered", "check:true", "check:unknown", "check:false", "fired:answered"]


def test_sigterm_during_a_run_stops_it_cleanly_and_exits_0(tmp_path):
    slow = _script(tmp_path, "slow.json", [{"tool_calls": [{"name": "wait", "arguments": {"seconds": 60}}]}, "late"])
    tid, cid = _add(tmp_path, "--at", "+2s", "post the report")
    state = tmp_path / "state"
    serve = _serve(tmp_path, slow)
    _until("the run's wait step", lambda: _in_wait_step(state), serve)
    started = time.time()
    _, err = _stop(serve)  # exit 0, asserted inside
    assert time.time() - started < 30  # the 60 s wait did not hold it
    (window,) = _windows(tmp_path, tid).values()
    assert window["state"] == "done"  # the result is known: it was stopped, not lost
    assert [t.outcome for t in _turns(tmp_path, cid)] == ["stopped"]
    assert "stopping" in err


def test_deleting_a_conversation_deletes_its_schedules(tmp_path):
    _, cid = _add(tmp_path, "--every", "1h", "check the weather")
    other, _ = _add(tmp_path, "--every", "1h", "check the news")
    done = _mika(tmp_path, "conversations", "delete", "--yes", cid)
    assert "Deleted its 1 schedule(s)" in done.stderr
    assert [s.id for s in TriggerStore(tmp_path / "state").list()] == [other]
