"""Reading a run (issue 17): timeline rows in words, Enter opens a step's detail,
decisions stay in the chat, "You" stands apart from the message, the idle chat is useful.

Driven by keys through Pilot against a real TaskRun on the toy world; the timeline rows
are read as the widget draws them (its strips), not from a private field.
"""

from __future__ import annotations

from textual.geometry import Region

from mika.model.testing import Reply, ScriptedModel
from mika_tui.run_view import RunView, Step
from mika_tui.widgets.step_detail import StepDetail
from mika_tui.widgets.timeline import Timeline
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, until

SIZE = (140, 44)


def drawn(widget) -> list[str]:
    """The lines the widget paints now, as text."""
    region = Region(0, 0, widget.size.width, widget.size.height)
    return [strip.text.rstrip() for strip in widget.render_lines(region)]


def timeline_rows(app) -> list[str]:
    """The timeline's rows as it draws them (inside its border)."""
    timeline = app.main_screen.query_one(Timeline)
    lines = [timeline.render_line(y).text.rstrip() for y in range(timeline.scrollable_content_region.height)]
    return [line for line in lines if line.strip()]


class TestTimelineWords:
    async def test_rows_say_what_happened_in_words_not_json(self, tmp_path):
        model = ScriptedModel(
            [
                Reply.call("toy_open", page="Cart"),
                Reply.call("toy_tap", label="Place order"),
                Reply.call("toy_read"),
                "Placing the order needs your approval.",
            ]
        )
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "what is in my cart")
            rows = timeline_rows(app)
            assert any("Open 'Cart' · screen changed" in r for r in rows), rows
            # The toy shop's "Place order" is a payment step: the tap stopped and asked.
            assert any("Tap 'Place order' · asked you" in r for r in rows), rows
            assert any("Read the screen · done" in r for r in rows), rows
            assert not any("{" in r or '"' in r for r in rows), rows

    async def test_phone_and_web_steps_read_as_sentences(self, tmp_path):
        """Recorded events of phone and web steps (the event shapes the phone and web
        surfaces write) fold into words: scroll, type with read-back, a payment tap that
        asked the user, a web navigation."""
        from mika.record import events as ev

        view = RunView("r1")
        calls = [
            ("phone_scroll", {"direction": "down"}, "phone", "done", True, "done", "Scrolled down.\nEffect: done"),
            (
                "phone_type_text",
                {"text": "hello", "element": 4},
                "phone",
                "done",
                True,
                "done",
                'Typed "hello" into EditText (read back: matches).',
            ),
            (
                "phone_tap",
                {"element": 12},
                "phone",
                "",
                False,
                "confirmation_required",
                'button "Buy now" is a payment step.',
            ),
            ("web_navigate", {"url": "https://www.example.com/shop/cart"}, "web", "place_changed", True, "done", ""),
        ]
        for i, (name, args, cap, effect, ok, code, text) in enumerate(calls):
            view.apply(ev.ToolCalled(run_id="r1", call_id=f"c{i}", name=name, arguments=args, capability=cap))
            view.apply(
                ev.ToolFinished(
                    run_id="r1", call_id=f"c{i}", name=name, ok=ok, code=code, effect=effect, text=text, capability=cap
                )
            )
        app = make_app(tmp_path, None)
        async with app.run_test(size=SIZE) as pilot:
            timeline = app.main_screen.query_one(Timeline)
            timeline.set_steps(view.steps)
            await settle(pilot)
            rows = timeline_rows(app)
            assert "Scroll down · list moved" in rows[0]
            assert "Type 'hello' · read back ok" in rows[1]
            assert "Tap 'Buy now' · asked you" in rows[2]
            assert "Open example.com/… · page changed" in rows[3]

    async def test_rows_are_in_chinese_when_the_app_is(self, tmp_path):
        model = ScriptedModel([Reply.call("toy_open", page="Cart"), "好。"])
        app = make_app(tmp_path, model, language="zh")
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "open cart")
            rows = timeline_rows(app)
            assert any("打开 'Cart' · 屏幕已变" in r for r in rows), rows

    async def test_chinese_rows_fit_the_column_in_cells(self, tmp_path):
        """A Chinese character takes two cells: a row measured in characters ran past the
        border and lost its time."""
        from rich.cells import cell_len

        model = ScriptedModel([Reply.call("toy_open", page="购物车页面"), Reply.call("toy_read"), "好。"])
        app = make_app(tmp_path, model, language="zh")
        async with app.run_test(size=(80, 24)) as pilot:
            await scenes.run_to_end(pilot, "打开购物车")
            timeline = app.main_screen.query_one(Timeline)
            rows = timeline_rows(app)
            assert len(rows) == 2
            assert all(cell_len(r) <= timeline.scrollable_content_region.width for r in rows), rows
            assert all(r.rstrip().endswith("s") or r.rstrip().endswith("t") for r in rows), rows

    async def test_a_narrow_timeline_keeps_the_result_and_cuts_the_words(self, tmp_path):
        model = ScriptedModel([Reply.call("toy_tap", label="A very long button label " * 3), "ok"])
        app = make_app(tmp_path, model)
        async with app.run_test(size=(80, 24)) as pilot:
            await scenes.run_to_end(pilot, "tap it")
            rows = timeline_rows(app)
            timeline = app.main_screen.query_one(Timeline)
            assert rows and all(len(r) <= timeline.size.width for r in rows)
            assert any(r.split()[1:2] == ["✓"] and "·" in r for r in rows), rows


