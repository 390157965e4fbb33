"""Runs: past runs with outcome and metrics, and one run's timeline with its frames."""

from __future__ import annotations

import time

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Static

from mika.record.recorder import find_run, list_runs, read_events
from mika_tui.plain import cell, plain_line
from mika_tui.run_view import RunView, format_elapsed
from mika_tui.screens.base import SubScreen
from mika_tui.widgets.frame_view import FrameView
from mika_tui.widgets.timeline import Timeline


class RunsScreen(SubScreen):
    CSS_PATH = "runs.tcss"

    def compose(self) -> ComposeResult:
        yield Static(self.mika.tr("runs_title"), classes="title")
        yield DataTable(id="runs-table", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        tr = self.mika.tr
        table = self.query_one(DataTable)
        table.add_columns(*(tr(k) for k in ("col_when", "col_outcome", "col_steps", "col_time", "col_goal")))
        runs = list_runs(self.mika.deps.state_dir)
        for r in runs:
            m = r.get("metrics", {}) or {}
            when = (
                time.strftime("%m-%d %H:%M", time.gmtime(float(r.get("started_at") or 0)))
                if r.get("started_at")
                else "?"
            )
            table.add_row(
                when,
                cell(r.get("outcome", r.get("state", "?"))),
                str(m.get("steps", 0)),
                format_elapsed((m.get("total_ms") or 0) / 1000),
                cell(str(r.get("goal", ""))[:60]),
                key=str(r.get("id", "")),
            )
        if not runs:
            table.add_row("", tr("runs_none"), "", "", "")

    @on(DataTable.RowSelected)
    def open(self, event: DataTable.RowSelected) -> None:
        run_id = str(event.row_key.value or "")
        if run_id:
            self.mika.open_run(run_id)


class RunViewerScreen(SubScreen):
    CSS_PATH = "runs.tcss"

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id
        self.view = RunView(run_id)
        self.summary: dict = {}

    def compose(self) -> ComposeResult:
        tr = self.mika.tr
        yield Static("", id="viewer-title", classes="title")
        with Horizontal(id="viewer-body"):
            yield Timeline(title=tr("timeline_title"), empty=tr("timeline_empty"), wait_label=tr("timeline_wait"))
            yield FrameView(None, id="viewer-frame")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        from mika.atomic_write import read_json

        tr = self.mika.tr
        run_dir = find_run(self.mika.deps.state_dir, self.run_id)
        if run_dir is not None:
            self.summary = read_json(run_dir / "run.json", {}) or {}
            for event in read_events(run_dir):
                self.view.apply(event)
        self.query_one("#viewer-title", Static).update(
            plain_line(
                tr(
                    "run_viewer",
                    id=self.run_id,
                    outcome=self.summary.get("outcome", self.view.status or "?"),
                    goal=self.summary.get("goal", self.view.goal),
                )
            )
        )
        timeline = self.query_one(Timeline)
        timeline.set_steps(self.view.steps)
        timeline.focus()
        self._show_frame(len(self.view.steps) - 1)

    def _show_frame(self, index: int) -> None:
        frames = [s.frame for s in self.view.steps[: index + 1] if s.frame]
        # The last frame at or before the step: what the screen looked like then.
        self.query_one(FrameView).show(self.mika.frame_bytes(self.run_id, frames[-1]) if frames else None)

    def on_key(self) -> None:
        self.call_after_refresh(lambda: self._show_frame(self.query_one(Timeline).cursor))
