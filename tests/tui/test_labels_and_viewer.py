"""Every label the footer draws is in the user's language (Chinese here: the approval
card, the run viewer, a step's detail, a confirm dialog), and the run viewer's cursor is
lit and its frame follows the cursor, never blanking on a key that moved nothing
(issue 17). What is read is the footer as drawn, after real key presses."""

from __future__ import annotations

import re

from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # the footer's own key widgets: what the user sees

from mika.model.testing import ScriptedModel
from mika_tui.screens.dialogs import ConfirmDialog
from mika_tui.screens.runs import RunViewerScreen
from mika_tui.widgets.frame_view import FrameView
from mika_tui.widgets.step_detail import StepDetail
from mika_tui.widgets.timeline import Timeline
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, sim_frames, until

SIZE = (160, 40)
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


async def labels(pilot) -> list[str]:
    await settle(pilot)
    await pilot.pause()
    keys = pilot.app.screen.query_one(Footer).query(FooterKey)
    # The label and the tooltip a hover shows: both are words the user reads.
    return [t for k in keys if not k.has_class("-command-palette") for t in (k.description, str(k.tooltip or ""))]


# Names that stay as they are in Chinese text: the product and the keys.
KEEP = re.compile(r"Mika|Ctrl\+\w|Enter|Esc|Tab")


def english_in(shown: list[str]) -> list[str]:
    return [label for label in shown if LATIN_WORD.search(KEEP.sub("", label))]


async def test_approval_card_footer_is_chinese(tmp_path):
    app = make_app(tmp_path, scenes.approval_model(), language="zh")
    async with app.run_test(size=SIZE) as pilot:
        await scenes.run_to_card(pilot, "买咖啡豆", "approval")
        shown = await labels(pilot)
        assert shown and not english_in(shown), shown
        assert "允许一次" in shown


async def test_run_viewer_step_detail_and_dialog_footers_are_chinese(tmp_path):
    app = make_app(tmp_path, ScriptedModel(["hi"]), language="zh")
    run_id = scenes.write_run_record(tmp_path / "state" / "mika", sim_frames()[0])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_run(run_id)
        await until(lambda: isinstance(app.screen, RunViewerScreen))
        shown = await labels(pilot)
        assert "打开步骤" in shown and not english_in(shown), shown
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, StepDetail))
        shown = await labels(pilot)
        assert shown and not english_in(shown), shown
        await pilot.press("escape", "escape")
        await until(lambda: not isinstance(app.screen, (StepDetail, RunViewerScreen)))
        app.push_screen(ConfirmDialog("删除？", app.tr))
        await until(lambda: isinstance(app.screen, ConfirmDialog))
        shown = await labels(pilot)
        assert shown == ["取消", "不做，直接关闭"], shown


async def test_the_run_viewer_cursor_is_lit_and_the_frame_follows_it(tmp_path):
    app = make_app(tmp_path, ScriptedModel(["hi"]))
    run_id = scenes.write_run_record(tmp_path / "state" / "mika", sim_frames()[0])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_run(run_id)
        await until(lambda: isinstance(app.screen, RunViewerScreen))
        await settle(pilot)
        timeline = app.screen.query_one(Timeline)
        frame = app.screen.query_one(FrameView)
        last = len(timeline.steps) - 1
        assert timeline.cursor == last  # lit from the start, on the step whose frame shows
        shown_before = frame.png
        assert shown_before is not None
        lit = timeline.get_component_rich_style("timeline--cursor")
        row = next(y for y, (_, _, i) in enumerate(timeline._rows) if i == last)
        strip = timeline.render_line(row - int(timeline.scroll_y))
        assert any(seg.style and seg.style.bgcolor == lit.bgcolor for seg in strip), "the cursor row is not lit"
        # A key that moves nothing (Down on the last step) keeps the frame.
        await pilot.press("down")
        await settle(pilot)
        assert timeline.cursor == last
        assert frame.png == shown_before  # the old viewer blanked it here
        # Up moves to the step before: that row is lit now.
        await pilot.press("up")
        await settle(pilot)
        assert timeline.cursor == last - 1


async def test_the_viewer_says_the_outcome_in_chinese_and_when_no_picture_was_recorded(tmp_path):
    import json

    app = make_app(tmp_path, ScriptedModel(["hi"]), language="zh")
    state = tmp_path / "state" / "mika"
    run_id = scenes.write_run_record(state, sim_frames()[0])
    # The same run without its pictures: the frame pane says so instead of staying blank.
    run_dir = next((state / "runs").iterdir())
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    (run_dir / "events.jsonl").write_text("\n".join(json.dumps({**e, "frame": ""}) for e in events) + "\n")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_run(run_id)
        await until(lambda: isinstance(app.screen, RunViewerScreen))
        await settle(pilot)
        title = str(app.screen.query_one("#viewer-title").render())
        assert "已回答" in title and "answered" not in title
        frame = app.screen.query_one(FrameView)
        assert frame.png is None
        assert "没有记录画面" in frame.render_line(0).text  # 还没有记录画面