class TestStepDetail:
    async def test_enter_on_a_row_opens_what_the_model_saw_and_the_time_split(self, tmp_path):
        toys = "Toys: Kite ¥12 · Yo-yo ¥8 · Top ¥5"
        model = ScriptedModel([Reply.call("toy_open", page=toys), Reply.call("toy_read"), "The Top is cheapest."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "which toy is cheapest")
            await pilot.press("ctrl+t")
            await pilot.pause()
            assert isinstance(app.focused, Timeline)
            # The cursor starts on nothing (the latest step is what Enter opens): the first
            # key lights the latest row, the second moves from there (down: it stays).
            await pilot.press("down", "down", "enter")
            await until(lambda: isinstance(app.screen, StepDetail))
            detail = app.screen
            assert detail.step.name == "toy_read"
            text = "\n".join(line for w in detail.query("Static") for line in drawn(w))
            assert "Step 2 · Read the screen" in text
            assert "Kite ¥12" in text  # the listing the model read back
            assert "thinking" in text and "acting" in text and "waiting" in text
            await pilot.press("escape")
            await until(lambda: not isinstance(app.screen, StepDetail))
            assert isinstance(app.focused, Timeline)

    async def test_enter_in_the_run_viewer_opens_the_recorded_step(self, tmp_path):
        from mika_tui.screens.runs import RunViewerScreen

        model = ScriptedModel([Reply.call("toy_open", page="Cart"), Reply.call("toy_read"), "Empty."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "what is in my cart")
            app.main_screen.action_view_run(scenes.view(pilot).run_id)
            await until(lambda: isinstance(app.screen, RunViewerScreen))
            # The viewer's cursor starts on the last step; up twice reaches the first of the
            # two whether or not the first press only woke the highlight.
            await pilot.press("up", "up", "enter")
            await until(lambda: isinstance(app.screen, StepDetail))
            assert app.screen.step.name == "toy_open"
            assert "Opened Cart" in app.screen.step.text


def _step(name: str, args: dict, *, ok=True, code="done", effect="done", text="", capability="") -> Step:
    return Step(1, "c1", name, "", 0.0, ok=ok, code=code, effect=effect, text=text, arguments=args,
                capability=capability)  # fmt: skip


def test_more_tools_in_words():
    from mika.record.step_words import step_words
    from mika_tui.i18n import Tr

    tr = Tr("en")
    said = {
        step_words(_step("phone_press_key", {"key": "ENTER"}), tr.lang): "Press ENTER · changed in place",
        step_words(_step("phone_launch_app", {"app": "Settings"}, effect="place_changed"), tr.lang): (
            "Open app Settings · screen changed"
        ),
        step_words(_step("web_tap", {"element": 3}, text='Tapped link "Next".', capability="web"), tr.lang): (
            "Tap 'Next' · changed in place"
        ),
        step_words(_step("wait", {"seconds": 2}, effect=""), tr.lang): "Wait 2s · done",
        step_words(_step("phone_back", {}, effect="no_effect"), tr.lang): "Back · nothing changed",
        step_words(_step("phone_tap", {"x": 10, "y": 20}, ok=False, code="stale_element", effect=""), tr.lang): (
            "Tap @10,20 · failed (stale_element)"
        ),
        step_words(_step("web_navigate", {"url": "example.com"}, effect="place_changed", capability="web"), tr.lang): (
            "Open example.com · page changed"
        ),
    }
    for got, want in said.items():
        assert got == want


def test_hostile_arguments_reach_no_row_raw():
    """A label holding terminal controls and markup is a step's words, cleaned once."""
    from mika.record import events as ev
    from mika.record.step_words import step_words

    view = RunView("r")
    view.apply(
        ev.ToolCalled(run_id="r", call_id="c", name="toy_tap", arguments={"label": "Pay\x1b]0;x\x07[/b]\r\nnow"})
    )
    view.apply(ev.ToolFinished(run_id="r", call_id="c", name="toy_tap", ok=True, effect="done"))
    words = step_words(view.steps[0], "en")
    assert "\x1b" not in words and "\x07" not in words and "\n" not in words and "\r" not in words
    assert words.startswith("Tap 'Pay")
