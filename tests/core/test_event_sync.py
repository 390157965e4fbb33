"""A run's event log: every event readable the moment it is emitted, made durable in
bursts off the step's thread, and synced before the run's record closes.

`os.fsync` is wrapped to see which files were synced, and when: a sync can't be observed
any other way short of cutting the power."""

from __future__ import annotations

import json
import os
import threading
import time

from mika.record.event_sync import EventSync
from mika.record.events import Notice
from mika.record.recorder import RunRecorder


def _watch_fsync(monkeypatch) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        seen.append((os.readlink(f"/proc/self/fd/{fd}"), threading.current_thread().name))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return seen


def _until(check, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.005)
    return check()


def test_events_are_on_disk_at_once_and_synced_off_the_steps_thread(tmp_path, monkeypatch):
    seen = _watch_fsync(monkeypatch)
    rec = RunRecorder(tmp_path, "r1")
    rec.begin({"goal": "g"})
    for i in range(40):
        rec(Notice(run_id="r1", conversation_id="", level="info", text=f"n{i}"))
        # Written before the call returns: a process killed now loses nothing emitted.
        lines = rec.events_path.read_text(encoding="utf-8").splitlines()
        assert json.loads(lines[-1])["text"] == f"n{i}"
    events = str(rec.events_path)
    assert _until(lambda: any(p == events for p, _ in seen))
    assert all(thread == "mika-event-sync" for p, thread in seen if p == events)
    assert sum(p == events for p, _ in seen) <= 40  # never more than one a write; bursts share
    rec.close({"outcome": "answered"})
    # The close syncs the log in the caller's thread, after the last event.
    assert (events, threading.current_thread().name) in seen


def test_a_log_removed_before_its_sync_is_skipped_and_the_syncer_lives_on(tmp_path, monkeypatch):
    seen = _watch_fsync(monkeypatch)
    sync = EventSync()
    gone = tmp_path / "gone.jsonl"  # a run folder pruned between the write and its sync
    kept = tmp_path / "kept.jsonl"
    kept.write_text("y\n")
    sync.later(gone)
    sync.later(kept)
    assert _until(lambda: any(p == str(kept) for p, _ in seen))
    assert not any(p == str(gone) for p, _ in seen)
