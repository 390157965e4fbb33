"""Moving around (issue 17): /help and `?` open a real help screen — every key (as the
user's keymap has it), every slash command, and where config and records live.

Driven by keys; what is read is the help screen as drawn.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import Input, Static

from mika.config.settings import Settings
from mika.model.testing import ScriptedModel
from mika_tui.screens.help import SLASH_HELP, HelpScreen
from mika_tui.screens.main import SLASH, MainScreen
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, until

SIZE = (120, 40)


def help_text(app) -> str:
    return "\n".join(str(s.render()) for s in app.screen.query(Static))


async def open_by_slash(pilot) -> None:
    await settle(pilot)
    await scenes.type_task(pilot, "/help")
    await until(lambda: isinstance(pilot.app.screen, HelpScreen))
    await pilot.pause()


class TestHelpOpens:
    async def test_slash_help_opens_the_help_screen_and_esc_goes_back(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await open_by_slash(pilot)
            await pilot.press("escape")
            await until(lambda: app.screen is app.main_screen)

    async def test_question_mark_in_an_empty_input_opens_help(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.focused is app.main_screen.query_one("#prompt", Input)
            await pilot.press("question_mark")
            await until(lambda: isinstance(app.screen, HelpScreen))

    async def test_a_question_mark_inside_a_task_is_typed(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press(*"is the shop open", "question_mark")
            await pilot.pause()
            assert app.screen is app.main_screen
            assert app.main_screen.query_one("#prompt", Input).value == "is the shop open?"

    async def test_a_question_mark_in_the_title_search_is_typed(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+b", "slash", "question_mark")
            await pilot.pause()
            assert app.screen is app.main_screen
            assert app.main_screen.query_one("#conv-search", Input).value == "?"


class TestHelpTells:
    async def test_every_key_of_the_main_screen_is_listed_with_its_key(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await open_by_slash(pilot)
            text = help_text(app)
            for b in MainScreen.BINDINGS:
                label = app.tr(b.description)
                key = app.get_key_display(b)
                assert any(line.startswith(key) and label in line for line in text.splitlines()), (key, label)
            assert "Command palette" in text and "^p" in text

    async def test_every_slash_command_is_listed(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await open_by_slash(pilot)
            text = help_text(app)
            assert [cmd for cmd, _ in SLASH_HELP] == list(SLASH)  # nothing the input knows is left out
            for cmd, key in SLASH_HELP:
                assert f"{cmd}" in text and app.tr(key) in text

    async def test_the_real_config_and_record_places_are_shown(self, tmp_path):
        model = ScriptedModel(["Done."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "say done")  # a run writes its record
            await open_by_slash(pilot)
            text = help_text(app)
            config = tmp_path / "config" / "mika" / "config.toml"
            records = app.deps.state_dir / "runs"
            assert records.is_dir()
            assert f"Config file: {config} (not created yet)" in text
            assert f"Run records (mika runs list / show): {records}\n" in text + "\n"
            assert str(app.deps.state_dir) in text

    async def test_a_loaded_config_file_is_the_one_shown(self, tmp_path):
        config = tmp_path / "mine.toml"
        config.write_text('language = "en"\n')
        app = make_app(tmp_path, ScriptedModel(["hi"]), settings=Settings(language="en", file=config))
        async with app.run_test(size=SIZE) as pilot:
            await open_by_slash(pilot)
            text = help_text(app)
            assert f"Config file: {config}\n" in text + "\n"

    async def test_a_remapped_key_is_shown_as_remapped(self, tmp_path):
        app = make_app(
            tmp_path, ScriptedModel(["hi"]), settings=Settings(language="en", keymap={"main.sidebar": "ctrl+o"})
        )
        async with app.run_test(size=SIZE) as pilot:
            await open_by_slash(pilot)
            lines = help_text(app).splitlines()
            assert any(line.startswith("^o") and "Conversations" in line for line in lines)
            assert not any(line.startswith("^b") for line in lines)

    async def test_chinese_help(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]), language="zh")
        async with app.run_test(size=SIZE) as pilot:
            await open_by_slash(pilot)
            text = help_text(app)
            assert "按键" in text and "斜杠命令" in text and "配置文件" in text and "新对话" in text


def _fixed_places(monkeypatch, name: str) -> Path:
    """Paths that are the same on every machine, so the snapshot can show them."""
    root = Path("/tmp") / f"mika-help-snapshot-{name}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(root / "state"))
    monkeypatch.setenv("MIKA_DATA_DIR", str(root / "data"))
    return root


class TestHelpSnapshot:
    def test_help_screen(self, snap_compare, monkeypatch):
        root = _fixed_places(monkeypatch, "en")

        async def before(pilot):
            await open_by_slash(pilot)
            await settle(pilot)

        assert snap_compare(make_app(root, ScriptedModel(["hi"])), terminal_size=(120, 60), run_before=before)

    def test_help_screen_chinese(self, snap_compare, monkeypatch):
        root = _fixed_places(monkeypatch, "zh")

        async def before(pilot):
            await open_by_slash(pilot)
            await settle(pilot)

        app = make_app(root, ScriptedModel(["hi"]), language="zh")
        assert snap_compare(app, terminal_size=(120, 60), run_before=before)
