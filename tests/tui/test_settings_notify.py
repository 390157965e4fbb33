"""Settings offers `[ui] notify` (auto | bell | off): chosen by keys, written to the
config the loader reads back, and applied at once to how the app calls the user."""

from __future__ import annotations

import tomllib

from textual.widgets import Select

from mika.config.settings import Settings, load_settings
from mika.model.testing import ScriptedModel
from tests.tui.conftest import make_app, settle


async def test_notify_is_chosen_by_keys_saved_and_applied(tmp_path):
    config = tmp_path / "config" / "mika" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[ui]\nnotify = "auto"\n')
    app = make_app(tmp_path, ScriptedModel(["hi"]), settings=Settings(file=config, language="en", notify="auto"))
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        app.action_open("settings")
        await pilot.pause()
        select = app.screen.query_one("#notify", Select)
        assert select.value == "auto"
        select.focus()
        await pilot.press("enter", "down", "down", "enter")  # auto → bell → off
        await pilot.pause()
        assert select.value == "off"
        await pilot.click("#save-settings")
        await pilot.pause()
        assert app.attention.mode == "off"  # no restart needed
    assert tomllib.loads(config.read_text())["ui"]["notify"] == "off"
    assert load_settings(config).notify == "off"


async def test_notify_choices_are_said_in_chinese(tmp_path):
    app = make_app(tmp_path, ScriptedModel(["hi"]), settings=Settings(language="zh"))
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        app.action_open("settings")
        await pilot.pause()
        select = app.screen.query_one("#notify", Select)
        labels = [str(label) for label, _ in select._options]
        assert labels == ["auto：响铃并发桌面通知", "bell：只响终端铃", "off：不提醒"]
