"""Routes: the recorded routes (seed §9 经验回放) a run may replay instead of asking the
model, with each route's steps, and delete.

Routes are files under the state folder that a finishing run or `mika routes delete` may
change while this screen is open, so every action re-reads the store; a route gone in
between is said as a sentence. Goals, labels and arguments come from the user and from
phone screens: shown as text, never parsed as markup.
"""

from __future__ import annotations

import json
from datetime import datetime

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Static
from textual.widgets.data_table import CellDoesNotExist, RowDoesNotExist

from mika.replay.route import Route, RouteStep
from mika.replay.store import RouteNotFound, RouteStore
from mika_tui.plain import cell, plain
from mika_tui.screens.base import SubScreen
from mika_tui.screens.dialogs import ConfirmDialog

GOAL_CELL = 60


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def step_line(n: int, step: RouteStep) -> str:
    """One step as the route holds it: the tool, what it acts on, its arguments."""
    anchor = step.anchor.get("label") or step.anchor.get("desc") or step.anchor.get("resource_id") or ""
    args = json.dumps(step.args, ensure_ascii=False, sort_keys=True) if step.args else ""
    parts = [f"{n:>2}. {step.tool}"]
    if anchor:
        parts.append(f"“{anchor}”")
    if args:
        parts.append(args)
    if step.effect:
        parts.append(f"→ {step.effect}")
    return " ".join(parts)


class RoutesScreen(SubScreen):
    CSS_PATH = "plans.tcss"  # the same list-screen look as Plans
    BINDINGS = [
        Binding("d", "delete", "b_route_delete", id="routes.delete", tooltip="d_route_delete"),
        Binding("ctrl+r", "reload", "b_mem_reload", id="routes.reload", tooltip="b_mem_reload", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.routes: list[Route] = []

    @property
    def store(self) -> RouteStore:
        return RouteStore(self.mika.deps.state_dir)

    def compose(self) -> ComposeResult:
        tr = self.mika.tr
        with VerticalScroll():
            yield Static(tr("routes_title"), classes="title", id="routes-title")
            yield Static("", id="routes-message", classes="message")
            yield Static("", id="routes-note", classes="note")
            yield DataTable(id="routes-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="routes-steps", classes="detail")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        tr = self.mika.tr
        self.query_one("#routes-table", DataTable).add_columns(
            tr("col_route_goal"),
            tr("col_route_steps"),
            tr("col_route_params"),
            tr("col_route_uses"),
            tr("col_route_last"),
        )

    def on_screen_resume(self) -> None:
        # A run that just ended may have recorded or replayed a route.
        self.reload()

    def action_reload(self) -> None:
        self.say("")
        self.reload()

    def _when(self, ts: float) -> str:
        return datetime.fromtimestamp(ts, self.mika.deps.tz).strftime("%Y-%m-%d %H:%M") if ts else "—"

    def reload(self) -> None:
        tr = self.mika.tr
        table = self.query_one("#routes-table", DataTable)
        keep = self._row_key(table)
        table.clear()
        store = self.store
        try:
            self.routes = store.list()
        except OSError as exc:
            self.routes = []
            store.problems = [("routes", str(exc))]
        notes = [] if self.routes else [tr("routes_empty")]
        # A file that doesn't read as a route is skipped by the store; the user hears which.
        notes += [tr("routes_skipped", name=name, error=error) for name, error in store.problems]
        note = self.query_one("#routes-note", Static)
        note.update(plain("\n".join(notes)))
        note.display = bool(notes)
        for r in self.routes:
            params = ", ".join(f"{k}={v}" for k, v in r.params.items()) or "—"
            table.add_row(
                cell(_short(r.goal, GOAL_CELL)),
                cell(str(len(r.steps))),
                cell(_short(params, 30)),
                cell(str(r.uses)),
                cell(self._when(r.last_used)),
                key=r.id,
            )
        table.display = bool(self.routes)
        if keep is not None:
            try:
                table.move_cursor(row=table.get_row_index(keep))
            except RowDoesNotExist:
                pass
        self._show(self.current())

    @staticmethod
    def _row_key(table: DataTable) -> str | None:
        if table.row_count == 0:
            return None
        try:
            return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        except CellDoesNotExist:
            return None

    def current(self) -> Route | None:
        key = self._row_key(self.query_one("#routes-table", DataTable))
        return next((r for r in self.routes if r.id == key), None)

    def _show(self, route: Route | None) -> None:
        box = self.query_one("#routes-steps", Static)
        box.display = route is not None
        if route is None:
            box.update("")
            return
        tr = self.mika.tr
        head = tr("route_head", id=route.id, goal=route.goal, run=route.source_run or "—")
        lines = [head, *(step_line(i, s) for i, s in enumerate(route.steps, 1))]
        if route.answer:
            lines.append(tr("route_answer", answer=route.answer))
        box.update(plain("\n".join(lines)))

    @on(DataTable.RowHighlighted, "#routes-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(self.current())

    @on(DataTable.RowSelected, "#routes-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self._show(self.current())

    def say(self, text: str, *, error: bool = False) -> None:
        message = self.query_one("#routes-message", Static)
        message.update(plain(text))
        message.set_class(error, "-error")
        message.display = bool(text)

    def action_delete(self) -> None:
        tr = self.mika.tr
        route = self.current()
        if route is None:
            self.say(tr("routes_nothing_selected"), error=True)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(route)

        self.app.push_screen(
            ConfirmDialog(tr("route_delete_confirm", goal=_short(route.goal, 120)), tr, yes="route_delete_yes"),
            answered,
        )

    def _delete(self, route: Route) -> None:
        tr = self.mika.tr
        try:
            self.store.delete(route.id)
            self.say(tr("route_deleted", goal=_short(route.goal, 80)))
        except RouteNotFound:
            self.say(tr("route_gone", goal=_short(route.goal, 80)), error=True)
        except OSError as exc:
            self.say(tr("error_line", error=str(exc)), error=True)
        self.reload()
