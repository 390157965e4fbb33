"""The Memory & skills screen, driven with Textual's Pilot over the real stores: a
MemoryStore file and a SkillDrafts state folder in the test's temp dirs. Every change the
screen makes is proved by reading the files back with a fresh store."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from mika.knowledge.learning.drafts import SkillDrafts, learned_skills_dir
from mika.memory.store import MemoryKind, MemoryStatus, MemoryStore
from mika_tui.screens.dialogs import ConfirmDialog
from mika_tui.screens.memory import MemoryScreen
from tests.tui import scenes
from tests.tui.conftest import make_app, settle

SIZE = (130, 50)
TRAIN = "I always take the 7:30 train"
SEAT = "I prefer window seats"
COFFEE = "to order coffee use the Luckin app"
BODY = "# Reply to a chat\n1. phone_launch_app com.tencent.mm\n2. Open the chat and type the reply."


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Accepted skills go to $XDG_DATA_HOME/mika/skills-learned: a temp one, never the user's.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


class Clock:
    def __init__(self, now: float = 1_796_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        self.now += 60
        return self.now


def memory_at(tmp_path: Path) -> MemoryStore:
    # The app's state folder in tests/tui/conftest.make_app.
    return MemoryStore(tmp_path / "state" / "mika" / "memory.jsonl", clock=Clock())


def drafts_at(tmp_path: Path) -> SkillDrafts:
    return SkillDrafts(tmp_path / "state" / "mika" / "skill_drafts", learned_skills_dir())


def rows(app, table_id: str) -> list[list[str]]:
    table = app.screen.query_one(table_id, DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def open_memory(pilot) -> MemoryScreen:
    await settle(pilot)
    await pilot.press("f4")
    await pilot.pause()
    assert isinstance(pilot.app.screen, MemoryScreen)
    return pilot.app.screen


def three_items(tmp_path: Path):
    store = memory_at(tmp_path)
    proc = store.add(MemoryKind.PROCEDURE, "order coffee in the Luckin app", COFFEE, conversation_id="conv-a")
    fact = store.add(MemoryKind.FACT, "User always takes the 7:30 train", TRAIN, conversation_id="conv-b")
    pref = store.add(MemoryKind.PREFERENCE, "prefers window seats", SEAT, conversation_id="conv-c")
    return store, proc, fact, pref


class TestMemory:
    async def test_items_are_listed_pending_procedure_first_then_newest(self, tmp_path):
        _, proc, fact, pref = three_items(tmp_path)
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            table = rows(app, "#memory-table")
            # The procedure is the oldest but waits for approval, so it comes first, marked.
            assert [r[1] for r in table] == [proc.text, pref.text, fact.text]
            assert [r[0] for r in table] == ["procedure", "preference", "fact"]
            assert "NEEDS APPROVAL" in table[0][2] and table[1][2] == "active"
            assert table[0][3].startswith("2026-")  # when, in the app's zone
            # Selecting an item shows the user's own words and the conversation it came from.
            detail = text_of(app, "#memory-detail")
            assert COFFEE in detail and "conv-a" in detail and proc.id in detail
            app.screen.query_one("#memory-table", DataTable).focus()
            await pilot.press("down")
            await pilot.pause()
            detail = text_of(app, "#memory-detail")
            assert SEAT in detail and "conv-c" in detail

    async def test_forget_asks_once_and_the_file_no_longer_holds_it(self, tmp_path):
        store, proc, fact, pref = three_items(tmp_path)
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            app.screen.query_one("#memory-table", DataTable).focus()
            await pilot.press("down")  # the preference
            await pilot.press("f")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("escape")  # "no": nothing changes
            await pilot.pause()
            assert isinstance(app.screen, MemoryScreen)
            assert [i.id for i in MemoryStore(store.path).items()] == [proc.id, fact.id, pref.id]
            await pilot.press("f")
            await pilot.pause()
            await pilot.click("#yes")
            await pilot.pause()
            assert isinstance(app.screen, MemoryScreen)
            # Read back from disk by a fresh store: the preference is gone from what runs see.
            assert [i.id for i in MemoryStore(store.path).items()] == [proc.id, fact.id]
            assert MemoryStore(store.path).get(pref.id).status is MemoryStatus.FORGOTTEN
            assert [r[1] for r in rows(app, "#memory-table")] == [proc.text, fact.text]
            assert "Forgotten" in text_of(app, "#memory-message")

    async def test_approve_turns_a_pending_procedure_active_and_nothing_else(self, tmp_path):
        store, proc, _fact, pref = three_items(tmp_path)
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            app.screen.query_one("#memory-table", DataTable).focus()
            await pilot.press("down")  # a preference: nothing to approve
            await pilot.press("a")
            await pilot.pause()
            assert "Only a procedure waiting for approval" in text_of(app, "#memory-message")
            assert MemoryStore(store.path).get(pref.id).status is MemoryStatus.ACTIVE
            await pilot.press("up")
            await pilot.press("a")
            await pilot.pause()
            assert MemoryStore(store.path).get(proc.id).status is MemoryStatus.ACTIVE
            assert "NEEDS APPROVAL" not in " ".join(r[2] for r in rows(app, "#memory-table"))
            assert "Approved" in text_of(app, "#memory-message")

    async def test_an_item_another_process_forgot_is_a_sentence_not_a_traceback(self, tmp_path):
        store, proc, fact, pref = three_items(tmp_path)
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            # `mika memory forget` in another terminal, while the screen still lists the item.
            MemoryStore(store.path).forget(proc.id, erase=True)
            await pilot.press("a")
            await pilot.pause()
            assert "no longer in memory" in text_of(app, "#memory-message")
            assert app.is_running and isinstance(app.screen, MemoryScreen)
            MemoryStore(store.path).forget(pref.id)
            # The list (reloaded after the approve) still shows the preference first, now stale.
            assert rows(app, "#memory-table")[0][1] == pref.text
            await pilot.press("f")
            await pilot.pause()
            await pilot.click("#yes")
            await pilot.pause()
            assert "no longer in memory" in text_of(app, "#memory-message")
            assert [i.id for i in MemoryStore(store.path).items()] == [fact.id]

    async def test_empty_memory_says_how_memory_is_made(self, tmp_path):
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            note = text_of(app, "#memory-note")
            assert "your own words" in note and "mika memory add" in note
            await pilot.press("f")
            await pilot.pause()
            assert isinstance(app.screen, MemoryScreen)  # no dialog for nothing
            assert "Pick a memory item first" in text_of(app, "#memory-message")

    async def test_memory_off_says_so_and_how_to_turn_it_on(self, tmp_path):
        from mika.config.settings import Settings

        three_items(tmp_path)
        app = make_app(tmp_path, settings=Settings(language="en", memory_use=False))
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            note = text_of(app, "#memory-note")
            assert "Memory is off" in note and "use = true" in note and "[memory]" in note
            assert "MIKA_MEMORY_USE=1" in note
            # What was kept before stays listed, so it can still be forgotten.
            assert len(rows(app, "#memory-table")) == 3

    async def test_a_file_that_is_not_ours_is_said_and_left_alone(self, tmp_path):
        path = tmp_path / "state" / "mika" / "memory.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\x00\xffnot memory\n")
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            assert "can't be used" in text_of(app, "#memory-note")
            assert rows(app, "#memory-table") == []
        assert path.read_bytes() == b"\x00\xffnot memory\n"

    async def test_refresh_on_show_picks_up_an_item_saved_meanwhile(self, tmp_path):
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            assert rows(app, "#memory-table") == []
            await pilot.press("escape")
            await pilot.pause()
            memory_at(tmp_path).add(MemoryKind.FACT, "User always takes the 7:30 train", TRAIN)
            await pilot.press("f4")
            await pilot.pause()
            assert [r[1] for r in rows(app, "#memory-table")] == ["User always takes the 7:30 train"]

    async def test_markup_in_an_item_is_shown_as_text(self, tmp_path):
        words = "my nickname is [@click=app.quit]boss[/] [b]x"
        memory_at(tmp_path).add(MemoryKind.FACT, words, words)
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            assert "[@click=app.quit]boss[/]" in text_of(app, "#memory-detail")
            assert rows(app, "#memory-table")[0][1] == words
            assert app.is_running


class TestSkillDrafts:
    def _two(self, tmp_path: Path) -> SkillDrafts:
        d = drafts_at(tmp_path)
        d.add(
            "reply-to-chat",
            "Reply in a chat thread. Use when asked to answer someone.",
            BODY,
            run_id="r1",
            goal="reply to Li",
        )
        d.add(
            "check-parcel",
            "Check a parcel's status. Use when asked where a parcel is.",
            "# Check\n1. open the app",
            run_id="r2",
            goal="where is my parcel",
        )
        return d

    async def test_accept_writes_the_skill_and_reject_drops_the_draft(self, tmp_path):
        d = self._two(tmp_path)
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            drafts = rows(app, "#drafts-table")
            assert sorted(r[0] for r in drafts) == ["check-parcel", "reply-to-chat"]
            assert any(r[2] == "r1 · reply to Li" for r in drafts)
            table = app.screen.query_one("#drafts-table", DataTable)
            table.focus()
            table.move_cursor(row=table.get_row_index("reply-to-chat"))
            await pilot.press("enter")
            await pilot.pause()
            assert "phone_launch_app com.tencent.mm" in text_of(app, "#draft-body")
            await pilot.press("y")
            await pilot.pause()
            skill = learned_skills_dir() / "reply-to-chat" / "SKILL.md"
            assert skill.is_file() and "phone_launch_app com.tencent.mm" in skill.read_text()
            assert [x.name for x in SkillDrafts(d.folder, d.learned_dir).pending()] == ["check-parcel"]
            assert rows(app, "#learned-table")[0][:2] == ["reply-to-chat", "on trial"]
            assert "Accepted reply-to-chat" in text_of(app, "#memory-message")
            await pilot.press("n")  # the cursor is on the one left
            await pilot.pause()
            assert SkillDrafts(d.folder, d.learned_dir).pending() == []
            assert not (learned_skills_dir() / "check-parcel").exists()
            assert "No skill drafts" in text_of(app, "#drafts-note")

    async def test_a_draft_accepted_elsewhere_is_a_sentence(self, tmp_path):
        d = self._two(tmp_path)
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            table = app.screen.query_one("#drafts-table", DataTable)
            name = str(table.get_row_at(0)[0])
            SkillDrafts(d.folder, d.learned_dir).reject(name)  # `mika skills reject` meanwhile
            await pilot.press("y")
            await pilot.pause()
            assert f"The draft {name} is no longer waiting" in text_of(app, "#memory-message")
            assert not (learned_skills_dir() / name).exists()
            assert len(rows(app, "#drafts-table")) == 1

    async def test_learned_skills_show_their_status(self, tmp_path):
        d = self._two(tmp_path)
        d.accept("reply-to-chat")
        d.record_outcome("reply-to-chat", "good")
        d.accept("check-parcel")
        d.record_outcome("check-parcel", "bad")  # a bad trial run retires it
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            learned = {r[0]: r for r in rows(app, "#learned-table")}
            assert learned["reply-to-chat"][1:3] == ["active", "good"]
            assert learned["check-parcel"][1:3] == ["retired", "bad"]

    async def test_markup_in_a_drafted_body_is_shown_as_text(self, tmp_path):
        # A draft is a model's text: markup in it must neither style nor act (a live
        # [@click] would run an app action when clicked).
        body = "# Steps\n1. [@click=app.quit]tap here[/] then [b]done\n2. \x1b[2J clear"
        drafts_at(tmp_path).add(
            "odd-draft", "Does [red]this[/red]. Use when testing.", body, run_id="r9", goal="[b]goal"
        )
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            assert rows(app, "#drafts-table")[0][1] == "Does [red]this[/red]. Use when testing."
            app.screen.query_one("#drafts-table", DataTable).focus()
            await pilot.press("enter")
            await pilot.pause()
            shown = text_of(app, "#draft-body")
            assert "[@click=app.quit]tap here[/]" in shown and "[b]goal" in shown
            assert "\x1b" not in shown  # terminal controls are removed
            assert app.is_running

    async def test_a_broken_drafts_file_is_said(self, tmp_path):
        d = drafts_at(tmp_path)
        d.folder.mkdir(parents=True)
        d.state_file.write_text("{ not json")
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            assert "can't be read" in text_of(app, "#drafts-note")
            await pilot.press("y")
            await pilot.pause()
            assert "Pick a skill draft first" in text_of(app, "#memory-message")
            assert app.is_running


class TestOpening:
    async def test_slash_memory_and_the_palette_open_it(self, tmp_path):
        from mika_tui.commands import MikaCommands

        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            labels = [label for label, _ in MikaCommands(app.screen)._available()]
            assert "Memory & skills" in labels
            await scenes.type_task(pilot, "/memory")
            await pilot.pause()
            assert isinstance(app.screen, MemoryScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is app.main_screen

    async def test_chinese_labels(self, tmp_path):
        three_items(tmp_path)
        app = make_app(tmp_path, language="zh")
        async with app.run_test(size=SIZE) as pilot:
            await open_memory(pilot)
            assert text_of(app, "#memory-title") == "记忆与技能"
            table = app.screen.query_one("#memory-table", DataTable)
            assert [str(c.label) for c in table.columns.values()] == ["类型", "内容", "状态", "时间"]
            first = rows(app, "#memory-table")[0]
            assert first[0] == "流程" and "待批准" in first[2]
            assert "没有技能草稿" in text_of(app, "#drafts-note")
            # What the footer and palette read (the declared bindings keep their i18n keys).
            descriptions = {a.binding.description for a in app.screen.active_bindings.values()}
            assert {"忘记", "批准", "接受草稿", "拒绝草稿"} <= descriptions
            await pilot.press("f")
            await pilot.pause()
            assert str(app.screen.query_one("#yes").label) == "忘记"
