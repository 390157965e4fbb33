"""The trigger store: a window is claimed once, also against other processes; the next due
time is written with the claim; a dead process's claimed window is settled once."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mika.run.state_lock import ProcessLease
from mika.trigger.definition import Timing, TimingKind, Trigger, TriggerKind, window_id
from mika.trigger.store import CLAIMED, DONE, UNKNOWN, TriggerNotFound, TriggerStore

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)


def trigger(tid: str = "s1", kind: TriggerKind = TriggerKind.TASK) -> Trigger:
    timing = Timing(TimingKind.EVERY, at=T0 + timedelta(minutes=5), every_s=300)
    return Trigger(tid, kind, "check the weather", timing, conversation_id="c1")


def store(tmp_path: Path, lease: ProcessLease | None = None) -> TriggerStore:
    return TriggerStore(tmp_path, lease=lease, clock=lambda: T0.timestamp())


def test_add_list_pause_resume_delete(tmp_path):
    s = store(tmp_path)
    added = s.add(trigger())
    assert added.next_due == T0 + timedelta(minutes=5) and not added.paused
    assert [x.id for x in s.list()] == ["s1"]
    assert s.pause("s1").paused and s.get("s1").paused
    assert not s.resume("s1").paused
    assert s.delete("s1") and s.list() == []
    with pytest.raises(TriggerNotFound):
        s.pause("s1")
    # the file is the documented path, valid JSON
    assert json.loads((tmp_path / "schedules.json").read_text())["version"] == 1


def test_a_window_is_claimed_once_and_the_next_due_written_with_it(tmp_path):
    s = store(tmp_path)
    s.add(trigger())
    due = T0 + timedelta(minutes=5)
    wid = window_id("s1", due)
    assert s.claim("s1", wid, due=due, following=due + timedelta(minutes=5))
    status = s.get("s1")
    assert status.next_due == due + timedelta(minutes=5)  # written before any dispatch
    assert status.windows[wid]["state"] == CLAIMED and status.last_window == wid
    assert not s.claim("s1", wid, due=due, following=due + timedelta(minutes=5))
    other = TriggerStore(tmp_path, lease=ProcessLease(tmp_path).acquire())
    assert not other.claim("s1", wid, due=due, following=None)  # another owner: still no
    s.finish("s1", wid, "It is sunny.")
    assert s.get("s1").windows[wid]["state"] == DONE and s.get("s1").last_result == "It is sunny."
    assert not s.claim("s1", wid, due=due, following=None)  # done windows stay taken


def test_paused_or_deleted_triggers_are_not_claimed(tmp_path):
    s = store(tmp_path)
    s.add(trigger())
    s.pause("s1")
    assert not s.claim("s1", "s1@x", due=T0, following=None)
    s.request_run("s1")  # run now works even while paused, once
    assert s.run_requests() == ["s1"]
    assert s.claim("s1", "s1@manual", due=T0, following=None, manual=True)
    assert s.run_requests() == []
    assert s.get("s1").next_due == T0 + timedelta(minutes=5)  # a manual run doesn't move it
    s.delete("s1")
    assert not s.claim("s1", "s1@y", due=T0, following=None)


def test_orphan_of_a_dead_process_is_settled_once(tmp_path):
    dead = ProcessLease(tmp_path).acquire()
    s_dead = store(tmp_path, dead)
    s_dead.add(trigger())
    s_dead.claim("s1", "s1@w", due=T0, following=None)
    live = store(tmp_path, ProcessLease(tmp_path).acquire())
    assert live.orphans() == []  # its owner still runs
    dead.release()  # the kernel drops a killed process's flock the same way
    orphans = live.orphans()
    assert [(o[0].id, o[1]) for o in orphans] == [("s1", "s1@w")]
    assert live.settle_orphan("s1", "s1@w", "result unknown")
    assert not live.settle_orphan("s1", "s1@w", "result unknown")
    assert live.get("s1").windows["s1@w"]["state"] == UNKNOWN and live.orphans() == []


RACER = textwrap.dedent("""
    import sys
    from datetime import datetime, UTC
    from mika.trigger.store import TriggerStore
    s = TriggerStore(sys.argv[1])
    due = datetime(2026, 5, 1, 10, 5, tzinfo=UTC)
    print("won" if s.claim("s1", "s1@race", due=due, following=None) else "lost")
""")


def test_many_processes_racing_for_one_window_one_wins(tmp_path):
    store(tmp_path).add(trigger())
    procs = [
        subprocess.Popen([sys.executable, "-c", RACER, str(tmp_path)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
        for _ in range(6)
    ]
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert sorted(outs) == ["lost"] * 5 + ["won"]


def test_a_broken_file_is_moved_aside_not_fatal(tmp_path):
    (tmp_path / "schedules.json").write_text("{not json")
    s = store(tmp_path)
    assert s.list() == []
    s.add(trigger())
    assert [x.id for x in s.list()] == ["s1"]
    assert list(tmp_path.glob("schedules.json.corrupt-*"))


def test_a_one_off_whose_time_came_while_it_was_being_added_still_runs(tmp_path):
    """`--at +1s` on a loaded machine: more than a second between reading the time and
    writing the row. Against the write's clock the time had passed and the one-off was
    stored with nothing due: it never ran, silently (a CI run caught it)."""
    at = T0 + timedelta(seconds=1)
    late = TriggerStore(tmp_path, clock=lambda: (T0 + timedelta(seconds=3)).timestamp())
    once = Trigger("s1", TriggerKind.REMINDER, "stand up", Timing(TimingKind.AT, at=at), conversation_id="c1")
    assert late.add(once, since=T0).next_due == at  # due already: the runtime claims it at once
    every = Trigger("s2", TriggerKind.TASK, "look", Timing(TimingKind.EVERY, at=at, every_s=60), conversation_id="c1")
    assert late.add(every, since=T0).next_due == at  # its first window is not skipped either
    assert late.reschedule("s1", Timing(TimingKind.AT, at=at), since=T0).next_due == at
    # Without `since` the write's own clock is the reference (what the TUI and tests add).
    assert (
        late.add(Trigger("s3", TriggerKind.REMINDER, "x", Timing(TimingKind.AT, at=at), conversation_id="c1")).next_due
        is None
    )
    # A `since` later than the write's clock never moves a due time ahead of "now".
    early = TriggerStore(tmp_path, clock=lambda: T0.timestamp())
    soon = Timing(TimingKind.AT, at=T0 + timedelta(seconds=2))
    later = T0 + timedelta(seconds=5)
    assert (
        early.add(Trigger("s4", TriggerKind.REMINDER, "y", soon, conversation_id="c1"), since=later).next_due == soon.at
    )
