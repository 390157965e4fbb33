"""`mika conversations …` and `mika runs recover` through click's runner on real files."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from mika.commands.conversations import conversations_group
from mika.commands.runs import runs_recover_command
from mika.run.conversations import ConversationStore
from mika.run.phase import RunPhase
from mika.run.run_store import RunStore
from mika.run.state_lock import ProcessLease


@pytest.fixture
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
    store = ConversationStore(tmp_path)
    store.begin_turn("c1", "r1", "open settings")
    store.finish_turn("c1", "r1", outcome="answered", answer="Opened Settings.")
    store.begin_turn("c2", "r2", "call mom")
    store.finish_turn("c2", "r2", outcome="not_done", answer="No contact named mom.", subtype="not_found")
    return tmp_path


def run(*args, input=None):
    return CliRunner().invoke(conversations_group, list(args), input=input, catch_exceptions=False)


def test_list_json_and_table(state):
    out = run("list", "--json")
    assert out.exit_code == 0
    rows = json.loads(out.stdout)
    assert [r["id"] for r in rows] == ["c2", "c1"] and rows[1]["turns"] == 1
    table = run("list")
    assert "open settings" in table.stdout and "c2" in table.stdout


def test_show_json_prints_each_turn(state):
    out = run("show", "c2", "--json")
    data = json.loads(out.stdout)
    assert data["turns"] == [
        {
            "run_id": "r2",
            "user": "call mom",
            "steers": [],
            "answer": "No contact named mom.",
            "outcome": "not_done",
            "subtype": "not_found",
            "groups": [],
            "started_at": data["turns"][0]["started_at"],
            "ended_at": data["turns"][0]["ended_at"],
            "recovered": False,
        }
    ]
    text = run("show", "c1")
    assert "You: open settings" in text.stdout and "Mika: Opened Settings." in text.stdout


def test_rename_and_delete(state):
    assert run("rename", "c1", "Settings").exit_code == 0
    assert json.loads(run("show", "c1", "--json").stdout)["title"] == "Settings"
    out = run("delete", "c1", "--yes")
    assert out.exit_code == 0 and "Deleted" in out.stderr
    assert [r["id"] for r in json.loads(run("list", "--json").stdout)] == ["c2"]


def test_errors_are_one_line_not_tracebacks(state):
    missing = run("show", "nope")
    assert missing.exit_code == 1 and "No conversation with id nope" in missing.stderr
    assert "Traceback" not in missing.output
    bad = run("rename", "../x", "t")
    assert bad.exit_code == 1 and "not a conversation id" in bad.stderr
    empty = run("rename", "c1", "  ")
    assert empty.exit_code == 1 and "cannot be empty" in empty.stderr
    # No terminal to ask on: refuse rather than delete silently.
    refused = run("delete", "c1")
    assert refused.exit_code == 1 and "--yes" in refused.stderr


def test_chinese_texts(state, monkeypatch):
    monkeypatch.setenv("MIKA_LANGUAGE", "zh")
    missing = run("show", "nope")
    assert "没有编号为 nope 的对话" in missing.stderr


def test_state_dir_from_the_parent_command(tmp_path, monkeypatch):
    monkeypatch.delenv("MIKA_STATE_DIR", raising=False)
    ConversationStore(tmp_path).begin_turn("x1", "r1", "hi")

    @click.group()
    @click.pass_context
    def root(ctx):
        ctx.obj = {"state_dir": str(tmp_path)}

    root.add_command(conversations_group)
    out = CliRunner().invoke(root, ["conversations", "list", "--json"], catch_exceptions=False)
    assert [r["id"] for r in json.loads(out.stdout)] == ["x1"]


def test_runs_recover_reports_and_tells_once(state):
    dead = ProcessLease(state).acquire()
    dead.release()  # its process is gone
    runs = RunStore(state, lease=dead)
    runs.queued("r3", "c1", "order pizza")
    runs.set_phase("r3", RunPhase.RUNNING)
    ConversationStore(state).begin_turn("c1", "r3", "order pizza")
    first = CliRunner().invoke(runs_recover_command, ["--json"], catch_exceptions=False)
    report = json.loads(first.stdout)
    assert report["interrupted"] == ["r3"] and report["told"] == ["r3"]
    assert "order pizza" in first.stderr  # the notice itself
    second = CliRunner().invoke(runs_recover_command, [], catch_exceptions=False)
    assert second.exit_code == 0 and "Nothing to recover" in second.stderr
    assert ConversationStore(state).get("c1").turns[-1].outcome == "failed"


def test_the_language_from_settings_beats_the_locale(state, monkeypatch):
    from mika.config.language import set_language

    monkeypatch.delenv("MIKA_LANGUAGE")  # set by conftest; it would beat the setting
    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")
    set_language("zh")
    try:
        assert "没有编号为 nope 的对话" in run("show", "nope").stderr
    finally:
        set_language(None)
    assert "No conversation with id nope" in run("show", "nope").stderr
