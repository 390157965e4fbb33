"""Snapshots of every screen and state of the terminal app (pytest-textual-snapshot).

Each test builds the app from the conftest factory (test theme, no animation, fixed
clock, temp XDG dirs, scripted model, simulated-phone frames) at a fixed size.
"""

from __future__ import annotations

from mika.assembly.devices import DeviceStatus
from mika.config.settings import Settings
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.testing import Reply, ScriptedModel
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, sim_frames
from tests.tui.holding import HoldingModel

MID = (120, 40)
NARROW = (80, 24)
WIDE = (200, 50)


class FixedDevices:
    """The device list as a fixed table, so serials in the snapshot never change.
    (The real adb path is exercised by the Pilot test with the simulated phone.)"""

    def list(self):
        return [
            DeviceStatus("R5CT1234ABC", "device", "SM-S918B", "usb", "running"),
            DeviceStatus("192.168.1.20:41235", "device", "Pixel 8", "tcp", "installed"),
            DeviceStatus("emulator-5556", "offline", "", "usb", "unknown"),
        ]

    def connect(self, hostport):
        return f"connected to {hostport}"

    def pair(self, hostport, code):
        return f"Successfully paired to {hostport}"

    def pairing_services(self):
        return []


class TestIdle:
    """The main screen before any task: banner for the simulated phone, empty timeline."""

    def test_idle(self, snap_compare, tmp_path):
        assert snap_compare(make_app(tmp_path, ScriptedModel(["hi"])), terminal_size=MID, run_before=settle)

    def test_idle_narrow(self, snap_compare, tmp_path):
        assert snap_compare(make_app(tmp_path, ScriptedModel(["hi"])), terminal_size=NARROW, run_before=settle)

    def test_idle_wide(self, snap_compare, tmp_path):
        assert snap_compare(make_app(tmp_path, ScriptedModel(["hi"])), terminal_size=WIDE, run_before=settle)

    def test_idle_chinese(self, snap_compare, tmp_path):
        assert snap_compare(
            make_app(tmp_path, ScriptedModel(["hi"]), language="zh"), terminal_size=MID, run_before=settle
        )

    def test_no_model_configured(self, snap_compare, tmp_path):
        app = make_app(tmp_path, None)
        app.deps.model_error = "model_missing"  # what launch.build_deps sets on a first run

        async def before(pilot):
            await settle(pilot)
            await scenes.type_task(pilot, "open settings")
            await settle(pilot)

        assert snap_compare(app, terminal_size=MID, run_before=before)

    def test_help_command(self, snap_compare, tmp_path):
        async def before(pilot):
            await settle(pilot)
            await scenes.type_task(pilot, "/help")
            # /help is a screen of its own now (tests/tui/test_nav_help.py); Esc comes back.
            await pilot.press("escape")
            await scenes.type_task(pilot, "/frobnicate")
            await settle(pilot)

        assert snap_compare(make_app(tmp_path, ScriptedModel(["hi"])), terminal_size=MID, run_before=before)


