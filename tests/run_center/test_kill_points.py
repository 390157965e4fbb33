"""SIGKILL at every boundary of a run, then restart: each outcome is told exactly once.

Real `mika --no-ui` processes on a scripted model with the general tools (`--device
none`: a `wait` step, then the answer). Each one kills itself at one point:

- after the N-th recorded event, for every N (`MIKA_TEST_KILL_AT=*:N`, the run's
  fault-injection point, mika/run/fault_injection.py), and after the `outcome` event
  by name (the issue's reproduction);
- inside the N-th state write, for every N: the temp file is written and fsynced but
  not yet renamed (the test's launcher wraps `os.replace`, the rename every state write
  in mika/atomic_write.py ends with; nothing of Mika's is replaced);
- and, for a run killed mid-step and one killed with its answer saved but not sent,
  the first recovery is itself killed inside each of its own writes.

Then the next start settles it — `mika runs recover`, or the next headless run in the
same conversation — and a second recovery must find nothing left to tell. For every
kill point: the answer is printed at most once; exactly one of "the answer", "the run
was interrupted" reaches the user (or, when the kill hit mid-send, the answer is in the
conversation and the user is told it may already have arrived); never both; the
conversation holds the turn once, with the answer once or the interrupted text once;
the run store, the outbox, run.json and the conversation agree; every JSON and JSONL
file parses.

The loops (event boundaries, a run's state writes, a recovery's own state writes) run two
points at a time; each takes 10–20 s here (up to ~55 s on a loaded machine), so all are
in the default run, none marked `slow`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from mika.record.events import EVENT_TYPES

ROOT = Path(__file__).resolve().parents[2]
GOAL = "check the parcel status"
ANSWER = "The parcel arrives tomorrow."
NEXT_ANSWER = "Nothing else is due."
INTERRUPTED_NOTICE = "The task was interrupted; you can start it again in that conversation."
INTERRUPTED_TURN = "The task was interrupted; you can start it again."
UNCERTAIN_NOTICE = "may already have been delivered"

# Runs the real CLI with `os.replace` wrapped: KILL_REPLACE=N SIGKILLs the process at the
# N-th rename, after the temp file was written and before the rename (a kill inside a
# state write); REPLACE_LOG names a file that gets each renamed path (to count them).
LAUNCHER = textwrap.dedent("""
    import os, runpy, signal, sys
    kill_at = int(os.environ.pop("KILL_REPLACE", "0") or 0)
    log = os.environ.pop("REPLACE_LOG", "")
    real, count = os.replace, 0
    def replace(src, dst, *args, **kwargs):
        global count
        count += 1
        if log:
            with open(log, "a") as f:
                f.write(os.fspath(dst) + "\\n")
        if count == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(src, dst, *args, **kwargs)
    os.replace = replace
    sys.argv = ["mika", *sys.argv[1:]]
    runpy.run_module("mika.cli", run_name="__main__", alter_sys=True)
