"""A run's event log: every event readable the moment it is emitted, made durable in
bursts off the step's thread, and synced before the run's record closes.

`os.fsync` is wrapped to see which files were synced, and when: a sync can't be observed
any other way short of cutting the power."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from mika.record.event_sync import EventSync
from mika.record.events import Notice
from mika.record.recorder import RunRecorder


class _Fsyncs:
    """Which files were fsynced and on which thread; `synced(path)` waits for one of them."""

    def __init__(self, monkeypatch) -> None:
        self.seen: list[tuple[str, str]] = []
        self._changed = threading.Condition()
        real = os.fsync

        def fsync(fd: int) -> None:
            real(fd)
            with self._changed:
                self.seen.append((os.readlink(f"/proc/self/fd/{fd}"), threading.current_thread().name))
                self._changed.notify_all()

        monkeypatch.setattr(os, "fsync", fsync)

    def synced(self, path: str, timeout: float = 5.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: any(p == path for p, _ in self.seen), timeout)


def test_events_are_on_disk_at_once_and_synced_off_the_steps_thread(tmp_path, monkeypatch):
    fsyncs = _Fsyncs(monkeypatch)
    seen = fsyncs.seen
    rec = RunRecorder(tmp_path, "r1")
    rec.begin({"goal": "g"})
    for i in range(40):
        rec(Notice(run_id="r1", conversation_id="", level="info", text=f"n{i}"))
        # Written before the call returns: a process killed now loses nothing emitted.
        lines = rec.events_path.read_text(encoding="utf-8").splitlines()
        assert json.loads(lines[-1])["text"] == f"n{i}"
    events = str(rec.events_path)
    assert fsyncs.synced(events)
    assert all(thread == "mika-event-sync" for p, thread in seen if p == events)
    assert sum(p == events for p, _ in seen) <= 40  # never more than one a write; bursts share
    rec.close({"outcome": "answered"})
    # The close syncs the log in the caller's thread, after the last event.
    assert (events, threading.current_thread().name) in seen


def test_a_log_removed_before_its_sync_is_skipped_and_the_syncer_lives_on(tmp_path, monkeypatch):
    fsyncs = _Fsyncs(monkeypatch)
    sync = EventSync()
    gone = tmp_path / "gone.jsonl"  # a run folder pruned between the write and its sync
    kept = tmp_path / "kept.jsonl"
    kept.write_text("y\n")
    sync.later(gone)
    sync.later(kept)
    assert fsyncs.synced(str(kept))
    assert not any(p == str(gone) for p, _ in fsyncs.seen)


_EMITTER = """
import sys
from pathlib import Path
from mika.record.events import Notice
from mika.record.recorder import RunRecorder
rec = RunRecorder(Path(sys.argv[1]), "r-kill")
rec.begin({"goal": "g"})
for i in range(25):
    rec(Notice(run_id="r-kill", conversation_id="", level="info", text=f"n{i}"))
print(rec.events_path, flush=True)
sys.stdin.readline()  # held here, mid-run, until the test kills it
"""


def test_a_process_killed_right_after_emitting_loses_none_of_its_events(tmp_path):
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-c", _EMITTER, str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        path = proc.stdout.readline().strip()
        proc.send_signal(signal.SIGKILL)  # no close, no final sync, no atexit
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
    assert [e["text"] for e in lines if e["type"] == "notice"] == [f"n{i}" for i in range(25)]