class TestAnswers:
    """Answers: streaming Markdown, a finished run folded to one line, failures."""

    def test_streaming_answer(self, snap_compare, tmp_path):
        model = HoldingModel(pieces=("Dark mode is ", "**on** now.\n\n- Settings → Display"))

        async def before(pilot):
            await scenes.run_to_hold(pilot, "turn on dark mode", model)

        assert snap_compare(make_app(tmp_path, model), terminal_size=MID, run_before=before)

    def test_answered_with_summary(self, snap_compare, tmp_path):
        model = ScriptedModel(
            [Reply.call("toy_read"), "The shop's home screen shows **3 toys**:\n\n1. Kite\n2. Yo-yo\n3. Top"]
        )

        async def before(pilot):
            await scenes.run_to_end(pilot, "what is on the shop's home screen")

        assert snap_compare(make_app(tmp_path, model), terminal_size=MID, run_before=before)

    def test_failed_run_is_a_readable_line(self, snap_compare, tmp_path):
        err = ModelError(ModelErrorKind.AUTH, "the key was refused (401)", provider="test")
        model = ScriptedModel([Reply(error=err)] * 3)

        async def before(pilot):
            await scenes.run_to_end(pilot, "open the camera")

        assert snap_compare(make_app(tmp_path, model), terminal_size=MID, run_before=before)

    def test_sources_under_an_answer_and_one_opened(self, snap_compare, tmp_path):
        from tests.core.toy import ToyWorld

        world = ToyWorld(screen="Toys: Kite ¥12 · Yo-yo ¥8 · Top ¥5")
        model = ScriptedModel([Reply.call("toy_read"), "The cheapest toy is the Top at ¥5."])

        async def before(pilot):
            await scenes.run_to_end(pilot, "which toy is cheapest")
            pilot.app.main_screen.action_open_source(scenes.view(pilot).run_id, 0)
            await settle(pilot)

        assert snap_compare(make_app(tmp_path, model, world=world), terminal_size=MID, run_before=before)

    def test_answered_chinese(self, snap_compare, tmp_path):
        model = ScriptedModel([Reply.call("toy_read"), "首页上有 **3 个玩具**。"])

        async def before(pilot):
            await scenes.run_to_end(pilot, "shop home")

        assert snap_compare(make_app(tmp_path, model, language="zh"), terminal_size=MID, run_before=before)


class TestRunning:
    """A run in progress: preview border says working, the timeline fills, header counts."""

    def _model(self):
        return HoldingModel(pieces=("Looking at the cart…",))

    def _app(self, tmp_path, lang="en"):
        from tests.core.toy import ToyWorld

        steps = ScriptedModel(
            [Reply.call("toy_open", page="Cart"), Reply.call("toy_tap", label="Checkout"), Reply.call("toy_read")]
        )
        hold = self._model()

        class Chain:
            provider, name, context_window, supports_images = "test", "chain", 128_000, True

            def stream(self, request):
                return steps.stream(request) if steps.remaining else hold.stream(request)

        return make_app(tmp_path, Chain(), language=lang, world=ToyWorld(screen="Cart · Checkout")), hold

    def _before(self, hold):
        async def before(pilot):
            await scenes.run_to_hold(pilot, "check out my cart", hold)
            pilot.app.deps.clock.advance(72)  # the header shows 1m12s
            pilot.app.main_screen.refresh_status()
            await settle(pilot)

        return before

    def test_running_with_preview_and_timeline(self, snap_compare, tmp_path):
        app, hold = self._app(tmp_path)
        assert snap_compare(app, terminal_size=MID, run_before=self._before(hold))

    def test_running_narrow(self, snap_compare, tmp_path):
        app, hold = self._app(tmp_path)
        assert snap_compare(app, terminal_size=NARROW, run_before=self._before(hold))

    def test_running_wide(self, snap_compare, tmp_path):
        app, hold = self._app(tmp_path)
        assert snap_compare(app, terminal_size=WIDE, run_before=self._before(hold))

    def test_running_chinese(self, snap_compare, tmp_path):
        app, hold = self._app(tmp_path, "zh")
        assert snap_compare(app, terminal_size=MID, run_before=self._before(hold))

    def test_steer_shown_in_turn(self, snap_compare, tmp_path):
        app, hold = self._app(tmp_path)

        async def before(pilot):
            await scenes.run_to_hold(pilot, "check out my cart", hold)
            await scenes.type_task(pilot, "use the saved card")
            await settle(pilot)

        assert snap_compare(app, terminal_size=MID, run_before=before)

    def test_stopped_with_summary(self, snap_compare, tmp_path):
        app, hold = self._app(tmp_path)

        async def before(pilot):
            await scenes.run_to_hold(pilot, "check out my cart", hold)
            pilot.app.deps.clock.advance(72)
            await pilot.press("escape")
            await scenes.until(lambda: not scenes.view(pilot).running)
            await scenes.until(lambda: pilot.app.center.state().running == ())
            await settle(pilot)

        assert snap_compare(app, terminal_size=MID, run_before=before)


