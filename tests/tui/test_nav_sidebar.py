"""Moving around (issue 17): the conversations sidebar by keyboard alone.

Three conversations titled alike are written through the real ConversationStore (with a
fixed clock, so the times in the list are chosen) before the app opens; every step after
that is a key press.
"""

from __future__ import annotations

from textual.widgets import Input, OptionList

from mika.model.testing import ScriptedModel
from mika.run.conversations import ConversationStore
from mika_tui.widgets.chat import ChatLog
from tests.tui.conftest import FIXED_NOW, make_app, settle, until

SIZE = (120, 40)
TEA = "Buy one Green Tea"
# (conversation id, when it last changed, what Mika answered): today 11:00, yesterday, a week ago.
SEEDED = (
    ("c-tea-today", FIXED_NOW - 3600, "Bought at the corner shop, ¥4."),
    ("c-tea-yesterday", FIXED_NOW - 86400 - 7200, "The shop was closed."),
    ("c-tea-lastweek", FIXED_NOW - 7 * 86400, "Ordered two by mistake; one refunded."),
)


def seed(tmp_path, *, extra: tuple[tuple[str, float, str, str], ...] = ()) -> None:
    state = tmp_path / "state" / "mika"
    state.mkdir(parents=True, exist_ok=True)
    rows = [(cid, at, TEA, answer) for cid, at, answer in SEEDED] + list(extra)
    for cid, at, user, answer in rows:
        store = ConversationStore(state, clock=lambda at=at: at)
        store.begin_turn(cid, f"r-{cid}", user)
        store.finish_turn(cid, f"r-{cid}", outcome="answered", answer=answer)


def app_for(tmp_path, **kw):
    return make_app(tmp_path, ScriptedModel(["hi"]), **kw)


def rows(app) -> list[str]:
    options = app.main_screen.query_one("#conv-options", OptionList)
    return [str(o.prompt) for o in options.options if o.id]


def chat_text(app) -> str:
    chat = app.main_screen.query_one(ChatLog)
    return "\n".join(str(w.render()) for w in chat.query("*") if hasattr(w, "render"))


class TestSidebarByKeys:
    async def test_ctrl_b_focuses_the_list_with_a_row_highlighted(self, tmp_path):
        seed(tmp_path)
        app = app_for(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+b")
            await pilot.pause()
            options = app.main_screen.query_one("#conv-options", OptionList)
            assert app.focused is options
            assert options.highlighted is not None
            assert options.get_option_at_index(options.highlighted).id == "c-tea-today"

    async def test_down_and_enter_reopen_an_old_conversation_with_its_turns(self, tmp_path):
        seed(tmp_path)
        app = app_for(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+b", "down", "enter")
            await until(lambda: app.main_screen.conversation_id == "c-tea-yesterday")
            await until(lambda: "The shop was closed." in chat_text(app))
            assert TEA in chat_text(app)
            assert "Bought at the corner shop" not in chat_text(app)
            # Opened to go on with it: the input has the keys again.
            assert app.focused is app.main_screen.query_one("#prompt", Input)

    async def test_titles_alike_are_told_apart_by_date_and_time(self, tmp_path):
        seed(tmp_path)
        app = app_for(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+b")
            await pilot.pause()
            # FIXED_NOW is 2026-11-30 12:00 UTC: today shows the time only, other days the date.
            assert rows(app) == [f"  11:00 {TEA}", f"  11-29 10:00 {TEA}", f"  11-23 12:00 {TEA}"]
            assert len(set(rows(app))) == 3

    async def test_slash_searches_titles_and_enter_opens_the_match(self, tmp_path):
        seed(tmp_path, extra=(("c-dark", FIXED_NOW - 600, "turn on dark mode", "Dark mode is on."),))
        app = app_for(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+b")
            await pilot.pause()
            assert len(rows(app)) == 4
            await pilot.press("slash", *"DARK")
            await pilot.pause()
            assert rows(app) == ["  11:50 turn on dark mode"]
            await pilot.press("enter")
            await until(lambda: app.main_screen.conversation_id == "c-dark")
            await until(lambda: "Dark mode is on." in chat_text(app))

    async def test_a_search_matching_nothing_says_so_and_esc_brings_all_back(self, tmp_path):
        seed(tmp_path)
        app = app_for(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+b", "slash", *"zzz")
            await pilot.pause()
            options = app.main_screen.query_one("#conv-options", OptionList)
            assert rows(app) == []
            assert "No title matches." in str(options.get_option_at_index(0).prompt)
            await pilot.press("escape")
            await pilot.pause()
            assert len(rows(app)) == 3
            assert app.focused is options

    async def test_esc_closes_the_sidebar_and_gives_the_input_back(self, tmp_path):
        seed(tmp_path)
        app = app_for(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+b")
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            assert not app.main_screen.query_one("#sidebar").has_class("-open")
            assert app.focused is app.main_screen.query_one("#prompt", Input)

    async def test_the_highlight_survives_the_list_being_redrawn(self, tmp_path):
        seed(tmp_path)
        app = app_for(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+b", "down", "down")
            await pilot.pause()
            app.main_screen._refresh_sidebar()  # what every change of the center does
            await pilot.pause()
            options = app.main_screen.query_one("#conv-options", OptionList)
            assert options.get_option_at_index(options.highlighted).id == "c-tea-lastweek"


class TestSidebarSnapshot:
    def test_sidebar_focused_with_dated_titles(self, snap_compare, tmp_path):
        seed(tmp_path)

        async def before(pilot):
            await settle(pilot)
            await pilot.press("ctrl+b", "down")
            await settle(pilot)

        assert snap_compare(app_for(tmp_path), terminal_size=(100, 30), run_before=before)

    def test_sidebar_focused_narrow(self, snap_compare, tmp_path):
        seed(tmp_path)

        async def before(pilot):
            await settle(pilot)
            await pilot.press("ctrl+b")
            await settle(pilot)

        assert snap_compare(app_for(tmp_path), terminal_size=(80, 24), run_before=before)

    def test_sidebar_searching_chinese(self, snap_compare, tmp_path):
        seed(tmp_path, extra=(("c-dark", FIXED_NOW - 600, "打开深色模式", "深色模式已打开。"),))

        async def before(pilot):
            await settle(pilot)
            await pilot.press("ctrl+b", "slash", *"Tea")
            await settle(pilot)

        assert snap_compare(app_for(tmp_path, language="zh"), terminal_size=(120, 30), run_before=before)
