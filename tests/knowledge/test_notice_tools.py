"""The lookup tools on real catalogs in tmp dirs: knowledge_search / knowledge_read /
skill_search / skill_read, and every route out of a skill's folder that skill_read refuses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mika.cap.general import GeneralCapability
from mika.cap.general.lookup import MAX_SKILL_FILE, KnowledgeRead, KnowledgeSearch, SkillRead, SkillSearch
from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.knowledge.notice import NoticePolicy
from mika.observe.evidence import EvidenceLedger
from mika.observe.observation import Place
from mika.record.events import KnowledgeGiven
from mika.runtypes.inbox import RunInbox
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.tool.context import ToolContext, services_by_type
from mika.tool.declaration import Risk
from tests.knowledge.test_notice import app, site, skill


def ctx_with(policy: NoticePolicy, events: list) -> ToolContext:
    spec = RunSpec(goal="x", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED), conversation_id="c1")
    return ToolContext(
        spec=spec, inbox=RunInbox(), emit=events.append, evidence=EvidenceLedger(), services=services_by_type([policy])
    )


@pytest.fixture
def knowledge(tmp_path) -> KnowledgeCatalog:
    shipped = tmp_path / "k"
    app(shipped, "com.tencent.mm", "WeChat", aliases="微信", body="## Where things are\n- Chats tab first")
    app(shipped, "com.eg.shop", "Shop", body="## Fast routes\n- The search icon top right has no label")
    site(shipped, "taobao.com", "Taobao", body="- Open-in-app banner at the top")
    return KnowledgeCatalog.load([(shipped, "shipped")])


@pytest.fixture
def skills(tmp_path) -> SkillCatalog:
    root = tmp_path / "s"
    skill(root, "reply-to-chat", "Reply in a chat thread. Use when the user asks to answer someone.")
    skill(root, "weekday-alarms", "Set alarms for weekdays from a sentence.")
    folder = root / "reply-to-chat"
    (folder / "templates").mkdir()
    (folder / "templates" / "polite.txt").write_text("Thanks, see you then.", encoding="utf-8")
    (folder / "notes.md").write_text("# Notes\nKeep replies short.", encoding="utf-8")
    return SkillCatalog.load([(root, "shipped")])


async def test_knowledge_search_lists_ids_names_kinds_and_a_summary(knowledge):
    policy = NoticePolicy(knowledge)
    policy.opening("reply on 微信")
    out = await KnowledgeSearch(knowledge, policy).run({"query": "shop search"}, ctx_with(policy, []))
    assert out.ok
    assert "- com.eg.shop — Shop (app): Fast routes" in out.text
    out = await KnowledgeSearch(knowledge, policy).run({"query": "WeChat"}, ctx_with(policy, []))
    assert "- com.tencent.mm — WeChat (app) [already in your context]" in out.text
    none = await KnowledgeSearch(knowledge, policy).run({"query": "zzqqxx"}, ctx_with(policy, []))
    assert none.ok and none.code == "none" and "No knowledge matches 'zzqqxx'" in none.text
    empty = await KnowledgeSearch(knowledge, policy).run({"query": "   "}, ctx_with(policy, []))
    assert not empty.ok and empty.code == "bad_query"


async def test_knowledge_read_gives_the_block_once_and_then_says_where_it_is(knowledge):
    policy = NoticePolicy(knowledge)
    events: list = []
    tool = KnowledgeRead(knowledge, policy)
    out = await tool.run({"id": "taobao.com"}, ctx_with(policy, events))
    assert out.ok
    assert out.text.startswith('<context kind="site_knowledge" source="knowledge/sites/taobao.com" trust="trusted">')
    assert "- Open-in-app banner at the top" in out.text
    assert [(e.id, e.origin, e.reason) for e in events if isinstance(e, KnowledgeGiven)] == [
        ("taobao.com", "shipped", "read")
    ]
    again = await tool.run({"id": "taobao.com"}, ctx_with(policy, events))
    assert again.code == "given" and "<context" not in again.text
    assert "you read it earlier in this run with knowledge_read" in again.text
    # Given unasked at the first screen: the answer says it is already in the context.
    policy.after_read(Place.app("com.eg.shop"))
    shop = await tool.run({"id": "com.eg.shop"}, ctx_with(policy, events))
    assert shop.code == "given" and "first read a screen of that app" in shop.text
    # A name or a page's host finds the entry too; an unknown id is a clear error.
    by_name = await tool.run({"id": "WeChat"}, ctx_with(policy, events))
    assert by_name.ok and 'source="knowledge/apps/com.tencent.mm"' in by_name.text
    unknown = await tool.run({"id": "com.nobody"}, ctx_with(policy, events))
    assert not unknown.ok and unknown.code == "unknown_knowledge" and "knowledge_search" in unknown.text


async def test_skill_search_and_read_give_the_body_and_its_files(skills):
    policy = NoticePolicy(None, skills)
    ctx = ctx_with(policy, [])
    found = await SkillSearch(skills).run({"query": "answer someone in a chat"}, ctx)
    assert (
        found.text.splitlines()[1]
        == "- reply-to-chat — Reply in a chat thread. Use when the user asks to answer someone."
    )
    read = await SkillRead(skills).run({"name": "reply-to-chat"}, ctx)
    assert read.ok and "# Steps\n1. go" in read.text
    assert read.text.endswith("Files beside it (skill_read with file= reads one): notes.md, templates/polite.txt")
    one = await SkillRead(skills).run({"name": "reply-to-chat", "file": "templates/polite.txt"}, ctx)
    assert one.ok and one.text == "reply-to-chat/templates/polite.txt:\nThanks, see you then."
    missing = await SkillRead(skills).run({"name": "no-such"}, ctx)
    assert not missing.ok and missing.code == "unknown_skill"


def _refused(out, *words: str) -> None:
    assert not out.ok and out.code == "file_refused", out.text
    assert out.text.startswith("Not read: ")
    for w in words:
        assert w in out.text, out.text


async def test_skill_read_refuses_every_way_out_of_the_skills_folder(tmp_path, skills):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET", encoding="utf-8")
    folder = skills.get("reply-to-chat").folder
    os.symlink(secret, folder / "link.txt")  # a file link pointing outside
    os.symlink(tmp_path, folder / "outside")  # a folder link pointing outside
    (folder / "huge.txt").write_text("x" * (MAX_SKILL_FILE + 1), encoding="utf-8")
    (folder / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    (folder / "nul.txt").write_bytes(b"text\x00more")
    (folder / ".hidden").write_text("hidden", encoding="utf-8")
    ctx = ctx_with(NoticePolicy(None, skills), [])
    tool = SkillRead(skills)

    async def read(name: str):
        return await tool.run({"name": "reply-to-chat", "file": name}, ctx)

    _refused(await read("../weekday-alarms/SKILL.md"), "'..'")
    _refused(await read("templates/../../weekday-alarms/SKILL.md"), "'..'")
    _refused(await read("..\\weekday-alarms\\SKILL.md"), "'..'")
    _refused(await read(str(secret)), "absolute path")
    _refused(await read("/etc/passwd"), "absolute path")
    _refused(await read("~/secret.txt"), "absolute path")
    _refused(await read("notes.md\x00.png"), "NUL byte")
    _refused(await read("link.txt"), "outside the skill's folder")
    _refused(await read("outside/secret.txt"))
    _refused(await read("huge.txt"), f"{MAX_SKILL_FILE + 1} bytes")
    _refused(await read("blob.bin"), "not UTF-8")
    _refused(await read("nul.txt"), "NUL bytes")
    _refused(await read(".hidden"), "has no file")
    _refused(await read("nope.md"), "has no file", "notes.md")
    for out in [await read(n) for n in ("link.txt", "outside/secret.txt", str(secret))]:
        assert "TOP SECRET" not in out.text
    # SKILL.md itself is the skill's body.
    body = await read("SKILL.md")
    assert body.ok and "# Steps" in body.text


async def test_a_skill_folder_reached_through_a_link_still_reads_its_own_files(tmp_path):
    real = tmp_path / "real"
    skill(real, "share-file", "Share a file to a contact.")
    (real / "share-file" / "how.md").write_text("long-press, share", encoding="utf-8")
    linked = tmp_path / "linked"
    linked.symlink_to(real)
    skills = SkillCatalog.load([(linked, "user")])
    out = await SkillRead(skills).run({"name": "share-file", "file": "how.md"}, ctx_with(NoticePolicy(), []))
    assert out.ok and out.text.endswith("long-press, share")


def test_the_tools_are_read_only_and_offered_only_with_their_catalogs(knowledge, skills):
    names = lambda cap: [t.name for t in cap.tools()]  # noqa: E731
    assert not {"knowledge_search", "skill_read"} & set(names(GeneralCapability(confirmations=False)))
    both = GeneralCapability(confirmations=False, knowledge=knowledge, skills=skills)
    # The general tier's index closes the list (shown only when a tier tool is in the run).
    assert names(both)[-5:] == ["knowledge_search", "knowledge_read", "skill_search", "skill_read", "more_tools"]
    assert all(t.risk is Risk.READ for t in both.tools() if t.name.startswith(("knowledge_", "skill_")))
    only_skills = GeneralCapability(confirmations=False, skills=skills)
    assert names(only_skills)[-3:-1] == ["skill_search", "skill_read"] and "knowledge_read" not in names(only_skills)
    assert isinstance(both.tools()[-4], KnowledgeRead)
    assert Path(skills.get("reply-to-chat").path).name == "SKILL.md"


async def test_a_skill_with_many_files_names_only_the_first_forty(tmp_path):
    root = tmp_path / "many"
    skill(root, "big-skill", "Many files.")
    for i in range(45):
        (root / "big-skill" / f"f{i:02d}.md").write_text("x", encoding="utf-8")
    skills = SkillCatalog.load([(root, "user")])
    out = await SkillRead(skills).run({"name": "big-skill"}, ctx_with(NoticePolicy(), []))
    assert out.text.endswith("f39.md and 5 more")
    assert "f40.md" not in out.text
