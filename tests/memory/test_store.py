"""The memory file: 0600, atomic, broken lines kept, forget/approve/restore, the gate."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mika.memory.store import (
    MemoryFileError,
    MemoryItem,
    MemoryKind,
    MemoryNotFound,
    MemoryRefused,
    MemoryStatus,
    MemoryStore,
)

TRAIN = "I always take the 7:30 train"


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "state" / "memory.jsonl")


def test_item_fields_and_default_status(store: MemoryStore) -> None:
    fact = store.add(MemoryKind.FACT, "User always takes the 7:30 train", TRAIN, conversation_id="c-1")
    assert fact.id.startswith("m-") and len(fact.id) == 8
    assert fact.kind is MemoryKind.FACT and fact.status is MemoryStatus.ACTIVE
    assert fact.source_words == TRAIN and fact.conversation_id == "c-1" and fact.created_at > 0
    pref = store.add("preference", "prefers window seats", "I prefer window seats")
    assert pref.status is MemoryStatus.ACTIVE
    proc = store.add("procedure", "order coffee in the Luckin app", "to order coffee use the Luckin app")
    assert proc.status is MemoryStatus.PENDING  # procedures wait for the user
    assert [i.id for i in store.items()] == [fact.id, pref.id, proc.id]  # newest last
    # A fresh store on the same file reads the same items back.
    assert MemoryStore(store.path).items() == store.items()


def test_file_is_0600_even_with_a_loose_umask(tmp_path: Path) -> None:
    old = os.umask(0o000)
    try:
        s = MemoryStore(tmp_path / "new" / "memory.jsonl")
        s.add("fact", "User always takes the 7:30 train", TRAIN)
        assert s.path.stat().st_mode & 0o777 == 0o600
        assert s.path.parent.stat().st_mode & 0o777 == 0o700
        s.forget(s.items()[0].id)
        assert s.path.stat().st_mode & 0o777 == 0o600
        # An existing file someone loosened is tightened by the next write.
        os.chmod(s.path, 0o666)
        s.add("preference", "prefers tea", "I prefer tea")
        assert s.path.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)


def test_refusals_name_their_code(store: MemoryStore) -> None:
    with pytest.raises(MemoryRefused) as e:
        store.add("fact", "  \x00\u200b ", "anything")
    assert e.value.code == "empty"
    with pytest.raises(MemoryRefused) as e:
        store.add("fact", "bank PIN is 1234", "remember that my bank PIN is 1234")
    assert e.value.code == "sensitive" and "1234" not in e.value.message
    with pytest.raises(MemoryRefused) as e:
        store.add("preference", "prefers brand X", TRAIN)
    assert e.value.code == "not_from_user"
    with pytest.raises(MemoryRefused) as e:
        store.add("fact", "takes the 7:30 train", "")
    assert e.value.code == "not_from_user"
    store.add("fact", "always takes the 7:30 train", TRAIN)
    with pytest.raises(MemoryRefused) as e:
        store.add("fact", "Always takes the 7:30 trains!", TRAIN)
    assert e.value.code == "duplicate"
    assert len(store.items()) == 1
    assert not store.path.read_text().count("1234")


def test_source_words_keep_no_sensitive_value(store: MemoryStore) -> None:
    item = store.add("fact", "wifi at home is called Maple", "our wifi at home is called Maple, password is hunter22")
    assert "hunter22" not in item.source_words and "[withheld]" in item.source_words
    assert "hunter22" not in store.path.read_text()


def test_odd_bytes_in_the_text_are_cleaned(store: MemoryStore) -> None:
    item = store.add("fact", "takes the 7:30\x1b[31m\u202e train\ud800\n", TRAIN)
    assert item.text == "takes the 7:30 train\ufffd"
    # Written as valid UTF-8 JSON and read back the same.
    line = store.path.read_bytes().splitlines()[1]
    assert json.loads(line.decode("utf-8"))["text"] == item.text
    assert MemoryStore(store.path).get(item.id) == item


def test_broken_lines_are_kept_and_the_rest_load(store: MemoryStore) -> None:
    a = store.add("fact", "always takes the 7:30 train", TRAIN)
    good = store.path.read_bytes()
    torn = b'{"id": "m-000000", "kind": "fact", "text": "half a li'
    odd = b"\xff\xfe not utf-8 \x00"
    future = json.dumps({"id": "m-future", "kind": "wish", "text": "x", "created_at": 1, "status": "active"}).encode()
    store.path.write_bytes(good + torn + b"\n" + odd + b"\n" + future + b"\n")
    assert [i.id for i in store.items()] == [a.id]
    assert store.unreadable_lines() == 3
    b = store.add("preference", "prefers aisle seats", "I prefer aisle seats")
    store.forget(a.id)
    raw = store.path.read_bytes()
    for kept in (torn, odd, future):
        assert kept in raw.split(b"\n")  # byte for byte, after two rewrites
    assert [i.id for i in MemoryStore(store.path).items()] == [b.id]


def test_a_file_that_is_not_ours_is_refused_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "memory.jsonl"
    path.write_text("# my shopping list\neggs\nmilk\n")
    s = MemoryStore(path)
    with pytest.raises(MemoryFileError, match="not a Mika memory file"):
        s.items()
    with pytest.raises(MemoryFileError):
        s.add("fact", "takes the 7:30 train", TRAIN)
    assert path.read_text() == "# my shopping list\neggs\nmilk\n"
    folder = tmp_path / "dir.jsonl"
    folder.mkdir()
    with pytest.raises(MemoryFileError, match="folder"):
        MemoryStore(folder).items()


def test_an_empty_file_and_a_header_only_file_are_ours(tmp_path: Path) -> None:
    path = tmp_path / "memory.jsonl"
    path.write_text("")
    assert MemoryStore(path).items() == []
    path.write_bytes(b'{"format": "mika-memory", "version": 1}\n\xff broken\n')
    assert MemoryStore(path).items() == []


def test_forget_keeps_a_tombstone_restore_undoes_erase_is_final(store: MemoryStore) -> None:
    a = store.add("fact", "always takes the 7:30 train", TRAIN)
    gone = store.forget(a.id)
    assert gone.status is MemoryStatus.FORGOTTEN and gone.text == a.text
    assert store.items() == [] and store.get(a.id) == gone
    assert store.items(include_forgotten=True) == [gone]
    assert store.search("train") == []
    back = store.restore(a.id)
    assert back.status is MemoryStatus.ACTIVE and store.search("train") == [back]
    erased = store.forget(a.id, erase=True)
    assert erased.text == "" and erased.source_words == "" and erased.status is MemoryStatus.FORGOTTEN
    assert "7:30" not in store.path.read_text()
    with pytest.raises(MemoryRefused):
        store.restore(a.id)
    # A forgotten item no longer blocks saying it again.
    assert store.add("fact", "always takes the 7:30 train", TRAIN).status is MemoryStatus.ACTIVE


def test_approve(store: MemoryStore) -> None:
    p = store.add("procedure", "in Didi choose Express first", "in Didi always choose Express first")
    assert store.search("Didi Express") == []  # pending items are not used
    ok = store.approve(p.id)
    assert ok.status is MemoryStatus.ACTIVE and store.search("Didi Express") == [ok]
    with pytest.raises(MemoryNotFound) as e:
        store.approve("m-nope00")
    assert "mika memory list" in str(e.value)
    store.forget(p.id)
    with pytest.raises(MemoryRefused):
        store.approve(p.id)
    with pytest.raises(MemoryNotFound):
        store.forget("m-nope00")


def test_search_best_first_and_chinese(store: MemoryStore) -> None:
    a = store.add("fact", "always takes the 7:30 train to Shanghai", "I always take the 7:30 train to Shanghai")
    b = store.add("preference", "prefers the window seat on a train", "I prefer the window seat on a train")
    c = store.add("preference", "喜欢喝美式咖啡", "我喜欢喝美式咖啡")
    assert store.search("train to Shanghai")[0] == a
    assert set(store.search("train")) == {a, b}
    assert store.search("咖啡") == [c]
    assert store.search("nothing shared") == [] and store.search("") == []
    assert len(store.search("train", limit=1)) == 1


CHILD = textwrap.dedent(
    """
    import os, sys
    from mika.memory.store import MemoryStore
    real_replace = os.replace
    def stop_before_rename(src, dst):
        print("WRITTEN", src, flush=True)
        sys.stdin.readline()  # held here until the parent kills this process
        real_replace(src, dst)
    os.replace = stop_before_rename
    MemoryStore(sys.argv[1]).add("preference", "prefers aisle seats", "I prefer aisle seats")
    """
)


def test_a_kill_between_write_and_rename_leaves_the_old_file(store: MemoryStore) -> None:
    store.add("fact", "always takes the 7:30 train", TRAIN)
    before = store.path.read_bytes()
    # The kill point is instrumented in a child process (os.replace held), then the child is
    # SIGKILLed there: the real write path up to the rename has run.
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(store.path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = child.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("WRITTEN"), line
        tmp = Path(line.split(" ", 1)[1].strip())
        assert tmp.exists() and b"aisle" in tmp.read_bytes()
        child.send_signal(signal.SIGKILL)
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert store.path.read_bytes() == before
    assert [i.text for i in store.items()] == ["always takes the 7:30 train"]
    # The store is usable after the kill (the killed writer's lock died with it).
    store.add("preference", "prefers aisle seats", "I prefer aisle seats")
    assert len(store.items()) == 2


def test_item_round_trip() -> None:
    item = MemoryItem("m-abcdef", MemoryKind.PREFERENCE, "t", "w", "c", 1.0, MemoryStatus.PENDING)
    assert MemoryItem.from_dict(item.as_dict()) == MemoryItem(
        "m-abcdef", MemoryKind.PREFERENCE, "t", "w", "c", 1.0, MemoryStatus.PENDING, 1.0
    )


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    import threading

    path = tmp_path / "memory.jsonl"
    words = [f"I prefer seat number {n} on trains" for n in range(12)]
    errors: list[BaseException] = []

    def add(text: str) -> None:
        try:
            # Each writer has its own store object, as the TUI and a run would.
            MemoryStore(path).add("preference", text, text)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=add, args=(w,)) for w in words]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(i.text for i in MemoryStore(path).items()) == sorted(words)


def test_a_second_process_sees_the_lock(store: MemoryStore) -> None:
    store.add("fact", "always takes the 7:30 train", TRAIN)
    code = textwrap.dedent(
        """
        import sys
        from mika.memory.store import MemoryStore
        s = MemoryStore(sys.argv[1])
        s.add("preference", "prefers aisle seats", "I prefer aisle seats")
        print(len(s.items()))
        """
    )
    out = subprocess.run([sys.executable, "-c", code, str(store.path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "2" and len(store.items()) == 2
