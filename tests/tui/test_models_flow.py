"""Setting up a model in the terminal app, by keys (issue 17, "Setting up a model").

The app is the real one `mika` opens (`mika_tui.launch.build_deps` over a config file,
no phone: `--device none`) and starts with no model. The user filters the presets,
names the provider, picks the protocol (Custom), tests against a loopback server that
replays a real recorded provider stream, and saves. The saved provider is in use at
once (roles line, providers table, status line, a TaskCenter for runs), and a fresh
process (`mika models test …`) loads the saved config and reaches the same server.

On main before this change: the form had no provider name or protocol field (Custom
saved `providers.custom` without `kind`, which the loader refuses), and a save said
"used from the next start".
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

from textual.widgets import DataTable, Input, Select

from mika.config.settings import load_settings
from mika.model.presets import PRESETS
from mika_tui.app import MikaApp
from mika_tui.launch import build_deps
from tests.models.replay_server import ReplayServer
from tests.models.replay_server import Reply as Recorded
from tests.tui.conftest import settle, until

ANTHROPIC = "anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse"
OPENAI_CHAT = "openai_chat_completions_stream/openai-python__tool_call_stream_2024.sse"
SIZE = (160, 48)


def _config(tmp_path: Path, text: str = '[general]\nlanguage = "en"\n') -> Path:
    config = tmp_path / "config" / "mika" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)
    return config


def _app(config: Path):
    deps, cleanup = build_deps(load_settings(str(config)), device="none", model=None, graphics=None)
    app = MikaApp(deps, theme="mika-test")
    app.animation_level = "none"
    return app, cleanup


async def _open_models(pilot) -> None:
    pilot.app.screen.query_one("#prompt").focus()
    await pilot.press(*"/model", "enter")
    await until(lambda: type(pilot.app.screen).__name__ == "ModelsScreen")
    await pilot.pause()


async def _type(pilot, text: str) -> None:
    await pilot.press(*text)


async def _replace(pilot, text: str) -> None:
    """Clear the focused input (ctrl+u: delete to the start) and type `text`."""
    await pilot.press("end", "ctrl+u", *text)


async def _tab_to(pilot, widget, key: str = "tab") -> None:
    """Move the focus with Tab (or Shift+Tab) until `widget` has it, as a user would."""
    for _ in range(30):
        if pilot.app.screen.focused is widget:
            return
        await pilot.press(key)
    raise AssertionError(f"{widget!r} never took the focus by {key}")


def _message(app) -> str:
    return str(app.screen.query_one("#model-message").render())


def _fresh_process_test(config: Path, target: str, state: Path) -> subprocess.CompletedProcess:
    """`mika models test TARGET` in a new process: the saved file is all it has."""
    mika = Path(sys.executable).parent / "mika"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_") and k not in ("LC_ALL", "LC_MESSAGES")}
    env.update({"MIKA_STATE_DIR": str(state), "LANG": "C.UTF-8", "MIKA_LANGUAGE": "en"})
    # The test waits for the child on purpose: its exit is the statement under test.
    return subprocess.run(
        [str(mika), "models", "test", target, "--config", str(config), "--timeout", "20"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


_SELECT = """
import sys
from mika.assembly import select_models
from mika.config.settings import load_settings
from mika.model.providers_config import load_providers
settings = load_settings(sys.argv[1])
models = select_models(settings, None, __import__("pathlib").Path(sys.argv[2]))
main = models.main
p = load_providers(settings.raw, settings.file).providers[main.provider]
print(f"{main.provider}/{main.name}", p.kind, p.api_key())
models.close()
"""


def _fresh_process_select(config: Path, state: Path) -> subprocess.CompletedProcess:
    """The models a restarted `mika` would run with, chosen in a new interpreter."""
    state.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    # The test waits for the child on purpose: its output is the statement under test.
    return subprocess.run(
        [sys.executable, "-c", _SELECT, str(config), str(state)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


async def test_custom_provider_by_keys_is_used_at_once_and_loads_in_a_fresh_process(tmp_path):
    config = _config(tmp_path)
    app, cleanup = _app(config)
    assert app.deps.run_factory is None  # no model yet: the app says how to set one up
    try:
        with ReplayServer() as server:
            server.queue(Recorded.recording(ANTHROPIC))
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                assert app.center is None
                await _open_models(pilot)
                screen = app.screen
                presets = screen.query_one("#presets", DataTable)
                assert screen.focused is screen.query_one("#preset-filter")
                await _type(pilot, "custom")  # typing narrows the 25 presets to one
                assert presets.row_count == 1
                assert str(presets.coordinate_to_cell_key(presets.cursor_coordinate).row_key.value) == "custom"
                await pilot.press("enter")  # from the filter to the table
                assert screen.focused is presets
                await pilot.press("tab")  # the provider name, filled from the preset
                name = screen.query_one("#provider-id", Input)
                assert screen.focused is name and name.value == "custom"
                await _replace(pilot, "loop-claude")
                await pilot.press("tab")  # the protocol: Custom leaves it to the user
                protocol = screen.query_one("#protocol", Select)
                assert screen.focused is protocol and not protocol.disabled
                await pilot.press("enter", "down", "down", "enter")  # OpenAI-compat, Responses, Anthropic
                await until(lambda: protocol.value == "anthropic")
                await pilot.press("tab")
                await _type(pilot, "claude-x")
                await pilot.press("tab")
                await _type(pilot, "sk-ant-loop-1")
                await pilot.press("tab")
                await _type(pilot, server.url)
                await pilot.press("tab")  # Test
                assert screen.focused is screen.query_one("#test")
                await pilot.press("enter")
                await until(
                    lambda: (
                        "works with tools" in _message(app) or "-error" in screen.query_one("#model-message").classes
                    ),
                    15,
                )
                assert "loop-claude/claude-x: works with tools" in _message(app)
                assert server.requests[0].headers.get("x-api-key") == "sk-ant-loop-1"
                await pilot.press("tab", "enter")  # Save
                await until(
                    lambda: "in use now" in _message(app) or "-error" in screen.query_one("#model-message").classes
                )
                assert "main model: loop-claude/claude-x" in _message(app), _message(app)
                # Applied without a restart: the roles line, the providers table, the app's model.
                assert "main: loop-claude/claude-x" in str(screen.query_one("#roles-line").render())
                configured = screen.query_one("#configured", DataTable)
                assert [str(c) for c in configured.get_row_at(0)] == ["loop-claude", "custom", "anthropic", "claude-x"]
                assert app.deps.model_label == "loop-claude/claude-x" and app.deps.model_error == ""
                assert app.center is not None and app.deps.run_factory is not None
                assert app.deps.assembly.models.main.provider == "loop-claude"
                await pilot.press("escape")
                await pilot.pause()
                assert "loop-claude/claude-x" in str(app.main_screen.query_one("StatusBar").render())
            data = tomllib.loads(config.read_text())
            assert data["general"]["language"] == "en"
            assert data["providers"]["loop-claude"] == {
                "preset": "custom",
                "kind": "anthropic",
                "api_key_file": "keys/loop-claude.key",
                "base_url": server.url,
            }
            assert data["roles"]["main"] == "loop-claude/claude-x"
            key_file = config.parent / "keys" / "loop-claude.key"
            assert key_file.read_text() == "sk-ant-loop-1"
            assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
            # A restart: the app built again from the saved file has the model, no error.
            again, close_again = build_deps(load_settings(str(config)), device="none", model=None, graphics=None)
            try:
                assert again.model_label == "loop-claude/claude-x" and again.model_error == ""
            finally:
                close_again()
            # A new process picks the models the way `mika run` does…
            picked = _fresh_process_select(config, tmp_path / "state3")
            assert picked.returncode == 0, picked.stdout + picked.stderr
            assert picked.stdout.split() == ["loop-claude/claude-x", "anthropic", "sk-ant-loop-1"]
            # …and `mika models test` reads the saved file and calls the saved provider.
            server.queue(Recorded.recording(ANTHROPIC))
            out = _fresh_process_test(config, "loop-claude/claude-x", tmp_path / "state2")
            assert out.returncode == 0, out.stdout + out.stderr
            assert "claude-x" in out.stdout and "Traceback" not in out.stderr
            assert len(server.requests) == 2
            assert server.requests[1].headers.get("x-api-key") == "sk-ant-loop-1"
    finally:
        cleanup()


async def test_two_providers_of_one_preset_by_keys(tmp_path):
    """A work and a home key for DeepSeek: two names, one preset; the second is made the
    main model by its button, and a fresh process uses the second key."""
    config = _config(tmp_path)
    app, cleanup = _app(config)
    try:
        with ReplayServer() as server:
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                await _open_models(pilot)
                screen = app.screen
                for provider, key in (("ds-work", "sk-work-1"), ("ds-home", "sk-home-2")):
                    await _tab_to(pilot, screen.query_one("#preset-filter"))
                    await _replace(pilot, "deeps")
                    presets = screen.query_one("#presets", DataTable)
                    assert presets.row_count == 1
                    await pilot.press("enter", "tab")
                    await _replace(pilot, provider)
                    await pilot.press("tab")  # the protocol is the preset's own here
                    protocol = screen.query_one("#protocol", Select)
                    assert protocol.value == "openai-chat" and protocol.disabled
                    # A disabled Select takes no focus: the next stop is the model name.
                    assert screen.focused is screen.query_one("#model-name")
                    await _replace(pilot, "deepseek-chat")
                    await pilot.press("tab")
                    await _replace(pilot, key)
                    await pilot.press("tab")
                    await _replace(pilot, server.url)
                    await pilot.press("tab")
                    assert screen.focused is screen.query_one("#test")
                    if provider == "ds-work":  # test the connection once, on the loopback server
                        server.queue(Recorded.recording(OPENAI_CHAT))
                        await pilot.press("enter")
                        await until(
                            lambda: (
                                "works with tools" in _message(app)
                                or "-error" in screen.query_one("#model-message").classes
                            ),
                            15,
                        )
                        assert "ds-work/deepseek-chat: works with tools" in _message(app), _message(app)
                        assert server.requests[-1].headers.get("authorization") == "Bearer sk-work-1"
                    await pilot.press("tab", "enter")  # Save
                    await until(
                        lambda: "Saved to" in _message(app) or "-error" in screen.query_one("#model-message").classes
                    )
                    assert "in use now" in _message(app), _message(app)
                await pilot.press("tab", "enter")  # Main: ds-home/deepseek-chat
                await until(lambda: app.deps.model_label == "ds-home/deepseek-chat")
                assert "main: ds-home/deepseek-chat" in str(screen.query_one("#roles-line").render())
                configured = screen.query_one("#configured", DataTable)
                rows = [[str(c) for c in configured.get_row_at(i)] for i in range(configured.row_count)]
                assert rows == [
                    ["ds-work", "deepseek", "openai-chat", ""],  # no role uses it any more
                    ["ds-home", "deepseek", "openai-chat", "deepseek-chat"],
                ]
                # Enter on a configured provider brings it back into the form; its Light button
                # then gives it a role with nothing retyped.
                await _tab_to(pilot, configured, key="shift+tab")
                await pilot.press("down", "enter")
                assert screen.query_one("#provider-id", Input).value == "ds-home"
                assert screen.query_one("#model-name", Input).value == "deepseek-chat"
                assert screen.query_one("#api-key", Input).value == ""
                presets = screen.query_one("#presets", DataTable)
                assert str(presets.coordinate_to_cell_key(presets.cursor_coordinate).row_key.value) == "deepseek"
                await _tab_to(pilot, screen.query_one("#role-light"))
                await pilot.press("enter")
                await until(lambda: "light: ds-home/deepseek-chat" in str(screen.query_one("#roles-line").render()))
            data = tomllib.loads(config.read_text())
            assert data["roles"]["light"] == "ds-home/deepseek-chat"
            assert set(data["providers"]) == {"ds-work", "ds-home"}
            assert data["providers"]["ds-home"]["api_key_file"] == "keys/ds-home.key"
            assert (config.parent / "keys" / "ds-work.key").read_text() == "sk-work-1"
            server.queue(Recorded.recording(OPENAI_CHAT))
            out = _fresh_process_test(config, "ds-home/deepseek-chat", tmp_path / "state2")
            assert out.returncode == 0, out.stdout + out.stderr
            assert server.requests[-1].headers.get("authorization") == "Bearer sk-home-2"
    finally:
        cleanup()


async def test_a_draft_the_loader_refuses_is_shown_and_nothing_is_written(tmp_path):
    """Custom without an address, a provider name with a space, a name another preset has:
    each is a sentence in the form naming what to fix, and the file keeps its bytes."""
    config = _config(tmp_path, '[general]\nlanguage = "en"  # mine\n\n[providers.ds]\npreset = "deepseek"\n')
    before = config.read_bytes()
    app, cleanup = _app(config)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await _open_models(pilot)
            screen = app.screen
            message = screen.query_one("#model-message")

            async def fill(filter_: str, provider: str, model: str) -> None:
                await _tab_to(pilot, screen.query_one("#preset-filter"))
                await _replace(pilot, filter_)
                await pilot.press("enter", "tab")
                await _replace(pilot, provider)
                await _tab_to(pilot, screen.query_one("#model-name"))
                await _replace(pilot, model)
                await _tab_to(pilot, screen.query_one("#save"))
                await pilot.press("enter")
                await pilot.pause()

            await fill("custom", "mine", "m1")
            assert "-error" in message.classes
            assert "Not saved, the config would not load" in _message(app)
            assert "providers.mine.base_url" in _message(app)
            await fill("custom", "my server", "m1")
            assert '"my server" cannot name a provider' in _message(app)
            await fill("openai", "ds", "gpt-x")  # OpenAI first, before the OpenAI-compatible ones
            assert 'A provider named "ds" already uses the preset deepseek' in _message(app)
            await fill("custom", "a.b", "m1")
            assert "cannot name a provider" in _message(app)
            # A name that is a path: the key file is named after the provider, so a name
            # like this would put the key outside keys/ — refused before anything is written.
            await _tab_to(pilot, screen.query_one("#api-key"))
            await _replace(pilot, "sk-secret-9")
            await fill("ollama", "../../outside", "m1")
            assert "cannot name a provider" in _message(app), _message(app)
            # The form keeps the preset, the key and the model: only the name changes.
            for name in ("..", "x/y", "-x", "a\\b", "名字", "x" * 41):
                await _tab_to(pilot, screen.query_one("#provider-id"), "shift+tab")
                await _replace(pilot, name)
                await _tab_to(pilot, screen.query_one("#save"))
                await pilot.press("enter")
                await pilot.pause()
                assert screen.query_one("#provider-id", Input).value == name
                assert "cannot name a provider" in _message(app), (name, _message(app))
            assert app.deps.model_label == ""
    finally:
        cleanup()
    assert config.read_bytes() == before
    assert not (config.parent / "keys").exists()
    assert sorted(p.name for p in tmp_path.rglob("*.key")) == []


async def test_preset_filter_home_end_and_a_visible_focus_ring(tmp_path):
    config = _config(tmp_path)
    app, cleanup = _app(config)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await _open_models(pilot)
            screen = app.screen
            presets = screen.query_one("#presets", DataTable)
            total = presets.row_count
            assert total == len(PRESETS)

            def at() -> str:
                return str(presets.coordinate_to_cell_key(presets.cursor_coordinate).row_key.value)

            await _type(pilot, "zzz")
            assert presets.row_count == 0 and 'No preset matches "zzz"' in _message(app)
            await pilot.press("backspace", "backspace", "backspace", "enter")
            assert presets.row_count == total and screen.focused is presets
            unfocused_ring = screen.query_one("#configured", DataTable).styles.border_top
            focused_ring = presets.styles.border_top
            assert focused_ring[0] != "" and focused_ring != unfocused_ring
            await pilot.press("end")
            assert at() == "custom"  # the last row, hidden below the fold before
            assert screen.query_one("#provider-id", Input).value == "custom"
            await pilot.press("home")
            assert at() == "deepseek"
            assert screen.query_one("#provider-id", Input).value == "deepseek"
            await pilot.press("tab")
            assert presets.styles.border_top == unfocused_ring  # the ring follows the focus
            assert screen.query_one("#provider-id", Input).styles.border_top[1] == focused_ring[1]
    finally:
        cleanup()
