"""The chat while reading a run (issue 17): "You" stands apart from the message, a card's
decision stays in the chat after the card is gone, and the empty chat has an idle panel
(recent conversations, the phone, the model, three example tasks). Driven by keys."""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets import Static

from mika.model.testing import Reply, ScriptedModel
from mika_tui.widgets.chat import ChatIdle, IdleOptions, TurnBlock
from tests.core.toy import ToyWorld
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, until

SIZE = (120, 40)


def drawn(widget) -> list[str]:
    region = Region(0, 0, widget.size.width, widget.size.height)
    return [strip.text.rstrip() for strip in widget.render_lines(region)]


def texts(widgets) -> list[str]:
    return [str(w.render()) for w in widgets]


class TestYouLine:
    async def test_you_and_the_message_are_apart_and_a_long_one_wraps_under_itself(self, tmp_path):
        model = ScriptedModel(["Your cart is empty."])
        app = make_app(tmp_path, model)
        long = "check out my cart and tell me " + "what is in it and how much it costs " * 4
        async with app.run_test(size=(80, 30)) as pilot:
            await scenes.run_to_end(pilot, long.strip())
            turn = app.main_screen.query_one(TurnBlock)
            speaker = turn.query_one(".speaker", Static)
            words = turn.query_one(".user-text", Static)
            assert str(speaker.render()) == "You"
            # A gap between them on screen, and every wrapped line starts in the words' column.
            assert words.region.x >= speaker.region.right + 1
            lines = [line for line in drawn(words) if line.strip()]
            assert len(lines) > 1 and lines[0].startswith("check out my cart")
            # Both on the same screen row: the words start on the speaker's line.
            assert words.region.y == speaker.region.y

    async def test_the_chinese_speaker_is_apart_too(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["好的。"]), language="zh")
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "看看购物车")
            turn = app.main_screen.query_one(TurnBlock)
            assert str(turn.query_one(".speaker", Static).render()) == "你"
            assert turn.query_one(".user-text").region.x > turn.query_one(".speaker").region.right


