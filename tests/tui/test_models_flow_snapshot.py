"""Snapshots of setting up a model (issue 17): the preset filter at 80x24, the Custom form
with its protocol and provider name at 160x48 (every preset visible, the focus ring on
the field being typed in), and a draft the config loader refused, in Chinese.
Driven by keys from the main screen's prompt."""

from __future__ import annotations

from mika.config.settings import Settings
from mika.model.testing import ScriptedModel
from tests.tui.conftest import make_app, settle


async def _models(pilot) -> None:
    await settle(pilot)
    pilot.app.screen.query_one("#prompt").focus()
    await pilot.press(*"/model", "enter")
    await settle(pilot)


def test_preset_filter_narrow(snap_compare, tmp_path):
    async def before(pilot):
        await _models(pilot)
        await pilot.press(*"deep")
        await settle(pilot)

    app = make_app(tmp_path, ScriptedModel(["hi"]))
    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


def test_custom_form_wide(snap_compare, tmp_path):
    async def before(pilot):
        await _models(pilot)
        await pilot.press(*"custom", "enter", "tab", "end", "ctrl+u", *"my-vllm", "tab")
        await pilot.press("enter", "down", "enter")  # OpenAI Responses
        await pilot.press("tab", *"qwen3-32b", "tab", "tab", *"http://127.0.0.1:8000/v1")
        await settle(pilot)

    app = make_app(tmp_path, ScriptedModel(["hi"]))
    assert snap_compare(app, terminal_size=(160, 48), run_before=before)


def test_refused_draft_chinese(snap_compare, tmp_path):
    async def before(pilot):
        await _models(pilot)
        # Custom with no address: the loader refuses it, the form says which key.
        await pilot.press(*"custom", "enter", "tab", "tab", "tab", *"m1", "tab", "tab", "tab", "tab", "enter")
        await settle(pilot)

    config = tmp_path / "config" / "mika" / "config.toml"
    app = make_app(tmp_path, ScriptedModel(["hi"]), settings=Settings(file=config, language="zh"))
    assert snap_compare(app, terminal_size=(100, 30), run_before=before)
    assert not config.exists()
