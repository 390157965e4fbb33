"""The Routes screen over a real RouteStore in the test's state folder (list, a route's
steps, delete with confirm, empty state, a broken file said), and the step timeline's
marks for replayed and sandbox steps with their en/zh legend."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

from mika.record.events import ToolCalled, ToolFinished
from mika.replay.route import Route, RouteStep, normalise
from mika.replay.store import RouteStore
from mika_tui.i18n import Tr
from mika_tui.run_view import RunView
from mika_tui.screens.dialogs import ConfirmDialog
from mika_tui.screens.routes import RoutesScreen
from mika_tui.widgets.timeline import Timeline
from tests.tui import scenes
from tests.tui.conftest import make_app, settle

SIZE = (140, 50)
ALARM = "set an alarm for 7:30"


def store_at(tmp_path: Path) -> RouteStore:
    return RouteStore(tmp_path / "state" / "mika")


def two(tmp_path: Path) -> tuple[RouteStore, Route, Route]:
    store = store_at(tmp_path)
    alarm = Route(
        id="a1b2c3d4",
        goal=ALARM,
        normalised_goal=normalise(ALARM),
        params={"p1": "7:30"},
        steps=(
            RouteStep("phone_launch_app", {"package": "com.android.deskclock"}),
            RouteStep("phone_tap", {}, anchor={"label": "Add alarm"}, effect="place_changed"),
            RouteStep("phone_type", {"text": "{p1}"}, anchor={"label": "[b]Time[/b]"}, effect="done"),
        ),
        answer="Alarm set for {p1}.",
        created=1_796_000_000.0,
        source_run="run-42",
        uses=3,
        last_used=1_796_100_000.0,
    )
    weather = Route(
        id="e5f6a7b8",
        goal="what is the weather",
        normalised_goal=normalise("what is the weather"),
        steps=(RouteStep("phone_launch_app", {"package": "weather"}),),
        created=1_795_000_000.0,
    )
    store.save(alarm)
    store.save(weather)
    return store, alarm, weather


def rows(app) -> list[list[str]]:
    table = app.screen.query_one("#routes-table", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def open_routes(pilot) -> RoutesScreen:
    await settle(pilot)
    await scenes.type_task(pilot, "/routes")
    await pilot.pause()
    assert isinstance(pilot.app.screen, RoutesScreen)
    return pilot.app.screen


async def test_routes_listed_with_their_steps(tmp_path):
    _, alarm, _ = two(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_routes(pilot)
        # The app's zone is UTC in tests.
        assert rows(app) == [
            [ALARM, "3", "p1=7:30", "3", f"{datetime.fromtimestamp(alarm.last_used, UTC):%Y-%m-%d %H:%M}"],
            ["what is the weather", "1", "—", "0", "—"],
        ]
        steps = text_of(app, "#routes-steps")
        assert "recorded from run run-42" in steps
        assert "phone_tap “Add alarm” → place_changed" in steps
        assert "“[b]Time[/b]”" in steps and '{"text": "{p1}"}' in steps  # text, not markup
        assert "Answer: Alarm set for {p1}." in steps
        app.screen.query_one("#routes-table", DataTable).focus()
        await pilot.press("down")
        await pilot.pause()
        assert "what is the weather" in text_of(app, "#routes-steps")


async def test_delete_confirms_and_removes_the_file(tmp_path):
    store, _alarm, weather = two(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_routes(pilot)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("escape")
        await pilot.pause()
        assert len(RouteStore(store.dir.parent).list()) == 2
        await pilot.press("d")
        await pilot.pause()
        await pilot.click("#yes")
        await pilot.pause()
        assert [r.id for r in RouteStore(tmp_path / "state" / "mika").list()] == [weather.id]
        assert "Deleted the route" in text_of(app, "#routes-message")
        # `mika routes delete` meanwhile: a sentence, not a traceback.
        RouteStore(tmp_path / "state" / "mika").delete(weather.id)
        await pilot.press("d")
        await pilot.pause()
        await pilot.click("#yes")
        await pilot.pause()
        assert "is gone" in text_of(app, "#routes-message") and app.is_running


async def test_empty_and_a_broken_file_is_named(tmp_path):
    store = store_at(tmp_path)
    store.dir.mkdir(parents=True)
    (store.dir / "deadbeef.json").write_text("{ not json")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_routes(pilot)
        note = text_of(app, "#routes-note")
        assert "No recorded routes yet" in note and "deadbeef.json" in note
        await pilot.press("d")
        await pilot.pause()
        assert "Pick a route first" in text_of(app, "#routes-message")
    assert (store.dir / "deadbeef.json").read_text() == "{ not json"


async def test_chinese_routes(tmp_path):
    two(tmp_path)
    app = make_app(tmp_path, language="zh")
    async with app.run_test(size=SIZE) as pilot:
        await open_routes(pilot)
        assert text_of(app, "#routes-title") == "路线"
        table = app.screen.query_one("#routes-table", DataTable)
        assert [str(c.label) for c in table.columns.values()] == ["目标", "步数", "参数", "使用次数", "上次使用"]


class _TimelineApp(App):
    def __init__(self, lang: str) -> None:
        super().__init__()
        self.tr = Tr(lang)

    def compose(self) -> ComposeResult:
        yield Timeline()


def _view() -> RunView:
    view = RunView("r1")
    for i, origin in enumerate(("model", "replay", "sandbox"), 1):
        view.apply(ToolCalled(run_id="r1", call_id=f"c{i}", name="phone_back", origin=origin, at=float(i)))
        view.apply(ToolFinished(run_id="r1", call_id=f"c{i}", name="phone_back", ok=True, at=float(i) + 0.5))
    return view


async def test_timeline_marks_replay_and_sandbox_steps():
    for lang, legend in (("en", "↻ replayed route · ▣ sandbox"), ("zh", "↻ 重放路线 · ▣ 沙箱")):
        app = _TimelineApp(lang)
        async with app.run_test(size=(100, 20)) as pilot:
            timeline = app.query_one(Timeline)
            timeline.set_steps(_view().steps)
            await pilot.pause()
            lines = [row for row, _, _ in timeline._rows]
            assert lines[0].startswith(" 1 ✓ ") and "↻" not in lines[0] and "▣" not in lines[0]
            assert lines[1].startswith(" 2 ✓ ↻ ") and lines[2].startswith(" 3 ✓ ▣ ")
            assert timeline.border_subtitle == legend
            # A run with only the model's own steps needs no legend.
            timeline.set_steps(_view().steps[:1])
            assert timeline.border_subtitle == ""
