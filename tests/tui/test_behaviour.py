"""Pilot tests: what pressing keys and buttons does to the real run behind the app."""

from __future__ import annotations

import asyncio

from textual.widgets import Button

from mika.model.testing import FunctionModel, Reply, ScriptedModel
from mika.record import events as ev
from mika_tui.i18n import TEXTS
from mika_tui.screens.usage import UsageScreen
from mika_tui.widgets.cards import ApprovalCard
from tests.core.toy import ToyWorld
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, until
from tests.tui.holding import HoldingModel

SIZE = (120, 40)


def _recorder(app):
    seen: list[ev.RunEvent] = []
    app.center.subscribe(seen.append)
    return seen


class TestSteerAndStop:
    async def test_typing_while_running_steers_into_the_runs_inbox(self, tmp_path):
        asked = asyncio.Event()

        async def reply(request):
            text = "\n".join(m.text for m in request.messages)
            if "only direct flights" not in text:
                asked.set()
                await asyncio.sleep(30)  # slow model: the steer withdraws this request
            return "The cheapest direct flight is 420 EUR."

        model = FunctionModel(reply)
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            seen = _recorder(app)
            await settle(pilot)
            await scenes.type_task(pilot, "find a flight to Lisbon")
            await asyncio.wait_for(asked.wait(), 5)
            await scenes.type_task(pilot, "only direct flights")
            await until(lambda: scenes.view(pilot).status == "answered")
            steers = [e for e in seen if isinstance(e, ev.UserInput) and e.kind == "steer"]
            assert steers and steers[0].text == "only direct flights"
            assert "only direct flights" in "\n".join(m.text for m in model.requests[-1].messages)
            assert len(app.main_screen.views) == 1  # a steer, not a second run

    async def test_escape_stops_the_run(self, tmp_path):
        hold = HoldingModel(pieces=("Working…",))
        app = make_app(tmp_path, hold)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_hold(pilot, "tidy the home screen", hold)
            assert app.main_screen.check_action("stop", ()) is True
            await pilot.press("escape")
            await until(lambda: scenes.view(pilot).status == "stopped")
            await until(lambda: app.center.state().running == ())
            assert app.main_screen.check_action("stop", ()) is False  # hidden again when idle

    async def test_stop_is_hidden_when_nothing_runs(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert "escape" not in [
                b.binding.key for b in app.screen.active_bindings.values() if b.enabled and b.binding.action == "stop"
            ]


class TestCards:
    async def test_a_on_an_approval_releases_exactly_one_action(self, tmp_path):
        world = ToyWorld()
        app = make_app(tmp_path, scenes.approval_model(), world=world)
        async with app.run_test(size=SIZE) as pilot:
            seen = _recorder(app)
            await scenes.run_to_card(pilot, "buy coffee beans", "approval")
            assert world.taps == []
            # Enter and other keys do not release it.
            await pilot.press("enter", "x")
            await asyncio.sleep(0.1)
            assert world.taps == []
            assert isinstance(app.focused, ApprovalCard)
            await pilot.press("a")
            await until(lambda: scenes.view(pilot).status == "answered")
            codes = [e.code for e in seen if isinstance(e, ev.ToolFinished) and e.name == "toy_tap"]
            assert codes == ["confirmation_required", "done", "confirmation_required"]
            assert world.taps == ["Place order"]

    async def test_r_rejects_the_payment(self, tmp_path):
        world = ToyWorld()
        model = ScriptedModel(
            [
                Reply.call("request_confirmation", what="1 coffee beans", amount="¥23.50", app="com.toy.shop"),
                "You refused; nothing was bought.",
            ]
        )
        app = make_app(tmp_path, model, world=world)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "buy coffee beans", "approval")
            await pilot.press("r")
            await until(lambda: not scenes.view(pilot).running)
            assert world.taps == []
            assert "refused" in model.requests[-1].messages[-1].tool_results[0].text.lower() or model.remaining == 0

    async def test_a_question_answered_by_button(self, tmp_path):
        model = ScriptedModel(
            [Reply.call("ask_user", question="Which size?", options=["S", "M", "L"]), "Size M it is."]
        )
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "buy a shirt", "question")
            button = app.screen.query_one("#option-1", Button)
            await pilot.click(button)
            await until(lambda: scenes.view(pilot).status == "answered")
            assert model.requests[1].messages[-1].tool_results[0].text == "The user answered: M"
            assert not app.screen.query(".card")

    async def test_takeover_done_hands_back(self, tmp_path):
        model = ScriptedModel(
            [Reply.call("hand_to_user", reason="login", message="Log in, please."), "Logged in; going on."]
        )
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "open my orders", "takeover")
            await pilot.click("#takeover-done")
            await until(lambda: scenes.view(pilot).status == "answered")
            assert "read it again" in model.requests[1].messages[-1].tool_results[0].text

    async def test_needing_you_shows_in_the_header(self, tmp_path):
        # The user is looking at the app: the header says it; the bell and the desktop
        # notification are for a terminal in the background (tests/tui/test_notify.py).
        model = ScriptedModel([Reply.call("ask_user", question="Which size?", options=["S"]), "ok"])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "buy a shirt", "question")
            assert app.attention.history == []
            assert app.main_screen.query_one("#status").has_class("-needs-you")


