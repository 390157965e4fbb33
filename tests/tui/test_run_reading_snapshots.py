"""Snapshots of reading a run (issue 17): a phone-and-web run's timeline in words, one
step's detail opened with Enter, the runs screen's metrics bar, a decision kept in the
chat, and the idle chat at 80×24 in English and Chinese.

The recorded run is written by the real RunRecorder with fixed event times, so every
second and token in the pictures is chosen, not measured.
"""

from __future__ import annotations

from pathlib import Path

from mika.model.testing import ScriptedModel
from mika.record import events as ev
from mika.record.recorder import RunRecorder
from tests.tui import scenes
from tests.tui.conftest import FIXED_NOW, make_app, settle, until

MID = (120, 40)
NARROW = (80, 24)
RUN_ID = "r-5eed01"
LISTING = (
    'Scrolled down.\nEffect: done — the list moved\n\n<screen app="com.toy.shop">\n'
    + "\n".join(f'[{i}] button "Green tea {i}" ¥{10 + i}.00' for i in range(1, 13))
    + "\n</screen>"
)


def write_run(state: Path) -> str:
    t = FIXED_NOW - 1800
    rec = RunRecorder(state, RUN_ID, started=t)
    rec.begin({"id": RUN_ID, "goal": "buy one green tea", "started_at": t})
    rec(ev.RunStarted(run_id=RUN_ID, goal="buy one green tea", origin="ui", attendance="present", at=t))
    steps = [
        ("phone_scroll", {"direction": "down"}, "phone", "read", True, "done", "done", LISTING, 900, 400),
        (
            "phone_type_text",
            {"text": "green tea", "element": 4},
            "phone",
            "act",
            True,
            "done",
            "done",
            'Typed "green tea" into EditText "Search" (read back: matches).',
            600,
            0,
        ),
        (
            "phone_tap",
            {"element": 12},
            "phone",
            "act",
            False,
            "confirmation_required",
            "",
            'button "Buy now" is a payment step: ask the user with request_confirmation first.',
            50,
            0,
        ),
        (
            "web_navigate",
            {"url": "https://www.example.com/shop/tea?id=7"},
            "web",
            "read",
            True,
            "done",
            "place_changed",
            "Opened example.com/shop/tea.",
            1800,
            700,
        ),
    ]
    at = t
    for i, (name, args, cap, risk, ok, code, effect, text, dur, wait) in enumerate(steps, start=1):
        rec(
            ev.ModelReplied(
                run_id=RUN_ID,
                text="",
                tool_calls=({"name": name},),
                usage={"input": 3000 + 400 * i, "output": 60, "cached": 2000},
                requested_at=at,
                replied_at=at + 1.5,
                at=at + 1.5,
            )
        )
        at += 1.5
        rec(ev.ToolCalled(run_id=RUN_ID, call_id=f"c{i}", name=name, arguments=args, capability=cap, risk=risk, at=at))
        at += dur / 1000
        rec(
            ev.ToolFinished(
                run_id=RUN_ID, call_id=f"c{i}", name=name, ok=ok, code=code, effect=effect, text=text,
                capability=cap, duration_ms=dur, wait_ms=wait, at=at,
            )
        )  # fmt: skip
    rec(ev.RunOutcome(run_id=RUN_ID, status="answered", answer="Green tea 7 is ¥17.00.", steps=4, at=at + 1))
    rec.close({"outcome": "answered"})
    return RUN_ID


def _viewer(keys: tuple[str, ...] = ()):
    async def before(pilot):
        await settle(pilot)
        await scenes.type_task(pilot, "/runs")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
            await settle(pilot)

    return before


class TestReadingARun:
    def test_runs_screen_with_metrics(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        write_run(app.deps.state_dir)

        async def before(pilot):
            await settle(pilot)
            await scenes.type_task(pilot, "/runs")
            await settle(pilot)

        assert snap_compare(app, terminal_size=MID, run_before=before)

    def test_run_viewer_timeline_in_words(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        write_run(app.deps.state_dir)
        assert snap_compare(app, terminal_size=MID, run_before=_viewer())

    def test_step_detail_opened_with_enter(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        write_run(app.deps.state_dir)
        assert snap_compare(app, terminal_size=MID, run_before=_viewer(("up", "up", "up", "enter")))  # step 1 of 4

    def test_step_detail_chinese_narrow(self, snap_compare, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]), language="zh")
        write_run(app.deps.state_dir)
        assert snap_compare(app, terminal_size=NARROW, run_before=_viewer(("up", "up", "enter")))  # step 2 of 4

    def test_decision_kept_after_the_card(self, snap_compare, tmp_path):
        async def before(pilot):
            await scenes.run_to_card(pilot, "buy coffee beans", "approval")
            await pilot.press("a")
            await until(lambda: not scenes.view(pilot).running)
            await until(lambda: len(pilot.app.main_screen.query(".summary")) > 0)
            await settle(pilot)

        assert snap_compare(make_app(tmp_path, scenes.approval_model()), terminal_size=MID, run_before=before)

    def test_idle_chat_narrow(self, snap_compare, tmp_path):
        async def before(pilot):
            await settle(pilot)

        assert snap_compare(make_app(tmp_path, ScriptedModel(["hi"])), terminal_size=NARROW, run_before=before)

    def test_idle_chat_chinese(self, snap_compare, tmp_path):
        async def before(pilot):
            await settle(pilot)

        app = make_app(tmp_path, ScriptedModel(["hi"]), language="zh")
        assert snap_compare(app, terminal_size=MID, run_before=before)
