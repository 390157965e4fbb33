"""Usage: totals for 24 h / 7 d / 30 d / 90 d, tokens per day stacked by provider, and
rankings per provider and per model — all read from the usage ledger."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Static

from mika.terminal_text import one_line
from mika.usage.ledger import UsageLedger
from mika.usage.query import UsageReport, local_zone, parse_range, summarize
from mika_tui.plain import cell, plain
from mika_tui.screens.base import SubScreen

RANGES = ("24h", "7d", "30d", "90d")
# Theme-independent series colours for the bars (the chart's legend names them).
SERIES = ("#5E81AC", "#A3BE8C", "#EBCB8B", "#B48EAD", "#D08770", "#88C0D0")
BAR_HEIGHT = 8


def stacked_chart(report: UsageReport, tz, width_per_bar: int = 5) -> Text:
    """Columns of day totals, each split by provider, with a legend."""
    providers = [p for p, _ in report.by_provider]
    colour = {p: SERIES[i % len(SERIES)] for i, p in enumerate(providers)}
    peak = max((b.total.tokens for b in report.buckets), default=0)
    text = Text()
    if peak == 0:
        return text
    columns: list[list[str | None]] = []
    for bucket in report.buckets:
        cells: list[str | None] = []
        for p in providers:
            t = bucket.by_provider.get(p)
            if t is not None and t.tokens:
                cells += [p] * max(1, round(t.tokens / peak * BAR_HEIGHT))
        columns.append((cells + [None] * BAR_HEIGHT)[:BAR_HEIGHT])
    for level in range(BAR_HEIGHT - 1, -1, -1):
        for col in columns:
            cell = col[level]
            text.append(
                "█" * (width_per_bar - 1) if cell else " " * (width_per_bar - 1),
                style=colour.get(cell, "") if cell else "",
            )
            text.append(" ")
        text.append("\n")
    for bucket in report.buckets:
        label = datetime.fromtimestamp(bucket.start, tz).strftime("%d")
        text.append(f"{label:<{width_per_bar}}"[:width_per_bar], style="dim")
    text.append("\n")
    for p in providers:
        text.append("█ ", style=colour[p])
        text.append(f"{one_line(p)}   ")  # a provider name from the ledger: text, no controls
    return text


class UsageScreen(SubScreen):
    CSS_PATH = "usage.tcss"

    def compose(self) -> ComposeResult:
        tr = self.mika.tr
        with VerticalScroll():
            yield Static(tr("usage_title"), classes="title")
            yield DataTable(id="totals", cursor_type="none")
            yield Static(tr("usage_chart"), classes="title")
            yield Static("", id="chart")
            with Horizontal():
                with Vertical():
                    yield Static(tr("by_provider"), classes="title")
                    yield DataTable(id="by-provider", cursor_type="none")
                with Vertical():
                    yield Static(tr("by_model"), classes="title")
                    yield DataTable(id="by-model", cursor_type="none")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        tr = self.mika.tr
        deps = self.mika.deps
        tz = deps.tz or local_zone()
        now = datetime.fromtimestamp(deps.clock(), tz)
        try:
            rows = UsageLedger(deps.state_dir / "usage-v1.json", clock=deps.clock).rows()
        except (ValueError, OSError) as exc:  # an unreadable ledger is set aside by the ledger itself
            self.query_one("#chart", Static).update(plain(tr("error_line", error=str(exc))))
            return
        cols = ("col_input", "col_output", "col_cached", "col_calls")
        totals = self.query_one("#totals", DataTable)
        totals.add_columns(tr("col_range"), *(tr(c) for c in cols))
        reports = {r: summarize(rows, parse_range(r, now, tz)) for r in RANGES}
        for name, report in reports.items():
            t = report.total
            totals.add_row(name, f"{t.input:,}", f"{t.output:,}", f"{t.cached:,}", f"{t.calls:,}")
        week = reports["7d"]
        chart = stacked_chart(week, tz)
        self.query_one("#chart", Static).update(chart if chart.plain else tr("usage_none"))
        month = reports["30d"]
        by_p = self.query_one("#by-provider", DataTable)
        by_p.add_columns(tr("col_provider"), tr("col_input"), tr("col_output"), tr("col_calls"))
        for p, t in month.by_provider:
            by_p.add_row(cell(p), f"{t.input:,}", f"{t.output:,}", f"{t.calls:,}")
        by_m = self.query_one("#by-model", DataTable)
        by_m.add_columns(tr("model_name"), tr("col_input"), tr("col_output"), tr("col_calls"))
        for p, m, t in month.by_model:
            by_m.add_row(cell(f"{p}/{m}"), f"{t.input:,}", f"{t.output:,}", f"{t.calls:,}")