class TestSourcesAndRecords:
    async def test_an_answers_source_opens_with_its_text(self, tmp_path):
        from mika_tui.screens.dialogs import SourceDialog

        world = ToyWorld(screen="Toys: Kite ¥12 · Yo-yo ¥8 · Top ¥5")
        model = ScriptedModel([Reply.call("toy_read"), "The cheapest toy is the Top at ¥5."])
        app = make_app(tmp_path, model, world=world)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "which toy is cheapest")
            assert app.screen.query(".sources")
            app.main_screen.action_open_source(scenes.view(pilot).run_id, 0)
            await pilot.pause()
            assert isinstance(app.screen, SourceDialog)
            assert app.screen.body == "Toys: Kite ¥12 · Yo-yo ¥8 · Top ¥5"

    async def test_view_run_opens_the_runs_own_record(self, tmp_path):
        from mika_tui.screens.runs import RunViewerScreen

        model = ScriptedModel([Reply.call("toy_open", page="Cart"), Reply.call("toy_read"), "Your cart is empty."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "what is in my cart")
            app.main_screen.action_view_run(scenes.view(pilot).run_id)
            await pilot.pause()
            assert isinstance(app.screen, RunViewerScreen)
            assert [s.name for s in app.screen.view.steps] == ["toy_open", "toy_read"]
            assert app.screen.view.status == "answered"


class TestPreviewAndDevices:
    async def test_the_preview_pauses_while_another_screen_is_on_top(self, tmp_path):
        from mika_tui.widgets.preview import PhonePreview

        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, frames=2)
            source = app.deps.frames
            preview = app.main_screen.query_one(PhonePreview)
            app.action_open("usage")
            await pilot.pause()
            await until(lambda: not preview._busy, 3)  # a grab already in flight lands
            await pilot.pause()
            before = source.grabs
            # Four ticks of its timer, run here instead of waited for: none may grab.
            for _ in range(4):
                preview._tick()
                await pilot.pause()
            assert preview.paused and not preview._busy
            assert source.grabs == before
            app.action_back()
            await pilot.pause()
            await until(lambda: source.grabs > before, 3)
            assert app.main_screen.query_one(PhonePreview).frames_shown >= 2

    async def test_devices_screen_lists_the_simulated_phone_through_adb(self, tmp_path, sim_phone):
        from textual.widgets import DataTable

        from mika.assembly.devices import AdbDevices

        app = make_app(tmp_path, ScriptedModel(["hi"]), devices_port=AdbDevices())
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.action_open("devices")
            await pilot.pause()
            table = app.screen.query_one(DataTable)
            await until(lambda: table.row_count > 0, 15)
            keys = [str(k.value) for k in table.rows]
            assert sim_phone.serial in keys
            # A malformed address is refused before adb is asked, in words.
            app.screen.query_one("#connect-addr").value = "my phone"
            app.screen.on_connect()
            await pilot.pause()
            assert "is not HOST:PORT" in str(app.screen.query_one("#device-message").render())


