"""The runs screen and the run viewer show the metrics the records hold (issue 17):
first feedback, the thinking / reading / acting / waiting split as a small bar, tokens,
steps. Reached by keys (`/runs`, Enter), from a run the app itself recorded."""

from __future__ import annotations

from textual.widgets import DataTable, Static

from mika.model.testing import Reply, ScriptedModel
from mika.record.metrics import RunMetrics
from mika.record.recorder import find_run, list_runs, read_events
from mika_tui.screens.runs import RunsScreen, RunViewerScreen
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, until

SIZE = (160, 44)


def static_text(widget: Static) -> str:
    return str(widget.render())


async def open_runs(pilot) -> None:
    await scenes.type_task(pilot, "/runs")
    await until(lambda: isinstance(pilot.app.screen, RunsScreen))
    await settle(pilot)


class TestRunsScreenMetrics:
    async def test_the_table_and_the_highlighted_run_say_its_metrics(self, tmp_path):
        model = ScriptedModel([Reply.call("toy_open", page="Cart"), Reply.call("toy_read"), "Your cart is empty."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "what is in my cart")
            await open_runs(pilot)
            table = app.screen.query_one(DataTable)
            headers = [str(c.label) for c in table.columns.values()]
            assert headers[4:7] == ["first", "think/read/act/wait", "tokens"]
            recorded = list_runs(app.deps.state_dir)[0]["metrics"]
            row = [str(v) for v in table.get_row_at(0)]
            tokens = recorded["input_tokens"] + recorded["output_tokens"]
            assert tokens > 0 and row[6] == f"{tokens:,}"
            assert row[4] == f"{recorded['first_feedback_ms'] / 1000:.1f}s"
            await pilot.press("down", "up")  # the highlight moves: the panel follows it
            panel = static_text(app.screen.query_one("#run-metrics", Static))
            assert f"{recorded['steps']} steps" in panel and f"{tokens:,} tokens" in panel
            assert "first feedback" in panel and "thinking" in panel and "waiting" in panel

    async def test_the_run_viewer_shows_the_metrics_and_a_bar(self, tmp_path):
        model = ScriptedModel([Reply.call("toy_open", page="Cart"), "Opened."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "open the cart")
            await open_runs(pilot)
            await pilot.press("enter")
            await until(lambda: isinstance(app.screen, RunViewerScreen))
            await settle(pilot)
            shown = static_text(app.screen.query_one("#viewer-metrics", Static))
            assert "first feedback" in shown and "thinking" in shown and "tokens" in shown

    async def test_a_run_without_a_summary_folds_its_metrics_from_events(self, tmp_path):
        """A run killed before it wrote run.json's metrics still shows them."""
        from mika.atomic_write import read_json, write_json

        model = ScriptedModel([Reply.call("toy_open", page="Cart"), "Opened."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_end(pilot, "open the cart")
            run_id = scenes.view(pilot).run_id
            run_dir = find_run(app.deps.state_dir, run_id)
            summary = read_json(run_dir / "run.json", {})
            summary.pop("metrics")
            write_json(run_dir / "run.json", summary)
            folded = RunMetrics.of(read_events(run_dir))
            await open_runs(pilot)
            row = [str(v) for v in app.screen.query_one(DataTable).get_row_at(0)]
            assert row[2] == str(folded.steps) and folded.steps > 0
            assert row[6] == f"{folded.input_tokens + folded.output_tokens:,}" and row[6] != "0"
