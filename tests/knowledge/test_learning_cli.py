"""`mika skills drafts|accept|reject` through click's runner, on the real `mika skills`
group and a real store in temp state and data folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mika.commands.skills import skills_group
from mika.knowledge.catalog import SkillCatalog, skill_roots
from mika.knowledge.learning.drafts import SkillDrafts, learned_skills_dir


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SkillDrafts:
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("MIKA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
    drafts = SkillDrafts.default()
    drafts.add(
        "reply-to-chat",
        "Reply in a chat. Use when asked to answer someone.",
        "# Steps\n1. phone_launch_app",
        run_id="r1",
        goal="g",
    )
    drafts.add(
        "set-alarms", "Set weekday alarms. Use when asked for alarms.", "# Steps\n1. open Clock", run_id="r2", goal="g"
    )
    return drafts


def run(*args: str):
    return CliRunner().invoke(skills_group, list(args), catch_exceptions=False)


def test_drafts_lists_pending_and_learned_with_status(store: SkillDrafts) -> None:
    store.accept("set-alarms")
    result = run("drafts")
    assert result.exit_code == 0
    assert "reply-to-chat" in result.stdout and "from run r1" in result.stdout
    assert "set-alarms" in result.stdout and "trial" in result.stdout


def test_drafts_json(store: SkillDrafts) -> None:
    store.accept("set-alarms")
    store.record_outcome("set-alarms", "good")
    data = json.loads(run("drafts", "--json").stdout)
    assert [d["name"] for d in data["pending"]] == ["reply-to-chat"]
    assert data["pending"][0]["run_id"] == "r1"
    assert [(s["name"], s["status"], s["outcomes"]) for s in data["learned"]] == [("set-alarms", "active", ["good"])]


def test_drafts_name_prints_the_skill_file(store: SkillDrafts) -> None:
    result = run("drafts", "reply-to-chat")
    assert result.exit_code == 0 and result.stdout.startswith("---\nname: reply-to-chat\n")


def test_accept_then_the_skill_catalog_lists_it_as_learned(store: SkillDrafts) -> None:
    result = run("accept", "reply-to-chat")
    assert result.exit_code == 0 and result.stdout == ""
    assert "Accepted “reply-to-chat”" in result.stderr
    assert (learned_skills_dir() / "reply-to-chat" / "SKILL.md").is_file()
    skill = SkillCatalog.load(skill_roots()).get("reply-to-chat")
    assert skill is not None and skill.origin == "learned"
    listed = run("list")
    assert "reply-to-chat" in listed.stdout and "learned" in listed.stdout


def test_reject_deletes_the_draft(store: SkillDrafts) -> None:
    result = run("reject", "set-alarms")
    assert result.exit_code == 0 and "Rejected" in result.stderr
    assert [d.name for d in store.pending()] == ["reply-to-chat"]


@pytest.mark.parametrize("verb", ["accept", "reject", "drafts"])
def test_an_unknown_name_is_a_sentence_and_exit_2(store: SkillDrafts, verb: str) -> None:
    result = run(verb, "no-such")
    assert result.exit_code == 2
    assert "no skill draft named “no-such”" in result.stderr
    assert "reply-to-chat, set-alarms" in result.stderr and "Traceback" not in result.output


def test_accepting_twice_says_so(store: SkillDrafts) -> None:
    run("accept", "reply-to-chat")
    result = run("accept", "reply-to-chat")
    assert result.exit_code == 2 and "already accepted" in result.stderr


def test_an_odd_name_is_shown_on_one_line(store: SkillDrafts) -> None:
    result = run("accept", "evil\n\x1b[2Jname")
    assert result.exit_code == 2
    assert "\x1b" not in result.stderr and result.stderr.count("\n") == 1


def test_chinese(store: SkillDrafts, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIKA_LANGUAGE", "zh")
    assert "没有名为“no-such”的技能草稿" in run("reject", "no-such").stderr
    assert "已收下“reply-to-chat”" in run("accept", "reply-to-chat").stderr
    assert "试用" in run("drafts").stdout


def test_a_broken_state_file_exits_2_with_its_sentence(store: SkillDrafts) -> None:
    store.state_file.write_text("{", encoding="utf-8")
    result = run("drafts")
    assert result.exit_code == 2 and "move it aside" in result.stderr


def test_no_drafts_says_how_to_turn_drafting_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
    result = run("drafts")
    assert result.exit_code == 0 and result.stdout == "" and "[learning] skills = true" in result.stderr