class TestConversationActions:
    async def test_rename_pin_and_delete_a_conversation(self, tmp_path):
        from textual.widgets import Input

        from mika.trigger.definition import Timing, TimingKind, build_trigger
        from mika.trigger.store import TriggerStore
        from mika_tui.screens.dialogs import ConfirmDialog, PromptDialog

        model = ScriptedModel([Reply.call("toy_read"), "Three toys."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "what is on the shop's home screen")
            store = app.center.conversations
            await pilot.press("f2")
            await pilot.pause()
            assert isinstance(app.screen, PromptDialog)
            app.screen.query_one(Input).value = "Toy shop"
            await pilot.press("enter")
            await pilot.pause()
            assert store.get("conv-test").title == "Toy shop"
            await pilot.press("f3")
            assert store.get("conv-test").pinned_at > 0
            # A schedule of this conversation goes with it; another conversation's stays.
            schedules = TriggerStore(store.state_dir)
            daily = Timing(TimingKind.DAILY, hour=7, minute=30)
            schedules.add(build_trigger(goal="water the plants", timing=daily, conversation_id="conv-test"))
            kept = schedules.add(build_trigger(goal="call mum", timing=daily, conversation_id="conv-other"))
            await pilot.press("f8")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmDialog) and "Toy shop" in app.screen.text
            await pilot.click("#yes")
            await until(lambda: not store.exists("conv-test"))
            assert app.main_screen.conversation_id != "conv-test"
            assert [s.trigger.id for s in TriggerStore(store.state_dir).list()] == [kept.trigger.id]


