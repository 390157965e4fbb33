"""The Models screen's "Sign in with ChatGPT", by keys, against the fake issuer and plan
backend on loopback (tests/chatgpt/fakes.py): the browser is a small HTTP client that
follows the authorize page to the loopback callback. Signing in adds the chatgpt
provider, makes it the main model and uses it at once; signing out revokes and deletes."""

from __future__ import annotations

import tomllib

from textual.widgets import Button

from mika.config.settings import load_settings
from mika.model.base import Done
from mika.model.messages import Message, ModelRequest, Text
from mika_tui.app import MikaApp
from mika_tui.launch import build_deps
from tests.chatgpt.conftest import signin  # noqa: F401  (the fixture)
from tests.chatgpt.fakes import follow_in_browser
from tests.tui.conftest import settle, until

SIZE = (160, 48)


def _message(app) -> str:
    return str(app.screen.query_one("#model-message").render())


async def test_sign_in_with_chatgpt_from_the_models_screen(signin):  # noqa: F811
    signin.config.parent.mkdir(parents=True, exist_ok=True)
    signin.config.write_text('[general]\nlanguage = "en"\n[run]\njudge_outcome = false\n')
    deps, cleanup = build_deps(load_settings(str(signin.config)), device="none", model=None, graphics=None)
    deps.open_browser = follow_in_browser
    app = MikaApp(deps, theme="mika-test")
    app.animation_level = "none"
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.deps.run_factory is None
            app.screen.query_one("#prompt").focus()
            await pilot.press(*"/model", "enter")
            await until(lambda: type(app.screen).__name__ == "ModelsScreen")
            screen = app.screen
            button = screen.query_one("#chatgpt", Button)
            assert str(button.label) == "Sign in with ChatGPT"
            assert "Plus or Pro plan" in str(screen.query_one("#chatgpt-line").render())
            button.focus()
            await pilot.press("enter")
            await until(
                lambda: (
                    "Signed in with ChatGPT as" in _message(app)
                    or "-error" in screen.query_one("#model-message").classes
                ),
                20,
            )
            assert "Signed in with ChatGPT as plan.user@example.com" in _message(app), _message(app)
            assert "main model: chatgpt/gpt-5" in _message(app)
            assert str(button.label) == "Sign out of ChatGPT"
            assert app.deps.model_label == "chatgpt/gpt-5" and app.deps.run_factory is not None
            # The model runs now use answers through the plan.
            done = None
            request = ModelRequest("You are Mika.", (Message("user", (Text("hi"),)),))
            async for event in app.deps.assembly.models.main.stream(request):
                if isinstance(event, Done):
                    done = event.response
            assert done is not None and done.message.parts == (Text("Done: the plan answered."),)
            data = tomllib.loads(signin.config.read_text())
            assert data["providers"]["chatgpt"] == {"kind": "chatgpt"} and data["roles"]["main"] == "chatgpt/gpt-5"
            assert signin.store.load() is not None

            await pilot.press("enter")  # the same button now signs out
            await until(lambda: str(button.label) == "Sign in with ChatGPT", 20)
            assert signin.issuer.log.revoke and not signin.store.path.exists()
    finally:
        cleanup()
