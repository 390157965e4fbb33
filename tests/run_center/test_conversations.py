"""ConversationStore and history paging, on real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mika.run.conversations import (
    BadConversationId,
    ConversationError,
    ConversationNotFound,
    ConversationStore,
    read_history,
)

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 1
        return self.now


@pytest.fixture
def store(tmp_path):
    return ConversationStore(tmp_path, clock=Clock())


def _turn(store, cid, rid, user, answer, outcome="answered", groups=()):
    store.begin_turn(cid, rid, user)
    store.finish_turn(cid, rid, outcome=outcome, answer=answer, groups=groups)


def test_turns_are_recorded_in_one_file_per_conversation(store, tmp_path):
    _turn(store, "c1", "r1", "open settings", "Opened.", groups=("phone",))
    store.begin_turn("c1", "r2", "turn on wifi")
    store.add_steer("c1", "r2", "and bluetooth")
    data = json.loads((tmp_path / "conversations" / "c1.json").read_text())
    assert [t["run_id"] for t in data["turns"]] == ["r1", "r2"]
    conv = store.get("c1")
    assert conv.turns[0].groups == ("phone",) and conv.turns[0].outcome == "answered"
    assert conv.turns[1].outcome == "running" and conv.turns[1].steers == ("and bluetooth",)
    assert conv.turns[1].user_words == "turn on wifi\n\nand bluetooth"


def test_automatic_title_is_set_once_and_never_over_a_rename(store):
    _turn(store, "c1", "r1", "What's the weather like in Lisbon this weekend, and should I pack an umbrella?", "Sunny.")
    assert store.get("c1").display_title.endswith("…")  # falls back to the first words
    assert store.set_title("c1", "Lisbon weather")
    assert not store.set_title("c1", "Another title")  # set once
    store.rename("c1", "  Trip   planning ")
    assert store.get("c1").title == "Trip planning"
    assert not store.set_title("c1", "Late automatic title")
    assert store.get("c1").title == "Trip planning"
    with pytest.raises(ConversationError, match="empty"):
        store.rename("c1", "   ")


def test_list_puts_pinned_first_and_pinning_keeps_the_recent_order(store):
    for cid in ("a", "b", "c"):
        _turn(store, cid, f"r-{cid}", cid, "ok")
    assert [s.id for s in store.list()] == ["c", "b", "a"]
    before = store.get("a").updated_at
    store.pin("a")
    assert store.get("a").updated_at == before
    assert [s.id for s in store.list()] == ["a", "c", "b"]
    store.pin("b")
    assert [s.id for s in store.list()] == ["b", "a", "c"]
    store.pin("b", False)
    store.pin("a", False)
    assert [s.id for s in store.list()] == ["c", "b", "a"]


def test_delete_removes_files_and_workspace_and_late_writes_do_not_revive(store, tmp_path):
    _turn(store, "c1", "r1", "hello", "hi")
    ws = store.workspace("c1")
    (ws / "inbox").mkdir(parents=True)
    (ws / "inbox" / "photo.jpg").write_bytes(b"\xff\xd8")
    (tmp_path / "conversations" / ".c1.json.abc.tmp").write_text("half")
    assert store.delete("c1")
    assert not ws.exists() and list((tmp_path / "conversations").glob("*c1*")) == []
    assert not store.finish_turn("c1", "r1", outcome="answered", answer="late")
    assert not store.update_turn("c1", "r1", answer="summary")
    assert not store.set_title("c1", "late")
    assert not store.add_steer("c1", "r1", "late")
    with pytest.raises(ConversationNotFound):
        store.rename("c1", "x")
    assert not store.exists("c1")
    # A new turn under that id starts afresh.
    store.begin_turn("c1", "r9", "again")
    assert [t.run_id for t in store.get("c1").turns] == ["r9"]


def test_delete_does_not_follow_a_workspace_symlink(store, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    _turn(store, "c1", "r1", "hello", "hi")
    store.workspace("c1").parent.mkdir(parents=True, exist_ok=True)
    store.workspace("c1").symlink_to(outside, target_is_directory=True)
    store.delete("c1")
    assert (outside / "keep.txt").read_text() == "mine"


def test_next_run_gets_the_last_turns_and_the_rest_via_history(store):
    for i in range(9):
        _turn(store, "c1", f"r{i}", f"question {i}", f"answer {i}", groups=("web",) if i == 8 else ())
    store.begin_turn("c1", "r9", "question 9")  # the run being started
    prior = store.prior_turns("c1", before_run="r9")
    assert [p.run_id for p in prior] == ["r3", "r4", "r5", "r6", "r7", "r8"]
    assert prior[-1].answer == "answer 8" and prior[-1].outcome == "answered"
    assert store.last_groups("c1", before_run="r9") == ("web",)
    assert store.older_turn_count("c1", before_run="r9") == 3
    assert store.prior_turns("nope") == ()


def test_stopped_turn_is_seen_with_its_outcome(store):
    store.begin_turn("c1", "r1", "clean up")
    store.finish_turn("c1", "r1", outcome="stopped", answer="Stopped.")
    store.update_turn("c1", "r1", answer="Before stopping: deleted 3 photos.")
    prior = store.prior_turns("c1")
    assert prior[0].outcome == "stopped" and prior[0].answer.startswith("Before stopping")


def test_read_history_pages_through_the_conversation(store):
    for i in range(5):
        _turn(store, "c1", f"r{i}", f"q{i}", f"a{i}")
    page = read_history("c1", 0, 2, store=store)
    assert "turns 1-2 of 5" in page and "User: q0" in page and "Mika: a1" in page
    assert "offset=2" in page and "q2" not in page
    last = read_history("c1", 4, 10, store=store)
    assert "turns 5-5 of 5" in last and "More turns" not in last
    assert "no turns at offset 7" in read_history("c1", 7, 2, store=store)
    assert "No conversation with id zz" in read_history("zz", 0, 2, store=store)
    assert "is not a conversation id" in read_history("../etc", 0, 2, store=store)


def test_read_history_uses_the_state_dir_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path))
    _turn(ConversationStore(), "c1", "r1", "hello", "hi")
    assert "User: hello" in read_history("c1", 0, 5)


def test_bad_ids_are_refused_with_a_sentence(store):
    for bad in ("../x", "a/b", "", "x" * 65, "c 1"):
        with pytest.raises(BadConversationId, match="not a conversation id"):
            store.begin_turn(bad, "r1", "x")


def test_a_corrupt_conversation_file_is_moved_aside_not_fatal(store, tmp_path):
    _turn(store, "c1", "r1", "hello", "hi")
    path = tmp_path / "conversations" / "c1.json"
    path.write_text('{"id": "c1", "turns": [')
    with pytest.raises(ConversationNotFound):
        store.get("c1")
    assert list(path.parent.glob("c1.json.corrupt-*"))
    store.begin_turn("c1", "r2", "again")
    assert [t.run_id for t in store.get("c1").turns] == ["r2"]


def test_two_processes_adding_turns_at_once_lose_nothing(tmp_path):
    code = textwrap.dedent("""
        import sys, time
        from mika.run.conversations import ConversationStore
        root, tag, go = sys.argv[1], sys.argv[2], float(sys.argv[3])
        while time.time() < go:
            time.sleep(0.001)
        store = ConversationStore(root)
        for i in range(25):
            store.begin_turn("shared", f"{tag}-{i}", f"{tag} {i}")
            store.finish_turn("shared", f"{tag}-{i}", outcome="answered", answer="ok")
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    go = time.time() + 1.5
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path), tag, str(go)], env=env, cwd=ROOT, stderr=subprocess.PIPE
        )
        for tag in ("p1", "p2", "p3")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()
    turns = ConversationStore(tmp_path).get("shared").turns
    assert len(turns) == 75 and all(t.outcome == "answered" for t in turns)
    assert len({t.run_id for t in turns}) == 75


def test_a_conversation_file_of_the_wrong_shape_is_moved_aside(store, tmp_path):
    _turn(store, "c1", "r1", "hello", "hi")
    path = tmp_path / "conversations" / "c1.json"
    path.write_text('{"id": "c1", "turns": [{"run_id": "r1", "started_at": "yesterday"}]}')
    assert [s.id for s in store.list()] == []  # listed without a traceback
    assert list(path.parent.glob("c1.json.corrupt-*"))