class TestKeysAndCommands:
    async def test_ctrl_c_twice_within_two_seconds_quits(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+c")
            await pilot.pause()
            assert app.is_running
            await pilot.press("ctrl+c")
            await pilot.pause()
        assert app.return_code == 0

    async def test_slash_usage_opens_the_usage_screen(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await scenes.type_task(pilot, "/usage")
            await pilot.pause()
            assert isinstance(app.screen, UsageScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is app.main_screen

    async def test_keymap_from_settings_remaps_a_binding(self, tmp_path):
        from mika.config.settings import Settings

        app = make_app(
            tmp_path, ScriptedModel(["hi"]), settings=Settings(language="en", keymap={"main.sidebar": "ctrl+o"})
        )
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+o")
            await pilot.pause()
            assert app.screen.query_one("#sidebar").has_class("-open")

    async def test_palette_offers_actions_the_screen_allows(self, tmp_path):
        from mika_tui.commands import MikaCommands

        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            provider = MikaCommands(app.screen)
            labels = [label for label, _ in provider._available()]
            assert "Usage" in labels and "Devices" in labels
            assert "Stop the run" not in labels  # nothing runs

    async def test_every_binding_has_an_id_and_tooltip(self, tmp_path):
        from mika_tui.app import MikaApp
        from mika_tui.screens.main import MainScreen
        from mika_tui.screens.settings import binding_table

        ids = [bid for bid, _ in binding_table()]
        assert len(ids) == len(set(ids)) and "main.stop" in ids and "card.allow" in ids
        for cls in (MikaApp, MainScreen):
            for b in cls.BINDINGS:
                assert b.id and b.tooltip, b


def test_both_languages_have_every_text():
    assert set(TEXTS["en"]) == set(TEXTS["zh"])
    assert all(TEXTS["zh"][k].strip() for k in TEXTS["zh"])


class TestNotices:
    async def test_a_retried_model_call_is_said_in_the_chat(self, tmp_path):
        from mika.model.errors import ModelError, ModelErrorKind

        busy = ModelError(ModelErrorKind.OVERLOADED, "the server is busy (529)", provider="test")
        model = ScriptedModel([Reply(error=busy), "Done after one retry."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "open settings")
            notices = [str(w.render()) for w in app.main_screen.query(".notice")]
            assert any("trying again in" in n for n in notices), notices
            assert scenes.view(pilot).answer == "Done after one retry."


class TestFaults:
    async def test_an_unexpected_error_is_one_line_and_a_crash_log(self, tmp_path, capsys):
        import pytest

        app = make_app(tmp_path, ScriptedModel(["hi"]))

        def broken() -> None:
            raise RuntimeError("the preview exploded")

        # run_test re-raises the app's error for the test; a user only sees what is printed.
        # The whole app session is the statement under test: the error surfaces on exit.
        with pytest.raises(RuntimeError, match="the preview exploded"):  # noqa: PT012
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                app.call_later(broken)
                await pilot.pause()
                await pilot.pause()
        assert app.return_code == 1
        err = " ".join(capsys.readouterr().err.split())
        assert "mika: internal error: RuntimeError: the preview exploded (details:" in err
        assert "Traceback" not in err
        assert "Traceback" in (app.deps.state_dir / "crash.log").read_text()


class TestModelsAndSettings:
    async def test_add_a_provider_test_it_on_loopback_and_save_it(self, tmp_path):
        import stat
        import tomllib

        from textual.widgets import DataTable, Input

        from mika.config.settings import Settings
        from mika.model.presets import preset_ids
        from tests.models.replay_server import ReplayServer
        from tests.models.replay_server import Reply as Recorded

        config = tmp_path / "config" / "mika" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text('[general]\nlanguage = "en"\n')
        app = make_app(tmp_path, ScriptedModel(["hi"]), settings=Settings(file=config, language="en"))
        with ReplayServer() as server:
            # A real recorded Anthropic tool-call stream, served on loopback.
            server.queue(Recorded.recording("anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse"))
            async with app.run_test(size=(120, 50)) as pilot:
                await settle(pilot)
                app.action_open("models")
                await pilot.pause()
                screen = app.screen
                screen.query_one("#presets", DataTable).move_cursor(row=list(preset_ids()).index("anthropic"))
                screen.query_one("#model-name", Input).value = "claude-probe-test"
                screen.query_one("#api-key", Input).value = "sk-ant-test-123"
                screen.query_one("#base-url", Input).value = server.url
                await pilot.click("#test")
                message = screen.query_one("#model-message")
                await until(lambda: "works with tools" in str(message.render()) or "-error" in message.classes, 15)
                assert "anthropic/claude-probe-test: works with tools" in str(message.render())
                assert server.requests[0].headers.get("x-api-key") == "sk-ant-test-123"
                await pilot.click("#save")
                await pilot.pause()
                await pilot.click("#role-main")
                await pilot.pause()
        data = tomllib.loads(config.read_text())
        assert data["general"]["language"] == "en"
        assert data["providers"]["anthropic"] == {
            "preset": "anthropic",
            "api_key_file": "keys/anthropic.key",
            "base_url": server.url,
        }
        assert data["roles"]["main"] == "anthropic/claude-probe-test"
        key_file = config.parent / "keys" / "anthropic.key"
        assert key_file.read_text() == "sk-ant-test-123"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

    async def test_settings_are_saved_to_the_config(self, tmp_path):
        import tomllib

        from textual.widgets import Switch

        from mika.config.settings import Settings, load_settings

        config = tmp_path / "config" / "mika" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text('[ui]\ngraphics = "halfcell"\n')
        app = make_app(
            tmp_path, ScriptedModel(["hi"]), settings=Settings(file=config, language="en", graphics="halfcell")
        )
        async with app.run_test(size=(120, 60)) as pilot:
            await settle(pilot)
            app.action_open("settings")
            await pilot.pause()
            app.screen.query_one("#autonomous", Switch).value = True
            await pilot.click("#save-settings")
            await pilot.pause()
            assert "Settings saved to" in str(app.screen.query_one("#settings-message").render())
        data = tomllib.loads(config.read_text())
        assert data["general"]["autonomous"] is True and data["ui"]["graphics"] == "halfcell"
        assert load_settings(config).autonomous is True


class TestRecovery:
    async def test_a_run_an_earlier_session_left_unfinished_is_told_once(self, tmp_path):
        """A run left "running" by a killed process is marked interrupted at start and
        told as a notice once; the next start says nothing more."""
        import subprocess
        import sys

        from mika.run.conversations import ConversationStore

        state = tmp_path / "state" / "mika"
        conv = ConversationStore(state).create().id
        # Another process starts the run and dies (its lease goes with it), as a killed Mika would;
        # it must be gone before the app starts, so blocking here is the point.
        subprocess.run(
            [
                sys.executable,
                "-c",
                (
                    "import sys; from mika.run.run_store import RunStore; from mika.run.conversations import ConversationStore;"
                    "from mika.run.phase import RunPhase; s, c = sys.argv[1], sys.argv[2];"
                    "RunStore(s).queued('deadrun01', c, 'check the parcel'); RunStore(s).set_phase('deadrun01', RunPhase.RUNNING);"
                    "ConversationStore(s).begin_turn(c, 'deadrun01', 'check the parcel')"
                ),
                str(state),
                conv,
            ],
            check=True,
            timeout=60,
        )
        notices: list[str] = []
        for _ in range(2):
            app = make_app(tmp_path, ScriptedModel(["ok"]))
            app.notify = lambda message, **kw: notices.append(str(message))  # type: ignore[method-assign]
            async with app.run_test(size=SIZE) as pilot:
                await app.workers.wait_for_complete()
                await pilot.pause()
        assert len(notices) == 1 and "check the parcel" in notices[0]
        turn = ConversationStore(state).get(conv).turns[0]
        assert turn.outcome == "failed"
