"""The learned-skill store: drafts, accept / reject, trial, retirement (2 bad of the last 3).

Real files in a temp state folder and a temp data folder; nothing mocked."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from mika.knowledge.learning.drafts import DraftError, SkillDrafts, learned_skills_dir
from mika.knowledge.learning.outcomes import next_status

BODY = "# Reply to a chat\n1. phone_launch_app com.tencent.mm\n2. Open the chat and type the reply."


@pytest.fixture
def drafts(tmp_path: Path) -> SkillDrafts:
    return SkillDrafts(tmp_path / "state" / "skill_drafts", tmp_path / "data" / "mika" / "skills-learned")


def add(drafts: SkillDrafts, name: str = "reply-to-chat", **kw) -> str:
    return drafts.add(
        name, "Reply in a chat thread. Use when asked to answer someone.", BODY, run_id="r1", goal="reply to Li", **kw
    ).name


def test_default_places_follow_the_state_and_data_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path / "st"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    d = SkillDrafts.default()
    assert d.folder == tmp_path / "st" / "skill_drafts"
    assert d.learned_dir == tmp_path / "xdg" / "mika" / "skills-learned" == learned_skills_dir()


def test_a_draft_waits_with_its_run_and_goal(drafts: SkillDrafts) -> None:
    assert drafts.pending() == []
    add(drafts)
    (draft,) = drafts.pending()
    assert (draft.name, draft.run_id, draft.goal) == ("reply-to-chat", "r1", "reply to Li")
    assert draft.body == BODY and draft.created_at > 0
    # Nothing reaches the skill catalog's folder before the user accepts.
    assert not drafts.learned_dir.exists()
    mode = stat.S_IMODE(os.stat(drafts.state_file).st_mode)
    assert mode == 0o600


def test_accept_moves_it_to_skills_learned_on_trial(drafts: SkillDrafts) -> None:
    add(drafts)
    skill = drafts.accept("reply-to-chat")
    assert skill.status == "trial" and skill.outcomes == ()
    text = (drafts.learned_dir / "reply-to-chat" / "SKILL.md").read_text(encoding="utf-8")
    assert text.startswith("---\nname: reply-to-chat\n")
    assert BODY in text
    assert drafts.pending() == []
    assert [s.name for s in drafts.learned()] == ["reply-to-chat"]


def test_reject_forgets_the_draft_and_writes_no_skill(drafts: SkillDrafts) -> None:
    add(drafts)
    drafts.reject("reply-to-chat")
    assert drafts.pending() == [] and drafts.learned() == []
    assert not (drafts.learned_dir / "reply-to-chat").exists()


@pytest.mark.parametrize("verb", ["accept", "reject"])
def test_unknown_names_are_a_sentence_naming_the_draft(drafts: SkillDrafts, verb: str) -> None:
    add(drafts)
    with pytest.raises(DraftError) as caught:
        getattr(drafts, verb)("no-such-skill")
    message = str(caught.value)
    assert "'no-such-skill'" in message and "reply-to-chat" in message and "mika skills drafts" in message


def test_accepting_twice_says_it_was_already_accepted(drafts: SkillDrafts) -> None:
    add(drafts)
    drafts.accept("reply-to-chat")
    with pytest.raises(DraftError, match="already accepted"):
        drafts.accept("reply-to-chat")


def test_a_name_clash_gets_a_suffix(drafts: SkillDrafts) -> None:
    assert add(drafts) == "reply-to-chat"
    assert add(drafts) == "reply-to-chat-2"
    drafts.accept("reply-to-chat")
    assert add(drafts) == "reply-to-chat-3"  # learned names count too
    assert add(drafts, "set-alarms", taken={"set-alarms"}) == "set-alarms-2"  # shipped / user skills
    long = "a" * 64
    suffixed = add(drafts, long, taken={long})
    assert len(suffixed) <= 64 and suffixed.endswith("-2")


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("", "ok"),
        ("Reply", "ok"),
        ("a--b", "ok"),
        ("-a", "ok"),
        ("a" * 65, "ok"),
        ("ok", ""),
        ("ok", "x" * 1025),
        ("ok", "two\nlines"),
    ],
)
def test_invalid_drafts_are_refused_whole(drafts: SkillDrafts, name: str, description: str) -> None:
    with pytest.raises(DraftError, match="was not stored"):
        drafts.add(name, description, BODY, run_id="r", goal="g")
    assert drafts.pending() == []


def test_odd_descriptions_survive_the_front_matter(drafts: SkillDrafts) -> None:
    description = "Pay 'nothing': check # the price [a, b] \"quoted\" — 微信"
    drafts.add("odd", description, BODY, run_id="r", goal="g")
    drafts.accept("odd")
    text = (drafts.learned_dir / "odd" / "SKILL.md").read_text(encoding="utf-8")
    assert "description: 'Pay ''nothing'': check # the price [a, b] \"quoted\" — 微信'" in text


def test_trial_good_becomes_active(drafts: SkillDrafts) -> None:
    add(drafts)
    drafts.accept("reply-to-chat")
    skill = drafts.record_outcome("reply-to-chat", "good")
    assert (skill.status, skill.outcomes) == ("active", ("good",))
    assert (drafts.learned_dir / "reply-to-chat" / "SKILL.md").is_file()


def test_trial_bad_retires_and_keeps_the_text_out_of_the_catalog(drafts: SkillDrafts) -> None:
    add(drafts)
    drafts.accept("reply-to-chat")
    skill = drafts.record_outcome("reply-to-chat", "bad")
    assert skill.status == "retired" and skill.retired_at > 0
    assert not (drafts.learned_dir / "reply-to-chat").exists()
    kept = drafts.folder / "retired" / "reply-to-chat" / "SKILL.md"
    assert kept.is_file() and BODY in kept.read_text(encoding="utf-8")
    assert skill.path == kept
    (listed,) = drafts.learned()
    assert listed.status == "retired"
    # A run that read it before it was retired changes nothing.
    assert drafts.record_outcome("reply-to-chat", "good").status == "retired"


def test_active_is_retired_after_two_bad_of_the_last_three(drafts: SkillDrafts) -> None:
    add(drafts)
    drafts.accept("reply-to-chat")
    seq = ["good", "bad", "good", "good", "bad", "good"]  # never 2 bad within 3
    for outcome in seq:
        assert drafts.record_outcome("reply-to-chat", outcome).status == "active"
    assert drafts.get_learned("reply-to-chat").outcomes == ("good", "bad", "good")
    skill = drafts.record_outcome("reply-to-chat", "bad")  # good, bad, good → bad, good, bad
    assert skill.status == "retired" and skill.outcomes == ("bad", "good", "bad")


def test_two_bad_in_a_row_retire_an_active_skill() -> None:
    assert next_status("active", ("good",), "bad") == ("active", ("good", "bad"))
    assert next_status("active", ("good", "bad"), "bad") == ("retired", ("good", "bad", "bad"))
    # A bad use that has dropped out of the window no longer counts.
    assert next_status("active", ("bad", "good", "good"), "bad") == ("active", ("good", "good", "bad"))
    assert next_status("retired", ("bad",), "good") == ("retired", ("bad",))


def test_unknown_learned_skill_and_bad_outcome_word(drafts: SkillDrafts) -> None:
    with pytest.raises(DraftError, match="no learned skill named 'ghost'"):
        drafts.record_outcome("ghost", "good")
    with pytest.raises(ValueError, match=r"good. or .bad"):
        drafts.record_outcome("ghost", "fine")


def test_a_broken_state_file_is_a_sentence_not_a_traceback(drafts: SkillDrafts) -> None:
    drafts.folder.mkdir(parents=True)
    drafts.state_file.write_text("{not json", encoding="utf-8")
    with pytest.raises(DraftError, match=r"cannot be read.*move it aside"):
        drafts.pending()
    drafts.state_file.write_text(json.dumps({"drafts": []}), encoding="utf-8")
    with pytest.raises(DraftError, match="not in the expected form"):
        drafts.learned()


def test_two_stores_on_one_folder_see_each_others_writes(drafts: SkillDrafts) -> None:
    other = SkillDrafts(drafts.folder, drafts.learned_dir)
    add(drafts)
    add(other, "set-alarms")
    assert sorted(d.name for d in drafts.pending()) == ["reply-to-chat", "set-alarms"]
