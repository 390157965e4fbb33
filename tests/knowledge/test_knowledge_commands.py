"""`mika knowledge` and `mika skills`: list, show, check — and the shipped folders pass."""

from __future__ import annotations

import json

from click.testing import CliRunner

from mika.commands.knowledge import knowledge_group
from mika.commands.skills import skills_group
from mika.resources import knowledge_dir, skills_dir
from tests.knowledge.test_catalog import app, site, skill


def run(group, *args: str):
    return CliRunner().invoke(group, list(args), catch_exceptions=False)


def test_the_shipped_knowledge_and_skills_pass_the_checker():
    # CI runs this on every change: a broken shipped file fails the build, as in the seed.
    checked = run(knowledge_group, "check", str(knowledge_dir()))
    assert checked.exit_code == 0, checked.output
    skills = run(skills_group, "check", str(skills_dir()))
    assert skills.exit_code == 0, skills.output


def test_check_names_file_and_line_and_exits_2(tmp_path):
    root = tmp_path / "knowledge"
    app(root, "com.good.app", extra="skills: [no-such-skill]\n")
    bad = app(root, "com.bad.app", extra="pace: fast\n")
    twin = app(root, "com.twin.app", packages="com.good.app")
    liar = app(root, "com.liar.app", extra="verified: true\n", body="- the menu is on the left (unverified)")
    (root / "apps" / "com.empty").mkdir()
    (root / "apps" / "com.case").mkdir()
    (root / "apps" / "com.case" / "app.md").write_text("x", encoding="utf-8")
    (root / "apps" / "stray.md").write_text("x", encoding="utf-8")
    (tmp_path / "skills").mkdir()
    result = run(knowledge_group, "check", str(root))
    assert result.exit_code == 2
    out = result.output
    assert f"{bad}:5: pace 'fast' is not one of: normal, careful" in out
    assert f"{root / 'apps' / 'com.good.app' / 'APP.md'}:5: related skill 'no-such-skill' does not exist" in out
    assert f"{twin}:4: 'com.good.app' is claimed by" in out
    assert f"{liar}:5: marked 'verified: true'" in out
    assert "com.empty: no APP.md in this folder" in out
    assert "found 'app.md'; the name is case-sensitive" in out
    assert "stray.md: a loose file" in out
    assert "4 knowledge files checked: 7 problem(s)." in out


def test_check_of_a_folder_that_is_not_one(tmp_path):
    result = run(knowledge_group, "check", str(tmp_path))
    assert result.exit_code == 2
    assert "not a knowledge folder" in result.output
    assert run(knowledge_group, "check", str(tmp_path / "nope")).exit_code == 2


def test_list_and_show_see_the_users_copy_first(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_DATA_DIR", str(tmp_path))
    app(tmp_path / "knowledge", "com.android.settings", name="My Settings", extra="aliases: [设置]\n", body="- mine")
    site(tmp_path / "knowledge", "example.org", "example.org")
    app(tmp_path / "knowledge", "com.broken.app", extra="colour: red\n")
    listed = run(knowledge_group, "list", "--json")
    data = json.loads(listed.stdout)
    ours = {e["id"]: e for e in data["entries"] if e["origin"] == "user"}
    assert ours["com.android.settings"]["name"] == "My Settings"
    assert ours["example.org"]["kind"] == "site"
    assert [p["line"] for p in data["problems"]] == [5]
    assert "unknown field 'colour'" in listed.stderr
    shown = run(knowledge_group, "show", "com.android.settings")
    assert shown.exit_code == 0 and "- mine" in shown.stdout and "user:" in shown.stdout
    assert "example.org" in run(knowledge_group, "show", "https://www.example.org/a").stdout
    missing = run(knowledge_group, "show", "com.nothing.here")
    assert missing.exit_code == 2 and "no knowledge 'com.nothing.here'" in missing.stderr


def test_show_makes_terminal_escapes_harmless(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_DATA_DIR", str(tmp_path))
    app(tmp_path / "knowledge", "com.esc.app", body="- \x1b]0;pwned\x07title \x1b[2Jclear")
    shown = run(knowledge_group, "show", "com.esc.app")
    assert "\x1b" not in shown.stdout and "title" in shown.stdout


def test_skills_commands(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_DATA_DIR", str(tmp_path))
    path = skill(tmp_path / "skills", "my-routine", description="My morning routine. Use when I say morning.")
    (path.parent / "notes.md").write_text("x", encoding="utf-8")
    skill(tmp_path / "skills-learned", "Bad Name")
    listed = json.loads(run(skills_group, "list", "--json").stdout)
    mine = [s for s in listed["skills"] if s["name"] == "my-routine"]
    assert mine and mine[0]["origin"] == "user" and mine[0]["files"] == ["notes.md"]
    assert listed["problems"][0]["path"].endswith("Bad Name/SKILL.md")
    shown = run(skills_group, "show", "my-routine")
    assert "files: notes.md" in shown.stdout
    assert run(skills_group, "show", "nope").exit_code == 2
    checked = run(skills_group, "check", str(tmp_path / "skills-learned"))
    assert checked.exit_code == 2 and ":2: name 'Bad Name'" in checked.output
    (tmp_path / "skills" / "empty").mkdir()
    assert "no SKILL.md in this folder" in run(skills_group, "check", str(tmp_path / "skills")).output


def test_default_check_covers_the_users_folders(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_DATA_DIR", str(tmp_path))
    bad = app(tmp_path / "knowledge", "com.bad.app", extra="verified: maybe\n")
    result = run(knowledge_group, "check")
    assert result.exit_code == 2 and f"{bad}:5:" in result.output
