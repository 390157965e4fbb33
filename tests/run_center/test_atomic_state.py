"""An interrupted state write leaves the previous content intact."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mika.run.conversations import ConversationStore
from mika.run.outbox import Delivery, Outbox
from mika.run.run_store import RunStore
from mika.run.state_lock import read_state, update_json

ROOT = Path(__file__).resolve().parents[2]


def test_a_failed_rename_keeps_the_old_conversation(tmp_path, monkeypatch):
    store = ConversationStore(tmp_path)
    store.begin_turn("c1", "r1", "hello")
    path = tmp_path / "conversations" / "c1.json"
    before = path.read_bytes()

    # The OS refusing the final rename (disk full, EIO) is what "interrupted" looks
    # like from inside the process; we can't make the kernel do that on demand.
    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space left on device"):
        store.finish_turn("c1", "r1", outcome="answered", answer="hi")
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []
    assert store.get("c1").turns[0].outcome == "running"


def test_killing_a_writer_mid_write_never_leaves_a_torn_file(tmp_path):
    """SIGKILL a process that rewrites a big state file in a loop, at many moments:
    the file is always one whole version, never a mix."""
    code = textwrap.dedent("""
        import sys
        from mika.run.state_lock import update_json
        path = sys.argv[1]
        def bump(value):
            n = value.get("n", 0) + 1
            return {"n": n, "payload": [n] * 50000}
        while True:
            update_json(path, bump, {})
    """)
    path = tmp_path / "run-state.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    seen = set()
    for delay in (0.15, 0.2, 0.25, 0.3, 0.35, 0.4):
        proc = subprocess.Popen([sys.executable, "-c", code, str(path)], env=env, cwd=ROOT)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        if path.exists():
            data = json.loads(path.read_text())
            assert data["payload"] == [data["n"]] * 50000
            seen.add(data["n"])
    assert seen, "the writer never got to write once"
    # The next process carries on from the last whole version.
    value = update_json(path, lambda v: {"n": v["n"] + 1, "payload": []}, {})
    assert value["n"] == max(seen) + 1


def test_every_state_module_writes_through_atomic_write():
    """No state module opens a file for writing itself: all go through mika.atomic_write."""
    folder = ROOT / "mika" / "run"
    for name in (
        "conversations.py",
        "run_store.py",
        "outbox.py",
        "borrowed.py",
        "recovery.py",
        "task_center.py",
        "state_lock.py",
    ):
        text = (folder / name).read_text()
        for forbidden in ('open(path, "w', "write_text(", "write_bytes(", ".dump(", "os.write("):
            assert forbidden not in text, f"{name} writes state without mika.atomic_write ({forbidden})"


def test_read_state_moves_a_torn_file_aside(tmp_path):
    path = tmp_path / "outbox.json"
    path.write_text('{"entries": {"a": ')
    assert read_state(path, {"fresh": True}) == {"fresh": True}
    assert not path.exists() and list(tmp_path.glob("outbox.json.corrupt-*"))
    Outbox(tmp_path, []).deliver(Delivery("x", "y"))
    json.loads(path.read_text())


def test_run_store_pruning_keeps_unfinished_runs(tmp_path):
    clock = [1_700_000_000.0]
    store = RunStore(tmp_path, clock=lambda: clock[0])
    store.queued("old-done", "c", "g")
    store.ended("old-done")
    store.queued("old-open", "c", "g")
    clock[0] += 8 * 24 * 3600
    store.queued("new", "c", "g")
    ids = {r.run_id for r in store.all()}
    assert ids == {"old-open", "new"}


def test_outbox_pruning_never_drops_what_run_state_still_remembers(tmp_path):
    from mika.run import outbox as outbox_mod

    clock = [1_700_000_000.0]
    box = Outbox(tmp_path, [], clock=lambda: clock[0])
    now = clock[0]
    # Filled directly: a thousand real deliveries would only make the test slow.
    update_json(
        box.path,
        lambda _: {
            "version": 1,
            "entries": {
                f"old:{i}": {
                    "id": f"old:{i}",
                    "state": "delivered",
                    "owner": "",
                    "created_at": now + i * 0.001,
                    "updated_at": now,
                    "delivery": {},
                    "channels": {},
                }
                for i in range(outbox_mod.KEEP_MAX + 50)
            },
        },
        {},
    )
    clock[0] += 9 * 24 * 3600  # past the always-kept window: the count cap applies
    box.deliver(Delivery("interrupted:r1", "told"))
    ids = {e.id for e in box.entries()}
    assert "interrupted:r1" in ids and len(ids) == outbox_mod.KEEP_MAX
    clock[0] += 7 * 24 * 3600  # a week later r1's run record is gone; its entry is not
    box.deliver(Delivery("x", "y"))
    assert box.state("interrupted:r1") is not None