class TestDecisionsStay:
    async def test_an_approved_payment_is_said_once_the_card_is_gone(self, tmp_path):
        world = ToyWorld()
        app = make_app(tmp_path, scenes.approval_model(), world=world)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "buy coffee beans", "approval")
            await pilot.press("a")
            await until(lambda: not scenes.view(pilot).running)
            await until(lambda: len(app.main_screen.query(".summary")) > 0)
            await settle(pilot)
            assert not app.main_screen.query(".card")
            assert texts(app.main_screen.query(".decision")) == ["✓ Payment approved once."]
            assert world.taps == ["Place order"]

    async def test_a_refused_payment_is_said(self, tmp_path):
        model = ScriptedModel(
            [
                Reply.call("request_confirmation", what="1 coffee beans", amount="¥23.50", app="com.toy.shop"),
                "You refused; nothing was bought.",
            ]
        )
        world = ToyWorld()
        app = make_app(tmp_path, model, world=world)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "buy coffee beans", "approval")
            await pilot.press("r")
            await until(lambda: not scenes.view(pilot).running)
            await settle(pilot)
            assert not app.main_screen.query(".card")
            assert texts(app.main_screen.query(".decision")) == ["✗ Payment refused."]
            assert world.taps == []

    async def test_keys_after_the_decision_add_no_second_line(self, tmp_path):
        """a, then r and a again: one decision, the first one."""
        app = make_app(tmp_path, scenes.approval_model())
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "buy coffee beans", "approval")
            await pilot.press("a", "r", "a")
            await until(lambda: not scenes.view(pilot).running)
            await settle(pilot)
            assert texts(app.main_screen.query(".decision")) == ["✓ Payment approved once."]

    async def test_an_answered_question_is_said(self, tmp_path):
        model = ScriptedModel([Reply.call("ask_user", question="Which size?", options=["S", "M", "L"]), "M it is."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "buy a shirt", "question")
            app.screen.query_one("#free-answer").focus()
            await pilot.press("M", "enter")
            await until(lambda: not scenes.view(pilot).running)
            await settle(pilot)
            assert texts(app.main_screen.query(".decision")) == ["↳ You answered: M"]


def rows(app) -> list[str]:
    """The idle panel's rows as drawn: headings, recent conversations, examples."""
    return [str(o.prompt) for o in app.main_screen.query_one(IdleOptions).options]


def examples(app) -> list[str]:
    options = app.main_screen.query_one(IdleOptions).options
    return [str(o.prompt).removeprefix("• ") for o in options if (o.id or "").startswith("ex:")]


class TestIdleChat:
    async def test_the_empty_chat_says_phone_model_and_three_examples_for_its_apps(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["ok"]))  # the simulated phone's apps
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            idle = app.main_screen.query_one(ChatIdle)
            shown = "\n".join(texts(idle.query(Static)))
            assert "Phone: simulated phone · sim · 127.0.0.1:40001" in shown
            assert "Model: scripted/" in shown or f"Model: {app.deps.model_label}" in shown
            assert examples(app) == [
                "Turn on dark mode in Settings",
                "Find the cheapest headphones in Mika Shop",
                "Set a timer for 10 minutes",
            ]

    async def test_examples_fit_the_phone_and_no_phone_gets_directions(self, tmp_path):
        from mika_tui.deps import DeviceInfo

        # A phone with WeChat and an app only the knowledge catalog knows.
        phone = DeviceInfo("R5CT1234", "Pixel 8", "usb")
        app = make_app(
            tmp_path / "a", ScriptedModel(["ok"]), device=phone, apps=("com.tencent.mm", "com.netease.cloudmusic")
        )
        app.deps.app_names = {"com.netease.cloudmusic": "NetEase Cloud Music"}
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert examples(app) == [
                "Open WeChat and read me my latest message",
                "Open NetEase Cloud Music and tell me what is on its first screen",
                "What is on the screen right now?",
            ]
        app = make_app(tmp_path / "b", ScriptedModel(["ok"]), device=DeviceInfo())
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert examples(app)[0].startswith("No phone yet: Ctrl+D opens Devices")
            await pilot.press("down", "down", "enter")  # a direction, not a task: nothing is typed
            await pilot.pause()
            assert app.main_screen.query_one("#prompt").value == ""

    async def test_an_example_goes_into_the_input_by_keys(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["ok"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("down")  # from the empty input into the rows
            assert isinstance(app.focused, IdleOptions)
            await pilot.press("down", "enter")
            await pilot.pause()
            prompt = app.main_screen.query_one("#prompt")
            assert prompt.has_focus and prompt.value == "Find the cheapest headphones in Mika Shop"
            await pilot.press("down", "escape")  # and back: Esc leaves the rows for the input
            await pilot.pause()
            assert prompt.has_focus

    async def test_it_goes_with_the_first_turn_and_a_recent_one_opens_with_enter(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["Your cart is empty.", "ok"]))
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "what is in my cart")
            first = app.main_screen.conversation_id
            assert not app.main_screen.query(ChatIdle)
            await pilot.press("ctrl+n")
            await until(lambda: bool(app.main_screen.query(ChatIdle)))
            await settle(pilot)
            assert app.main_screen.conversation_id != first
            shown = rows(app)
            assert shown[0] == "Recent conversations (Enter opens):"
            assert "what is in my cart" in shown[1], shown
            # The footer says what Enter does on the rows.
            await pilot.press("down")
            await pilot.pause()
            labels = [b.binding.description for b in app.screen.active_bindings.values() if b.binding.show]
            assert "Open / use" in labels and "Back to the input" in labels
            await pilot.press("enter")
            await until(lambda: app.main_screen.conversation_id == first)
            await settle(pilot)
            assert app.main_screen.query(TurnBlock) and not app.main_screen.query(ChatIdle)
            assert app.main_screen.query_one("#prompt").has_focus


class TestIdleExamplesFromARealPhone:
    async def test_the_examples_follow_what_the_simulated_phone_reports(self, tmp_path, sim_phone):
        """The phone's own `pm list packages`, over a real adb server (mika.assembly.devices)."""
        from mika.assembly.devices import AdbDevices
        from mika_tui.deps import DeviceInfo

        device = DeviceInfo(sim_phone.serial, "simulated phone", "tcp", 0, is_sim=False)
        app = make_app(tmp_path, ScriptedModel(["ok"]), device=device)
        app.deps.apps_of = AdbDevices().packages
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await until(lambda: sim_phone.serial in app.deps.known_apps, timeout=20)
            await settle(pilot)
            assert "com.mika.shop" in app.deps.known_apps[sim_phone.serial]
            assert examples(app) == [
                "Turn on dark mode in Settings",
                "Find the cheapest headphones in Mika Shop",
                "Set a timer for 10 minutes",
            ]


class TestIdleModel:
    async def test_no_model_is_said_in_the_idle_panel(self, tmp_path):
        app = make_app(tmp_path, None)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            shown = "\n".join(texts(app.main_screen.query_one(ChatIdle).query(Static)))
            assert "no model" in shown
