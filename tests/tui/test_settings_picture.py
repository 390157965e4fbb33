"""Settings offers `[phone] picture_long_side` (issue 35): chosen by keys, written to the
config the loader reads back; its title is said in the user's language."""

from __future__ import annotations

import tomllib

from textual.widgets import Select, Static

from mika.config.settings import Settings, load_settings
from mika.model.testing import ScriptedModel
from tests.tui.conftest import make_app, settle


async def test_the_picture_size_is_chosen_by_keys_and_saved(tmp_path):
    config = tmp_path / "config" / "mika" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[phone]\npicture_long_side = 1280\n")
    app = make_app(
        tmp_path, ScriptedModel(["hi"]), settings=Settings(file=config, language="en", picture_long_side=1280)
    )
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        app.action_open("settings")
        await pilot.pause()
        select = app.screen.query_one("#picture-long-side", Select)
        assert select.value == 1280
        select.focus()
        await pilot.press("enter", "up", "enter")  # 1280 → 1024
        await pilot.pause()
        assert select.value == 1024
        app.screen.query_one("#save-settings").focus()
        await pilot.press("enter")
        await pilot.pause()
    assert tomllib.loads(config.read_text())["phone"]["picture_long_side"] == 1024
    assert load_settings(config).picture_long_side == 1024


async def test_the_picture_size_and_format_are_named_in_chinese(tmp_path):
    app = make_app(tmp_path, ScriptedModel(["hi"]), settings=Settings(language="zh"))
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        app.action_open("settings")
        await pilot.pause()
        titles = [str(w.render()) for w in app.screen.query(Static).filter(".title")]
        assert any("发给模型的手机截图最长边" in t for t in titles), titles
        assert any("截图的编码格式" in t for t in titles), titles


async def test_the_picture_format_is_chosen_by_keys_and_saved(tmp_path):
    config = tmp_path / "config" / "mika" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[phone]\npicture_long_side = 1024\n")
    app = make_app(tmp_path, ScriptedModel(["hi"]), settings=Settings(file=config, language="en"))
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        app.action_open("settings")
        await pilot.pause()
        select = app.screen.query_one("#picture-format", Select)
        assert select.value == "webp"
        select.focus()
        await pilot.press("enter", "down", "enter")  # webp → jpeg
        await pilot.pause()
        assert select.value == "jpeg"
        app.screen.query_one("#save-settings").focus()
        await pilot.press("enter")
        await pilot.pause()
    saved = tomllib.loads(config.read_text())["phone"]
    assert saved == {"picture_long_side": 1024, "picture_format": "jpeg"}
    assert load_settings(config).picture_format == "jpeg"