class TestCards:
    """Stepping in: approval, question and takeover cards; header and border say needs you."""

    def test_approval_card(self, snap_compare, tmp_path):
        async def before(pilot):
            await scenes.run_to_card(pilot, "buy coffee beans", "approval")

        assert snap_compare(make_app(tmp_path, scenes.approval_model()), terminal_size=MID, run_before=before)

    def test_approval_card_chinese(self, snap_compare, tmp_path):
        async def before(pilot):
            await scenes.run_to_card(pilot, "买咖啡豆", "approval")

        assert snap_compare(
            make_app(tmp_path, scenes.approval_model(), language="zh"), terminal_size=MID, run_before=before
        )

    def test_approval_card_narrow(self, snap_compare, tmp_path):
        async def before(pilot):
            await scenes.run_to_card(pilot, "buy coffee beans", "approval")

        assert snap_compare(make_app(tmp_path, scenes.approval_model()), terminal_size=NARROW, run_before=before)

    def test_question_card(self, snap_compare, tmp_path):
        model = ScriptedModel(
            [Reply.call("ask_user", question="Which size of beans?", options=["250 g", "500 g", "1 kg"]), "ok"]
        )

        async def before(pilot):
            await scenes.run_to_card(pilot, "buy coffee beans", "question")

        assert snap_compare(make_app(tmp_path, model), terminal_size=MID, run_before=before)

    def test_takeover_card(self, snap_compare, tmp_path):
        model = ScriptedModel(
            [Reply.call("hand_to_user", reason="login", message="Log in to the shop with your password."), "ok"]
        )

        async def before(pilot):
            await scenes.run_to_card(pilot, "buy coffee beans", "takeover")

        assert snap_compare(make_app(tmp_path, model), terminal_size=MID, run_before=before)

    def test_takeover_card_wide(self, snap_compare, tmp_path):
        model = ScriptedModel(
            [Reply.call("hand_to_user", reason="captcha", message="Solve the captcha on the phone."), "ok"]
        )

        async def before(pilot):
            await scenes.run_to_card(pilot, "log in", "takeover")

        assert snap_compare(make_app(tmp_path, model), terminal_size=WIDE, run_before=before)


class TestConversations:
    """The conversations sidebar and the delete confirmation naming what goes with it."""

    def test_sidebar(self, snap_compare, tmp_path):
        async def before(pilot):
            await scenes.run_to_end(pilot, "what is on the shop's home screen")
            await pilot.press("ctrl+b")
            await settle(pilot)

        model = ScriptedModel([Reply.call("toy_read"), "Three toys."])
        assert snap_compare(make_app(tmp_path, model), terminal_size=MID, run_before=before)

    def test_delete_confirmation(self, snap_compare, tmp_path):
        async def before(pilot):
            await scenes.run_to_end(pilot, "what is on the shop's home screen")
            await pilot.press("f8")
            await settle(pilot)

        model = ScriptedModel([Reply.call("toy_read"), "Three toys."])
        assert snap_compare(make_app(tmp_path, model), terminal_size=MID, run_before=before)

    def test_command_palette(self, snap_compare, tmp_path):
        async def before(pilot):
            await settle(pilot)
            await pilot.press("ctrl+p")
            await settle(pilot)
            await pilot.press(*"usa")
            await settle(pilot)

        assert snap_compare(make_app(tmp_path, ScriptedModel(["hi"])), terminal_size=MID, run_before=before)


def _open(name):
    async def before(pilot):
        await settle(pilot)
        pilot.app.action_open(name)
        await settle(pilot)
        await settle(pilot)

    return before


class TestDevices:
    """Devices: the list with uiautomator2 state, connect errors, QR pairing."""

    def test_devices(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]), devices_port=FixedDevices())
        assert snap_compare(app, terminal_size=MID, run_before=_open("devices"))

    def test_devices_bad_address(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]), devices_port=FixedDevices())

        async def before(pilot):
            await _open("devices")(pilot)
            pilot.app.screen.query_one("#connect-addr").value = "my phone"
            pilot.app.screen.on_connect()  # as the Connect button does; a click would leave hover styles in the picture
            await settle(pilot)

        assert snap_compare(app, terminal_size=MID, run_before=before)

    def test_qr_pairing(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]), devices_port=FixedDevices())

        async def before(pilot):
            await _open("devices")(pilot)
            pilot.app.screen.show_qr("mika-3f9a1c", "7c2e91ab")
            await settle(pilot)

        assert snap_compare(app, terminal_size=(120, 60), run_before=before)

    def test_devices_chinese(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]), devices_port=FixedDevices(), language="zh")
        assert snap_compare(app, terminal_size=MID, run_before=_open("devices"))


