"""`mika memory list|add|forget|approve` through click's runner on a real memory file."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mika.cli import cli
from mika.memory.store import MemoryStatus, MemoryStore


@pytest.fixture
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
    return tmp_path


def mika(*args):
    return CliRunner().invoke(cli, ["memory", *args], catch_exceptions=False)


def test_add_list_forget(state) -> None:
    out = mika("add", "I always take the 7:30 train")
    assert out.exit_code == 0
    item_id = out.stdout.strip()
    assert item_id.startswith("m-") and "Remembered as" in out.stderr
    table = mika("list")
    assert item_id in table.stdout and "7:30 train" in table.stdout and "active" in table.stdout
    rows = json.loads(mika("list", "--json").stdout)
    assert rows[0]["id"] == item_id and rows[0]["source_words"] == "I always take the 7:30 train"
    assert (state / "memory.jsonl").stat().st_mode & 0o777 == 0o600
    out = mika("forget", item_id)
    assert out.exit_code == 0 and "erased" in out.stderr
    assert json.loads(mika("list", "--json").stdout) == []
    (gone,) = json.loads(mika("list", "--json", "--all").stdout)
    assert gone["status"] == "forgotten" and gone["text"] == "" and gone["source_words"] == ""
    assert "7:30" not in (state / "memory.jsonl").read_text()


def test_add_is_still_filtered(state) -> None:
    for words in (
        "my bank PIN is 1234",
        "card 4111-1111-1111-1111",
        "验证码是 ８８３９２１",
        "身份证 11010519491231002X",
    ):
        out = mika("add", words)
        assert out.exit_code == 2, words
        assert "Not remembered" in out.stderr and "Traceback" not in out.stderr
        assert out.stdout == ""
    assert not (state / "memory.jsonl").exists() or MemoryStore(state / "memory.jsonl").items() == []
    assert mika("add", "  ").exit_code == 2


def test_kinds_and_approve(state) -> None:
    out = mika("add", "--kind", "preference", "I prefer window seats")
    assert out.exit_code == 0
    store = MemoryStore(state / "memory.jsonl")
    proc = store.add("procedure", "book trains in the 12306 app", "book my trains in the 12306 app")
    assert proc.status is MemoryStatus.PENDING
    assert "pending" in mika("list").stdout
    out = mika("approve", proc.id)
    assert out.exit_code == 0 and "Approved" in out.stderr
    assert store.get(proc.id).status is MemoryStatus.ACTIVE
    added = mika("add", "--kind", "procedure", "order coffee in the Luckin app").stdout.strip()
    assert store.get(added).status is MemoryStatus.ACTIVE  # the user's own procedure needs no approval from them


def test_unknown_ids_and_a_foreign_file_exit_2_with_a_sentence(state) -> None:
    for cmd in ("forget", "approve"):
        out = mika(cmd, "m-nope00")
        assert out.exit_code == 2
        assert "No memory item has the id m-nope00" in out.stderr and "mika memory list" in out.stderr
    (state / "memory.jsonl").write_text("shopping: eggs\n")
    out = mika("list")
    assert out.exit_code == 2 and "not a Mika memory file" in out.stderr
    assert mika("add", "I prefer tea").exit_code == 2
    assert (state / "memory.jsonl").read_text() == "shopping: eggs\n"


def test_chinese_text(state, monkeypatch) -> None:
    monkeypatch.setenv("MIKA_LANGUAGE", "zh")
    out = mika("add", "--kind", "preference", "我喜欢靠窗的座位")
    assert out.exit_code == 0 and "已记住" in out.stderr
    assert "偏好" in mika("list").stdout
    out = mika("forget", "m-nope00")
    assert out.exit_code == 2 and "没有编号为 m-nope00 的记忆" in out.stderr


def test_broken_lines_are_reported_and_kept(state) -> None:
    item_id = mika("add", "I always take the 7:30 train").stdout.strip()
    path = state / "memory.jsonl"
    path.write_bytes(path.read_bytes() + b'{"id": "m-torn", "te\n')
    out = mika("list")
    assert out.exit_code == 0 and item_id in out.stdout and "could not be read" in out.stderr
    mika("forget", item_id)
    assert b'{"id": "m-torn", "te' in path.read_bytes()
