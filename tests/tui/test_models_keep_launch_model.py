"""Saving a provider in the Models screen keeps a launch-time `--model` (issue 17): the
session's runs stay on the model the user started Mika with, the roles line says so, and
the saved roles.main is what a start without `--model` uses."""

from __future__ import annotations

import tomllib

from textual.widgets import Select

from mika.config.settings import load_settings
from mika_tui.app import MikaApp
from mika_tui.launch import build_deps
from tests.tui.conftest import settle, until
from tests.tui.test_models_flow import SIZE, _config, _message, _open_models, _replace, _type

SCRIPT = "script:examples/dark-mode.json"


async def test_a_saved_provider_keeps_the_launch_model(tmp_path):
    config = _config(tmp_path)
    deps, cleanup = build_deps(load_settings(str(config)), device="none", model=SCRIPT, graphics=None)
    app = MikaApp(deps, theme="mika-test")
    app.animation_level = "none"
    launched = deps.model_label
    assert launched and deps.run_factory is not None
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await _open_models(pilot)
            screen = app.screen
            await _type(pilot, "custom")
            await pilot.press("enter", "tab")
            await _replace(pilot, "loop-claude")
            await pilot.press("tab")
            protocol = screen.query_one("#protocol", Select)
            await pilot.press("enter", "down", "down", "enter")
            await until(lambda: protocol.value == "anthropic")
            await pilot.press("tab")
            await _type(pilot, "claude-x")
            await pilot.press("tab")
            await _type(pilot, "sk-ant-loop-1")
            await pilot.press("tab")
            await _type(pilot, "http://127.0.0.1:9")
            await pilot.press("tab", "tab")  # past Test, to Save
            assert screen.focused is screen.query_one("#save")
            await pilot.press("enter")
            await until(lambda: "Saved to" in _message(app) or "-error" in screen.query_one("#model-message").classes)
            assert tomllib.loads(config.read_text())["roles"]["main"] == "loop-claude/claude-x"
            # The session keeps --model: the old app dropped it and switched to the saved one.
            assert app.deps.model_label == launched, app.deps.model_label
            assert app.deps.assembly.models.main.provider != "loop-claude"
            roles = str(screen.query_one("#roles-line").render())
            assert "main: loop-claude/claude-x" in roles and f"(this session: --model {SCRIPT})" in roles
    finally:
        cleanup()
    # A start without --model uses what was saved.
    again, close_again = build_deps(load_settings(str(config)), device="none", model=None, graphics=None)
    try:
        assert again.model_label == "loop-claude/claude-x"
    finally:
        close_again()
