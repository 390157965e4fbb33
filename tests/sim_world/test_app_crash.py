"""The `crash=PACKAGE` fault: the app dies as it starts, once, and the crash log buffer
holds the runtime's report in logcat's format (the lines mobilecli's crash parser reads)."""

from __future__ import annotations

import re

from mika.sim.faults import FaultSpec
from mika.sim.phone import make_device
from tests.sim_world.driver import Local

# logcat -v year, as mobilecli's devices/android_crash.go matches a line.
LINE = re.compile(r"^(\d{4}-\d{2}-\d{2})\s+(\d{2}:\d{2}:\d{2}\.\d{3})\s+(\d+)\s+\d+\s+(\w)\s+(\S+)\s*: (.*)$")


def test_a_crashing_app_leaves_no_task_and_a_report_once() -> None:
    d = Local(make_device("c"))
    assert d.shell("logcat -b crash -d") == ""
    d.shell("simctl fault crash=com.mika.notes")
    d.shell("am start -n com.mika.notes/.NotesListActivity")
    world = d.phone.world
    assert world.top_activity(0).package == "com.android.launcher3"
    assert world.displays[0].task_for("com.mika.notes") is None

    lines = d.shell("logcat -b crash -d -v year").splitlines()
    parsed = [LINE.match(line) for line in lines]
    assert lines and all(parsed)
    pids = {m.group(3) for m in parsed if m}
    assert pids == {str(world.crashes[0].pid)}
    assert {(m.group(4), m.group(5)) for m in parsed if m} == {("E", "AndroidRuntime")}
    messages = [m.group(6) for m in parsed if m]
    assert messages[:2] == ["FATAL EXCEPTION: main", f"Process: com.mika.notes, PID: {world.crashes[0].pid}"]
    assert "\tat com.mika.notes.NotesListActivity.onCreate(NotesListActivity.java:42)" in messages
    assert "FATAL EXCEPTION" not in d.shell("logcat -b main -d")
    assert "FATAL EXCEPTION: main" in d.shell("logcat -d")  # default buffers: main, system, crash

    d.shell("am start -n com.mika.notes/.NotesListActivity")  # one crash only
    assert world.top_activity(0).package == "com.mika.notes" and len(world.crashes) == 1
    d.shell("simctl reset default")
    assert d.shell("logcat -b crash -d") == ""


def test_an_app_already_running_does_not_crash_when_brought_back() -> None:
    d = Local(make_device("c"))
    d.shell("am start -n com.mika.notes/.NotesListActivity")
    d.shell("input keyevent KEYCODE_HOME")
    d.phone.world.add_faults(FaultSpec.parse("crash=com.mika.notes"))
    d.shell("am start -n com.mika.notes/.NotesListActivity")  # a warm start: no onCreate
    assert d.phone.world.top_activity(0).package == "com.mika.notes" and not d.phone.world.crashes
    assert FaultSpec.parse("crash=com.mika.notes").to_spec() == "crash=com.mika.notes"
