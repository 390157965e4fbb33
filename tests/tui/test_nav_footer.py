"""Moving around (issue 17): the footer shows the keys that matter now, in the user's
language, and each key it shows works from where the focus is.

What is read is the footer as drawn (its FooterKey widgets), after real key presses.
"""

from __future__ import annotations

from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey  # the footer's own key widgets: what the user sees

from mika.model.testing import Reply, ScriptedModel
from mika_tui.screens.devices import DevicesScreen
from mika_tui.screens.help import HelpScreen
from mika_tui.screens.models import ModelsScreen
from mika_tui.screens.usage import UsageScreen
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, until
from tests.tui.holding import HoldingModel

SIZE = (160, 40)
IDLE = ["New conversation", "Conversations", "Devices", "Models", "Usage", "Help", "Quit"]


def footer(app) -> list[tuple[str, str]]:
    """(key as shown, label) of each key in the footer, the palette key left out."""
    keys = app.screen.query_one(Footer).query(FooterKey)
    return [(k.key_display, k.description) for k in keys if not k.has_class("-command-palette")]


async def footer_settled(pilot) -> list[tuple[str, str]]:
    # The footer recomposes after a refresh once its bindings changed.
    await settle(pilot)
    await pilot.pause()
    return footer(pilot.app)


class TestFooterNow:
    async def test_idle_shows_new_conversations_devices_models_usage_help_quit(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            shown = await footer_settled(pilot)
            assert [label for _, label in shown] == IDLE
            assert [key for key, _ in shown] == ["^n", "^b", "^d", "^l", "^u", "?", "^c"]

    async def test_running_shows_stop_and_steer_only(self, tmp_path):
        hold = HoldingModel(pieces=("Looking at the cart…",))
        app = make_app(tmp_path, hold)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_hold(pilot, "check out my cart", hold)
            shown = await footer_settled(pilot)
            assert shown == [("esc", "Stop the run"), ("⏎", "Steer (type, Enter)")]
            hold.release.set()
            await until(lambda: app.center.state().running == ())
            await until(lambda: [label for _, label in footer(app)] == IDLE)

    async def test_an_approval_card_shows_its_own_keys(self, tmp_path):
        app = make_app(tmp_path, scenes.approval_model())
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "buy coffee beans", "approval")
            shown = await footer_settled(pilot)
            assert shown == [("a", "Allow once"), ("r", "Reject"), ("esc", "Stop the run")]

    async def test_the_takeover_card_shows_its_keys(self, tmp_path):
        model = ScriptedModel(
            [Reply.call("hand_to_user", reason="login", message="Log in to the shop with your password."), "ok"]
        )
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "buy coffee beans", "takeover")
            shown = await footer_settled(pilot)
            # A phone takeover: move or operate, then done or skip (no browser window).
            assert [key for key, _ in shown] == ["m", "o", "d", "s", "esc"]
            assert shown[0] == ("m", "Move to my screen")

    async def test_the_conversations_list_shows_open_and_search(self, tmp_path):
        model = ScriptedModel([Reply.call("toy_read"), "Three toys."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "what is on the shop's home screen")
            await pilot.press("ctrl+b")
            shown = await footer_settled(pilot)
            assert [key for key, _ in shown] == ["⏎", "/", "f2", "f3", "f8", "esc"]
            assert shown[0][1] == "Open" and shown[1][1] == "Search titles"

    async def test_chinese_footer_reads_in_chinese(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]), language="zh")
        async with app.run_test(size=SIZE) as pilot:
            shown = await footer_settled(pilot)
            assert [label for _, label in shown] == ["新对话", "对话列表", "设备", "模型", "用量", "帮助", "退出"]


class TestFooterKeysWork:
    """Every key the idle footer shows does what it says with a half-typed task in the input."""

    async def test_each_footer_key_works_from_the_input(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            for key, screen in (("ctrl+d", DevicesScreen), ("ctrl+l", ModelsScreen), ("ctrl+u", UsageScreen)):
                prompt = app.main_screen.query_one("#prompt", Input)
                prompt.focus()
                await pilot.press(*"half a task")
                await pilot.press(key)
                await until(lambda screen=screen: isinstance(app.screen, screen))
                await pilot.press("escape")
                await until(lambda: app.screen is app.main_screen)
                assert prompt.value == "half a task"  # nothing typed was eaten by the key
                prompt.value = ""
            await pilot.press("question_mark")
            await until(lambda: isinstance(app.screen, HelpScreen))


class TestTranslatedThroughTextual:
    async def test_bindings_keep_their_keys_and_the_view_is_translated(self, tmp_path):
        """Labels come translated from Screen.active_bindings; the declared bindings (what
        Textual keeps per node) are left as declared, not rewritten."""
        app = make_app(tmp_path, ScriptedModel(["hi"]), language="zh")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = app.main_screen
            declared = [b.description for b in screen._bindings.key_to_bindings["ctrl+n"]]
            assert declared == ["b_new"]
            assert screen.active_bindings["ctrl+n"].binding.description == "新对话"

    async def test_a_secondary_screen_footer_is_translated(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]), language="zh")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+u")
            await until(lambda: isinstance(app.screen, UsageScreen))
            shown = await footer_settled(pilot)
            assert ("esc", "返回") in shown
