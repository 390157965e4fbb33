"""The assembly loads the knowledge and skill catalogs once per process and hands the same
ones to every run (its knowledge, its lookup tools, AppPace); a broken user file is told
once — a warning line on stderr in headless mode (a `notice` run event, which the TUI shows
too) naming the file and the line — and the rest is used."""

from __future__ import annotations

import io
import json
from pathlib import Path

from mika.assembly import Assembly, SelectedModels
from mika.assembly.device import DeviceChoice
from mika.config.settings import Settings
from mika.headless import run_headless
from mika.knowledge.app_pace import AppPace
from mika.model.testing import Reply, ScriptedModel


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def _headless(asm: Assembly, goal: str, tmp_path: Path) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    await run_headless(
        goal,
        asm.make_run,
        tmp_path,
        out=out,
        err=err,
        make_center=lambda conversations, outbox: asm.task_center(outbox=outbox, conversations=conversations, limit=1),
    )
    return out.getvalue(), err.getvalue()


async def test_broken_user_files_are_told_once_and_the_good_ones_reach_the_run(tmp_path, monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("MIKA_DATA_DIR", str(data))
    _write(
        data / "knowledge" / "apps" / "com.eg.mine" / "APP.md",
        "---\nid: com.eg.mine\nname: Mine\npackages: [com.eg.mine]\npace: careful\n---\n- my app's notes\n",
    )
    broken = _write(
        data / "knowledge" / "apps" / "com.eg.broken" / "APP.md",
        "---\nid: com.eg.broken\nname: Broken\npackages: [com.eg.broken]\nverified: maybe\n---\n- x\n",
    )
    bad_skill = _write(data / "skills" / "Bad_Name" / "SKILL.md", "---\nname: Bad_Name\ndescription: d\n---\nbody\n")
    main = ScriptedModel(
        [Reply.call("knowledge_read", id="com.eg.mine"), "Read it.", "Second run done."], name="scripted"
    )
    models = SelectedModels(main, None, None, lambda: None, scripted=True)
    asm = Assembly(Settings(language="en"), tmp_path, models, DeviceChoice(tmp_path))
    asm.load_catalogs()

    _out, err = await _headless(asm, "read my notes on Mine", tmp_path)
    lines = [line.strip() for line in err.splitlines() if "Skipped a broken knowledge or skill file" in line]
    assert len(lines) == 2, err
    assert f"{broken}:5: 'verified' must be true or false" in lines[0]
    assert str(bad_skill) in lines[1] and ":2:" in lines[1]
    assert "mika knowledge check" in lines[0]
    # The run had the user's good entry: in the opening (the task names it) and via the tool.
    first = main.requests[0]
    assert (
        '<context kind="app_knowledge" source="knowledge/apps/com.eg.mine" trust="trusted">' in first.messages[0].text
    )
    assert {"knowledge_search", "knowledge_read", "skill_search", "skill_read"} <= {t.name for t in first.tools}
    assert "was already given: it is in your opening context" in main.requests[1].messages[-1].tool_results[0].text

    # A second run of the same process is not told again.
    _out, err2 = await _headless(asm, "anything else", tmp_path)
    assert "Skipped a broken" not in err2

    # One catalog for everything: the pace reads the same one the runs are given.
    options = asm.run_options()
    assert options.knowledge is asm.knowledge and options.skills is asm.skills
    assert isinstance(options.app_pace, AppPace) and options.app_pace("com.eg.mine") == "careful"
    assert asm.knowledge.get("com.eg.mine").origin == "user"


async def test_stream_json_carries_the_warning_as_a_notice_event(tmp_path, monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("MIKA_DATA_DIR", str(data))
    broken = _write(
        data / "knowledge" / "sites" / "bad.example" / "SITE.md", "---\nid: bad.example\nname: B\n---\n- x\n"
    )
    models = SelectedModels(ScriptedModel(["ok"]), None, None, lambda: None, scripted=True)
    asm = Assembly(Settings(language="en"), tmp_path, models, DeviceChoice(tmp_path))
    asm.load_catalogs()
    out = io.StringIO()
    await run_headless(
        "hi",
        asm.make_run,
        tmp_path,
        fmt="stream-json",
        out=out,
        err=io.StringIO(),
        make_center=lambda conversations, outbox: asm.task_center(outbox=outbox, conversations=conversations, limit=1),
    )
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    notices = [e for e in events if e["type"] == "notice" and e["level"] == "warning"]
    assert len(notices) == 1 and str(broken) in notices[0]["text"] and "a site needs 'domains" in notices[0]["text"]
