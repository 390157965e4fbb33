"""Runs: past runs with outcome and metrics (first feedback, the thinking / reading /
acting / waiting split as a small bar, tokens, steps), and one run's timeline with its
frames. The metrics are the ones `mika runs list` shows (mika.record.shown_metrics): the
record's (run.json), folded from events.jsonl for a run that has not written them yet, timed
by the app's clock while it runs."""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Static

from mika.record.metrics_text import SPLIT, secs, split_bar, split_parts
from mika.record.recorder import find_run, list_runs, read_events
from mika.record.shown_metrics import needs_events, shown_metrics
from mika_tui.i18n import Tr
from mika_tui.plain import cell, plain, plain_line
from mika_tui.run_view import RunView, format_elapsed
from mika_tui.screens.base import SubScreen
from mika_tui.widgets.frame_view import FrameView
from mika_tui.widgets.timeline import Timeline

# The split's colours, in SPLIT's order; the characters differ too, for a terminal without colour.
_SPLIT_STYLES = ("bold magenta", "cyan", "green", "yellow")
BAR_CELLS = 12


def split_bar_text(metrics: dict, width: int = BAR_CELLS) -> Text:
    """The thinking / reading / acting / waiting split as a small coloured bar."""
    bar = split_bar(metrics, width)
    text = Text()
    for char in bar:
        index = next(i for i, (_, _, c) in enumerate(SPLIT) if c == char)
        text.append(char, style=_SPLIT_STYLES[index])
    return text


def metrics_text(metrics: dict, tr: Tr) -> str:
    """Two lines: first feedback, steps and tokens; then the split in seconds."""
    parts = dict(split_parts(metrics))
    inp, out = int(metrics.get("input_tokens") or 0), int(metrics.get("output_tokens") or 0)
    return "\n".join(
        (
            tr(
                "metrics_line",
                first=secs(metrics.get("first_feedback_ms")),
                steps=metrics.get("steps", 0),
                tokens=f"{inp + out:,}",
                inp=f"{inp:,}",
                out=f"{out:,}",
            ),
            tr(
                "metrics_split",
                think=secs(parts["thinking"]),
                read=secs(parts["reading"]),
                act=secs(parts["acting"]),
                wait=secs(parts["waiting"]),
            ),
        )
    )


def outcome_word(tr: Tr, outcome: str) -> str:
    """A run's outcome code in the user's language (an unknown code as it is)."""
    key = f"run_outcome_{outcome}"
    word = tr(key)
    return outcome if word == key else word


def _metrics_of(run: dict, now: float) -> dict:
    """`run` as `list_runs` gives it: run.json with its folder in "dir"."""
    return shown_metrics(run, read_events(Path(run["dir"])) if needs_events(run) else [], now=now)


class RunsScreen(SubScreen):
    CSS_PATH = "runs.tcss"

    def compose(self) -> ComposeResult:
        yield Static(self.mika.tr("runs_title"), classes="title")
        yield DataTable(id="runs-table", cursor_type="row")
        yield Static("", id="run-metrics")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        tr = self.mika.tr
        table = self.query_one(DataTable)
        keys = ("col_when", "col_outcome", "col_steps", "col_time", "col_first", "col_split", "col_tokens", "col_goal")
        table.add_columns(*(tr(k) for k in keys))
        runs = list_runs(self.mika.deps.state_dir)
        self.metrics: dict[str, dict] = {}
        for r in runs:
            m = _metrics_of(r, self.mika.deps.clock())
            self.metrics[str(r.get("id", ""))] = m
            tokens = int(m.get("input_tokens") or 0) + int(m.get("output_tokens") or 0)
            when = (
                time.strftime("%m-%d %H:%M", time.gmtime(float(r.get("started_at") or 0)))
                if r.get("started_at")
                else "?"
            )
            table.add_row(
                when,
                cell(outcome_word(tr, str(r.get("outcome", r.get("state", "?"))))),
                str(m.get("steps", 0)),
                format_elapsed((m.get("total_ms") or 0) / 1000),
                secs(m.get("first_feedback_ms")),
                split_bar_text(m),
                f"{tokens:,}",
                cell(str(r.get("goal", ""))[:60]),
                key=str(r.get("id", "")),
            )
        if not runs:
            table.add_row("", tr("runs_none"), "", "", "", "", "", "")

    @on(DataTable.RowHighlighted)
    def show_metrics(self, event: DataTable.RowHighlighted) -> None:
        m = self.metrics.get(str(event.row_key.value or ""), {})
        self.query_one("#run-metrics", Static).update(plain(metrics_text(m, self.mika.tr)) if m else "")

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
        yield Static("", id="viewer-metrics")
        with Horizontal(id="viewer-body"):
            yield Timeline(title=tr("timeline_title"), empty=tr("timeline_empty"), wait_label=tr("timeline_wait"))
            yield FrameView(None, id="viewer-frame", empty=tr("viewer_no_frame"))
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        from mika.atomic_write import read_json

        tr = self.mika.tr
        run_dir = find_run(self.mika.deps.state_dir, self.run_id)
        events: list[dict] = []
        if run_dir is not None:
            self.summary = read_json(run_dir / "run.json", {}) or {}
            events = read_events(run_dir)
            for event in events:
                self.view.apply(event)
        self.query_one("#viewer-title", Static).update(
            plain_line(
                tr(
                    "run_viewer",
                    id=self.run_id,
                    outcome=outcome_word(tr, str(self.summary.get("outcome", self.view.status or "?"))),
                    goal=self.summary.get("goal", self.view.goal),
                )
            )
        )
        m = shown_metrics(self.summary, events, now=self.mika.deps.clock())
        if m:
            bar = split_bar_text(m, 24)
            self.query_one("#viewer-metrics", Static).update(
                Text.assemble(Text(metrics_text(m, tr)), "  ", bar) if bar else Text(metrics_text(m, tr))
            )
        timeline = self.query_one(Timeline)
        timeline.set_steps(self.view.steps)
        timeline.focus()
        # The cursor starts on the last step, lit, and the frame is that step's.
        self.call_after_refresh(timeline.move_cursor, len(self.view.steps) - 1)
        self._show_frame(len(self.view.steps) - 1)

    def _show_frame(self, index: int) -> None:
        frames = [s.frame for s in self.view.steps[: index + 1] if s.frame]
        # The last frame at or before the step: what the screen looked like then.
        self.query_one(FrameView).show(self.mika.frame_bytes(self.run_id, frames[-1]) if frames else None)

    def on_timeline_cursor_moved(self, message: Timeline.CursorMoved) -> None:
        # The frame follows the cursor once it has moved (never on a key that moved nothing).
        self._show_frame(message.index)