class TestModels:
    """Models: presets, configured providers and roles."""

    def test_models_empty(self, snap_compare, tmp_path):
        assert snap_compare(make_app(tmp_path, ScriptedModel(["hi"])), terminal_size=MID, run_before=_open("models"))

    def test_models_configured(self, snap_compare, tmp_path):
        raw = {
            "providers": {
                "deepseek": {"preset": "deepseek", "api_key_env": "DEEPSEEK_API_KEY"},
                "ollama": {"preset": "ollama"},
            },
            "roles": {"main": "deepseek/deepseek-chat", "vision": "none", "light": "ollama/qwen3:4b"},
        }
        app = make_app(tmp_path, ScriptedModel(["hi"]), settings=Settings(language="en", raw=raw))
        assert snap_compare(app, terminal_size=MID, run_before=_open("models"))

    def test_models_signed_in_with_chatgpt(self, snap_compare, tmp_path):
        """A stored ChatGPT sign-in: the plan line names the account, the button signs out."""
        from mika.model.chatgpt.token_store import ChatGptTokens, TokenStore

        TokenStore(tmp_path / "state" / "mika" / "auth" / "chatgpt.json").save(
            ChatGptTokens(
                access_token="snapshot-access-token-0001",
                refresh_token="snapshot-refresh-token-0001",
                id_token="",
                expires_at=4102444800.0,
                account_id="acc-snapshot",
                email="plan.user@example.com",
                plan="plus",
            )
        )
        raw = {"providers": {"chatgpt": {"kind": "chatgpt"}}, "roles": {"main": "chatgpt/gpt-5"}}
        app = make_app(tmp_path, ScriptedModel(["hi"]), settings=Settings(language="en", raw=raw))
        opened = _open("models")

        async def to_the_plan(pilot):
            await opened(pilot)
            pilot.app.screen.query_one("#chatgpt").focus()  # scrolls the plan row into view
            await settle(pilot)

        assert snap_compare(app, terminal_size=MID, run_before=to_the_plan)


class TestUsage:
    """Usage: totals per range, stacked per-provider bars, rankings."""

    def test_usage_with_data(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        scenes.write_usage(app.deps.state_dir)
        assert snap_compare(app, terminal_size=MID, run_before=_open("usage"))

    def test_usage_empty(self, snap_compare, tmp_path):
        assert snap_compare(make_app(tmp_path, ScriptedModel(["hi"])), terminal_size=MID, run_before=_open("usage"))

    def test_usage_chinese(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]), language="zh")
        scenes.write_usage(app.deps.state_dir)
        assert snap_compare(app, terminal_size=MID, run_before=_open("usage"))


class TestRuns:
    """Runs: the list of past runs and one run's timeline with its frame."""

    def test_runs_list(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        scenes.write_run_record(app.deps.state_dir, sim_frames()[0])
        assert snap_compare(app, terminal_size=MID, run_before=_open("runs"))

    def test_run_viewer(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        run_id = scenes.write_run_record(app.deps.state_dir, sim_frames()[0])

        async def before(pilot):
            await settle(pilot)
            pilot.app.open_run(run_id)
            await settle(pilot)
            await pilot.press("up", "enter")  # open the failed step (2 of 3; the cursor starts on 3)
            await settle(pilot)

        assert snap_compare(app, terminal_size=MID, run_before=before)


class TestSettings:
    """Settings: autonomous with its warning, pace, language, graphics, keymap."""

    def test_settings(self, snap_compare, tmp_path):
        assert snap_compare(
            make_app(tmp_path, ScriptedModel(["hi"])), terminal_size=(120, 60), run_before=_open("settings")
        )

    def test_settings_chinese(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]), language="zh")
        assert snap_compare(app, terminal_size=(120, 60), run_before=_open("settings"))