""")


@dataclass(frozen=True)
class KillPoint:
    name: str
    event: str = ""  # MIKA_TEST_KILL_AT
    replace_n: int = 0  # KILL_REPLACE
    restart: str = "recover"  # recover | headless
    recovery_kill: int = 0  # the first `mika runs recover` is killed inside its write N


@dataclass(frozen=True)
class Scenario:
    """The run that is killed: one step on `device`, then the answer."""

    device: str = "none"
    step: tuple[str, dict] = ("wait", {"seconds": 0})
    goal: str = GOAL
    answer: str = ANSWER

    def replies(self) -> list:
        return [{"tool_calls": [{"name": self.step[0], "arguments": self.step[1]}]}, self.answer]


GENERAL = Scenario()


def _env(state: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(
        MIKA_STATE_DIR=str(state), XDG_CONFIG_HOME=str(state.parent / "cfg"), MIKA_LANGUAGE="en", PYTHONPATH=str(ROOT)
    )
    env.update(extra)
    return env


def _script(path: Path, replies: list) -> str:
    path.write_text(json.dumps(replies))
    return f"script:{path}"


def _mika(state: Path, *args: str, device: str = "none", **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", LAUNCHER, "--device", device, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(state, **env),
        cwd=ROOT,
    )


def _first_run(work: Path, scenario: Scenario = GENERAL, **env: str) -> subprocess.CompletedProcess:
    model = _script(work / "first.json", scenario.replies())
    return _mika(work / "state", "--no-ui", "--model", model, scenario.goal, device=scenario.device, **env)


@dataclass
class Reference:
    scenario: Scenario
    events: list[str]  # the recorded event types of a whole run, in order
    writes: list[str]  # every renamed path of a whole run, in order
    # First-run kill points whose recovery is killed in turn, with the recovery's writes.
    recoveries: dict[str, tuple[KillPoint, list[str]]]


def _answer_saved_not_sent(writes: list[str]) -> int:
    """The write that records the answer's delivery as pending (the first outbox write
    after the run's record began): killed inside it, the answer is saved, in the turn,
    and not yet in the outbox."""
    began = next(i for i, w in enumerate(writes) if "/runs/" in w)
    return next(i for i, w in enumerate(writes) if i > began and w.endswith("outbox.json")) + 1


def _recovery_writes(work: Path, point: KillPoint, scenario: Scenario) -> list[str]:
    env = {"MIKA_TEST_KILL_AT": point.event} if point.event else {"KILL_REPLACE": str(point.replace_n)}
    assert _first_run(work, scenario, **env).returncode == -9
    log = work / "recovery-renames"
    done = _mika(work / "state", "runs", "recover", REPLACE_LOG=str(log))
    assert done.returncode == 0, done.stderr
    return log.read_text().splitlines()


def make_reference(tmp_path_factory, scenario: Scenario) -> Reference:
    """One whole run of `scenario`, to learn its event boundaries and state writes."""
    work = tmp_path_factory.mktemp("reference")
    log = work / "renames"
    model = _script(work / "first.json", scenario.replies())
    done = _mika(
        work / "state",
        "--no-ui",
        "--output-format",
        "stream-json",
        "--model",
        model,
        scenario.goal,
        device=scenario.device,
        REPLACE_LOG=str(log),
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    events = [e["type"] for e in lines if e["type"] in EVENT_TYPES and not EVENT_TYPES[e["type"]].ephemeral]
    assert events[0] == "phase" and "outcome" in events and events[-1] == "phase"
    writes = log.read_text().splitlines()
    assert any(w.endswith("outbox.json") for w in writes) and any(w.endswith("run.json") for w in writes)
    recoveries = {}
    for name, point in (
        ("mid-step", KillPoint("mid-step", event="tool_call:1")),
        ("answer saved, not sent", KillPoint("answer saved", replace_n=_answer_saved_not_sent(writes))),
    ):
        recoveries[name] = (point, _recovery_writes(tmp_path_factory.mktemp("recovery"), point, scenario))
    return Reference(scenario, events, writes, recoveries)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Reference:
    return make_reference(tmp_path_factory, GENERAL)


def _every_point(ref: Reference) -> list[KillPoint]:
    points = [KillPoint(f"after event {n} ({kind})", event=f"*:{n}") for n, kind in enumerate(ref.events, 1)]
    points.append(KillPoint("after the outcome event", event="outcome:1"))
    points += [KillPoint(f"inside write {n} ({Path(w).name})", replace_n=n) for n, w in enumerate(ref.writes, 1)]
    # A recovery killed inside each of its own writes, then the next start finishes it.
    for name, (first, writes) in ref.recoveries.items():
        points += [
            KillPoint(
                f"{name}, then recovery killed inside its write {n} ({Path(w).name})",
                first.event,
                first.replace_n,
                recovery_kill=n,
            )
            for n, w in enumerate(writes, 1)
        ]
    # Both ways of starting again, alternately, over the whole loop.
    return [
        KillPoint(p.name, p.event, p.replace_n, "headless" if i % 2 else "recover", p.recovery_kill)
        for i, p in enumerate(points)
    ]


def _told(outputs: list[str], text: str) -> int:
    return sum(out.count(text) for out in outputs)


def _check_files(state: Path) -> None:
    """No state file is damaged: every JSON file and every JSONL line parses."""
    for path in state.rglob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))
    for path in state.rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            json.loads(line)


def _conversations(state: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((state / "conversations").glob("*.json"))]


def _turns_of(state: Path, run_id: str) -> list[tuple[dict, dict]]:
    return [
        (conv, turn) for conv in _conversations(state) for turn in conv.get("turns", []) if turn.get("run_id") == run_id
    ]


def _run_json(state: Path, run_id: str) -> dict | None:
    found = list((state / "runs").glob(f"*-{run_id}/run.json")) if (state / "runs").is_dir() else []
    assert len(found) <= 1
    return json.loads(found[0].read_text()) if found else None


def _kill_and_restart(work: Path, point: KillPoint, scenario: Scenario = GENERAL) -> str:
    """Kill, restart, check; returns what the user was told: nothing | interrupted |
    answer | uncertain (the answer is in the conversation, its sending was cut)."""
    state = work / "state"
    env = {"MIKA_TEST_KILL_AT": point.event} if point.event else {"KILL_REPLACE": str(point.replace_n)}
    killed = _first_run(work, scenario, **env)
    assert killed.returncode == -9, f"{point.name}: the process was not killed: {killed.returncode} {killed.stderr}"
    cut_outputs: list[str] = []
    if point.recovery_kill:
        cut = _mika(state, "runs", "recover", KILL_REPLACE=str(point.recovery_kill))
        assert cut.returncode == -9, f"{point.name}: the recovery was not killed: {cut.returncode} {cut.stderr}"
        cut_outputs = [cut.stdout, cut.stderr]

    runs_file = state / "run-state.json"
    before = json.loads(runs_file.read_text())["runs"] if runs_file.exists() else {}
    ours = [rid for rid, r in before.items() if r.get("goal") == scenario.goal]
    assert len(ours) <= 1
    run_id = ours[0] if ours else ""
    conv_ids = [c["id"] for c in _conversations(state)] if (state / "conversations").is_dir() else []

    if point.restart == "headless" and conv_ids:
        model = _script(work / "next.json", [NEXT_ANSWER])
        restart = _mika(state, "--no-ui", "--conversation", conv_ids[0], "--model", model, "anything else?")
        assert restart.returncode == 0, f"{point.name}: {restart.stderr}"
        assert restart.stdout.endswith(NEXT_ANSWER + "\n"), f"{point.name}: {restart.stdout!r}"
    else:
        restart = _mika(state, "runs", "recover")
        assert restart.returncode == 0, f"{point.name}: {restart.stderr}"
    again = _mika(state, "runs", "recover", "--json")
    assert again.returncode == 0, f"{point.name}: {again.stderr}"
    second = json.loads(again.stdout)
    assert second["delivered"] == second["told"] == second["interrupted"] == [], f"{point.name}: told twice: {second}"
    assert UNCERTAIN_NOTICE not in again.stderr and scenario.answer not in again.stderr

    _check_files(state)
    outputs = [killed.stdout, killed.stderr, *cut_outputs, restart.stdout, restart.stderr]
    answer_told = _told(outputs, scenario.answer)
    interrupted_told = _told(outputs, INTERRUPTED_NOTICE)
    uncertain_told = _told(outputs, UNCERTAIN_NOTICE)
    where = f"{point.name}: answer×{answer_told} interrupted×{interrupted_told} uncertain×{uncertain_told}\n{outputs}"

    if not run_id:  # killed before the run was on disk: there is nothing to tell
        assert answer_told == interrupted_told == uncertain_told == 0, where
        return "nothing"

    runs = json.loads(runs_file.read_text())["runs"]
    ledger = json.loads((state / "outbox.json").read_text())["entries"]
    turns = _turns_of(state, run_id)
    assert len(turns) == 1, f"{point.name}: the run's turn {len(turns)} times"
    conv, turn = turns[0]
    conv_text = json.dumps(conv, ensure_ascii=False)
    record = _run_json(state, run_id)
    mine = {k: v["state"] for k, v in ledger.items() if run_id in k}
    assert all(s in ("delivered", "uncertain", "failed") for s in ledger_states(ledger)), f"{point.name}: {ledger}"
    assert runs[run_id]["phase"] in ("ended", "interrupted"), f"{point.name}: {runs[run_id]}"
    if record is not None:
        assert record["state"] in ("ended", "interrupted"), f"{point.name}: run.json {record}"

    assert answer_told <= 1 and interrupted_told <= 1 and uncertain_told <= 1, where
    assert not (interrupted_told and (answer_told or uncertain_told)), where
    if interrupted_told:  # no answer was saved: the turn failed, the notice was sent once
        assert (
            turn["outcome"] == "failed" and turn["subtype"] == "interrupted" and turn["answer"] == INTERRUPTED_TURN
        ), where
        assert scenario.answer not in conv_text and conv_text.count(INTERRUPTED_TURN) == 1, where
        # Uncertain when the recovery died mid-send: it was shown, so it is never sent again.
        assert mine in ({f"interrupted:{run_id}": "delivered"}, {f"interrupted:{run_id}": "uncertain"}), where
        assert not runs[run_id].get("answer_saved") and runs[run_id]["phase"] == "interrupted", where
        assert record is None or record["outcome"] == "interrupted", where
        return "interrupted"
    else:  # the answer was saved: it is in the conversation once, and told once
        assert answer_told == 1 or uncertain_told == 1, where
        assert (
            turn["outcome"] == "answered"
            and turn["answer"] == scenario.answer
            and conv_text.count(scenario.answer) == 1
        ), where
        assert runs[run_id]["answer_saved"] is True and runs[run_id]["answer"] == scenario.answer, where
        assert f"interrupted:{run_id}" not in ledger, where
        if uncertain_told:  # killed mid-send: not sent again, the user is told it may have arrived
            assert mine == {f"answer:{run_id}": "uncertain", f"uncertain:answer:{run_id}": "delivered"}, where
        else:
            sent = {k for k, s in mine.items() if s == "delivered"}
            assert len(sent) == 1 and sent <= {f"answer:{run_id}", f"failed:answer:{run_id}"}, where
        assert record is None or record["outcome"] == "answered", where
        return "uncertain" if uncertain_told else "answer"


def ledger_states(ledger: dict) -> list[str]:
    return [entry["state"] for entry in ledger.values()]


def _loop(tmp_path: Path, points: list[KillPoint], scenario: Scenario = GENERAL) -> dict[str, str]:
    def one(item: tuple[int, KillPoint]) -> tuple[str, str]:
        i, point = item
        work = tmp_path / f"p{i:02d}"
        work.mkdir()
        return point.name, _kill_and_restart(work, point, scenario)

    with ThreadPoolExecutor(max_workers=2) as pool:  # the machine has two cores
        return dict(pool.map(one, enumerate(points)))


def test_sigkill_after_the_outcome_event_keeps_the_answer(tmp_path):
    """The issue's reproduction: killed right after `outcome`, the answer was printed
    once; the next start delivers nothing again and says nothing about an interruption."""
    state = tmp_path / "state"
    killed = _first_run(tmp_path, MIKA_TEST_KILL_AT="outcome:1")
    assert killed.returncode == -9
    assert killed.stdout == ANSWER + "\n"
    recover = _mika(state, "runs", "recover", "--json")
    report = json.loads(recover.stdout)
    (run_id,) = report["interrupted"]
    assert report["ended"] == [run_id] and report["delivered"] == report["told"] == []
    assert "interrupted" not in recover.stderr and ANSWER not in recover.stderr
    ((_conv, turn),) = _turns_of(state, run_id)
    assert (turn["outcome"], turn["answer"]) == ("answered", ANSWER)


def _report(told: dict[str, str]) -> None:
    print(f"\n{len(told)} kill points, each told exactly once:")
    for name, what in told.items():
        print(f"  {name}: {what}")


def test_json_output_killed_in_aftercare_is_sent_once_at_the_next_start(tmp_path):
    """`--output-format json` prints its result object only when the run is over, so
    an answer killed in aftercare was never shown: the next start sends it, once."""
    state = tmp_path / "state"
    model = _script(tmp_path / "first.json", [ANSWER])
    killed = _mika(state, "--no-ui", "--output-format", "json", "--model", model, GOAL, MIKA_TEST_KILL_AT="outcome:1")
    assert killed.returncode == -9 and killed.stdout == ""
    recover = _mika(state, "runs", "recover")
    assert recover.stdout == f"(recovered after a restart) {ANSWER}\n", recover.stderr
    again = json.loads(_mika(state, "runs", "recover", "--json").stdout)
    assert again["delivered"] == again["told"] == []
    done = _mika(state, "--no-ui", "--output-format", "json", "--model", model, GOAL)
    assert done.returncode == 0 and json.loads(done.stdout)["answer"] == ANSWER and ANSWER not in done.stderr


def test_kill_at_every_event_boundary(tmp_path, reference):
    """After every recorded event of a run (and after `outcome` by name)."""
    points = [p for p in _every_point(reference) if p.event and not p.recovery_kill]
    told = _loop(tmp_path, points)
    assert len(told) == len(reference.events) + 1
    # Once the outcome event is out, the answer is saved and was told: never "interrupted".
    after_outcome = reference.events.index("outcome") + 1
    for n in range(after_outcome, len(reference.events) + 1):
        name = f"after event {n} ({reference.events[n - 1]})"
        assert told[name] == "answer", f"{name}: {told[name]}"
    assert told[f"after event {after_outcome - 1} ({reference.events[after_outcome - 2]})"] == "interrupted"
    _report(told)


def test_kill_inside_every_state_write(tmp_path, reference):
    """Inside every state write of a run: temp file written, not yet renamed."""
    points = [p for p in _every_point(reference) if p.replace_n and not p.recovery_kill]
    told = _loop(tmp_path, points)
    assert len(told) == len(reference.writes)
    # The loop reached every kind of ending, so none of the checks went unused.
    assert {"nothing", "interrupted", "answer", "uncertain"} <= set(told.values()), told
    _report(told)


def test_recovery_killed_inside_every_write(tmp_path, reference):
    """A recovery killed inside each of its own writes (for a run with no answer, and
    for one whose answer was saved but not sent); the next start still tells once."""
    points = [p for p in _every_point(reference) if p.recovery_kill]
    told = _loop(tmp_path, points)
    assert len(told) == sum(len(w) for _, w in reference.recoveries.values())
    assert {"interrupted", "answer", "uncertain"} <= set(told.values()), told
    _report(told)


def test_a_malformed_kill_point_names_the_variable_and_the_form():
    from mika.run.fault_injection import BadKillPoint
    from mika.run.fault_injection import KillPoint as Point

    assert Point.parse("outcome:2") == Point("outcome", 2) and Point.parse("*:7") == Point("*", 7)
    for bad in ("outcome", "outcome:0", ":3", "outcome:x"):
        with pytest.raises(BadKillPoint, match=r"MIKA_TEST_KILL_AT=.*expected <event type>:<n>"):
            Point.parse(bad)
