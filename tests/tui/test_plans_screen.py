"""The Plans screen over a real TriggerStore in the test's state folder: rows grouped
active / paused with timing in words and the next time in the app's zone (UTC in tests),
pause/resume, run now and delete proved by reading the file back with a fresh store."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from textual.widgets import DataTable, Static

from mika.trigger.definition import Timing, TimingKind, Trigger, TriggerKind
from mika.trigger.store import TriggerStore
from mika_tui.screens.dialogs import ConfirmDialog
from mika_tui.screens.plans import PlansScreen
from tests.tui import scenes
from tests.tui.conftest import make_app, settle

SIZE = (140, 50)


def store_at(tmp_path: Path) -> TriggerStore:
    return TriggerStore(tmp_path / "state" / "mika")


def three(tmp_path: Path):
    store = store_at(tmp_path)
    soon = datetime.now(UTC).replace(microsecond=0) + timedelta(days=2)
    reminder = store.add(
        Trigger("s0000001a", TriggerKind.REMINDER, "take the [b]pills[/b]", Timing(TimingKind.AT, at=soon), "conv-a")
    )
    task = store.add(
        Trigger(
            "s0000002b",
            TriggerKind.TASK,
            "check the weather",
            Timing(TimingKind.DAILY, hour=7, minute=30, weekdays=frozenset({0, 4})),
            "conv-b",
            created=time.time() + 1,
        )
    )
    cond = store.add(
        Trigger(
            "s0000003c",
            TriggerKind.CONDITION,
            "tell me when the parcel arrives",
            Timing(TimingKind.EVERY, at=soon, every_s=900),
            "conv-c",
            condition="parcel status says delivered",
            created=time.time() + 2,
        )
    )
    store.pause(cond.id)
    return store, soon, reminder, task, cond


def rows(app, selector: str) -> list[list[str]]:
    table = app.screen.query_one(selector, DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def open_plans(pilot) -> PlansScreen:
    await settle(pilot)
    await pilot.press("f9")
    await pilot.pause()
    assert isinstance(pilot.app.screen, PlansScreen)
    return pilot.app.screen


async def test_rows_grouped_with_timing_in_words(tmp_path):
    _, soon, *_ = three(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_plans(pilot)
        active = rows(app, "#plans-active")
        assert [r[0] for r in active] == ["reminder", "task"]
        # The goal as text: its brackets are not markup.
        assert active[0][1] == "take the [b]pills[/b]"
        assert active[0][2] == f"once, {soon:%Y-%m-%d %H:%M}" and active[0][3] == f"{soon:%Y-%m-%d %H:%M}"
        assert active[1][2] == "Mon, Fri at 07:30"
        assert active[1][3][:4].isdigit()  # a concrete next time
        paused = rows(app, "#plans-paused")
        assert [r[:4] for r in paused] == [["condition", "tell me when the parcel arrives", "every 15m", "paused"]]
        assert active[0][4] == "—"  # nothing ran yet
        assert "take the [b]pills[/b]" in text_of(app, "#plans-detail")


async def test_pause_resume_run_now_act_on_the_store(tmp_path):
    store, _, _reminder, task, cond = three(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_plans(pilot)
        table = app.screen.query_one("#plans-active", DataTable)
        table.focus()
        await pilot.press("down")  # the task
        await pilot.press("p")
        await pilot.pause()
        assert TriggerStore(store.state_dir).get(task.id).paused
        assert [r[1] for r in rows(app, "#plans-paused")] == ["check the weather", "tell me when the parcel arrives"]
        assert "Paused" in text_of(app, "#plans-message")
        paused = app.screen.query_one("#plans-paused", DataTable)
        paused.focus()
        paused.move_cursor(row=paused.get_row_index(cond.id))
        await pilot.press("p")
        await pilot.pause()
        assert not TriggerStore(store.state_dir).get(cond.id).paused
        assert "Resumed" in text_of(app, "#plans-message")
        app.screen.query_one("#plans-active", DataTable).focus()
        await pilot.press("home")
        await pilot.press("r")
        await pilot.pause()
        first = rows(app, "#plans-active")[0][1]
        asked = [s.trigger.goal for s in TriggerStore(store.state_dir).list() if s.id in store.run_requests()]
        assert asked == [first]
        assert "mika serve" in text_of(app, "#plans-message")


async def test_delete_confirms_and_a_schedule_gone_meanwhile_is_a_sentence(tmp_path):
    store, _, reminder, task, _cond = three(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_plans(pilot)
        app.screen.query_one("#plans-active", DataTable).focus()
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("escape")
        await pilot.pause()
        assert len(TriggerStore(store.state_dir).list()) == 3
        await pilot.press("d")
        await pilot.pause()
        await pilot.click("#yes")
        await pilot.pause()
        assert reminder.id not in [s.id for s in TriggerStore(store.state_dir).list()]
        assert "Deleted" in text_of(app, "#plans-message")
        # `mika schedule delete` in another terminal while the row is still listed.
        TriggerStore(store.state_dir).delete(task.id)
        await pilot.press("p")
        await pilot.pause()
        assert "no longer scheduled" in text_of(app, "#plans-message")
        assert app.is_running and isinstance(app.screen, PlansScreen)


async def test_empty_state_and_nothing_selected(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_plans(pilot)
        assert "No schedules" in text_of(app, "#plans-note") and "mika schedule add" in text_of(app, "#plans-note")
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, PlansScreen)  # no dialog for nothing
        assert "Pick a schedule first" in text_of(app, "#plans-message")


async def test_slash_plans_and_chinese(tmp_path):
    three(tmp_path)
    app = make_app(tmp_path, language="zh")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await scenes.type_task(pilot, "/plans")
        await pilot.pause()
        assert isinstance(app.screen, PlansScreen)
        assert text_of(app, "#plans-title") == "计划"
        active = rows(app, "#plans-active")
        assert [r[0] for r in active] == ["提醒", "任务"] and active[1][2] == "每周一、五 07:30"
        assert rows(app, "#plans-paused")[0][2:4] == ["每 15m", "已暂停"]
        descriptions = {a.binding.description for a in app.screen.active_bindings.values()}
        assert {"暂停/恢复", "立即运行", "删除"} <= descriptions


async def test_empty_state_in_chinese(tmp_path):
    app = make_app(tmp_path, language="zh")
    async with app.run_test(size=SIZE) as pilot:
        await open_plans(pilot)
        assert "没有定时任务" in text_of(app, "#plans-note")


async def test_a_broken_schedules_file_is_no_traceback(tmp_path):
    path = store_at(tmp_path).path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{ not json")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_plans(pilot)
        assert app.is_running and isinstance(app.screen, PlansScreen)
        assert rows(app, "#plans-active") == [] and rows(app, "#plans-paused") == []
        # The state layer moves a file that is not JSON aside (mika.run.state_lock.read_state)
        # and the screen shows an empty plan list, not a traceback.
        assert "No schedules" in text_of(app, "#plans-note")
    assert list(path.parent.glob("schedules.json.corrupt-*"))
