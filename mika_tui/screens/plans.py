"""Plans: the schedules (reminders, scheduled tasks, conditions) grouped active / paused,
with pause/resume, delete and run now.

The schedules file is shared with `mika serve` and `mika schedule` (mika.trigger.store),
which may change it while this screen is open, so every action re-reads the store and a
schedule that vanished in between is said as a sentence. This screen never runs a
schedule itself: "run now" asks `mika serve` to (the store's `run_now` request). Goals
and results are the user's and a model's text: shown as text, never parsed as markup.
"""

from __future__ import annotations

from datetime import datetime

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Static
from textual.widgets.data_table import CellDoesNotExist, RowDoesNotExist

from mika.trigger.definition import WEEKDAYS, Timing, TimingKind, TriggerStatus, format_duration
from mika.trigger.store import TriggerNotFound, TriggerStore
from mika_tui.i18n import Tr
from mika_tui.plain import cell, markup, plain
from mika_tui.screens.base import SubScreen
from mika_tui.screens.dialogs import ConfirmDialog

GOAL_CELL = 50
RESULT_CELL = 40
TABLES = ("#plans-active", "#plans-paused")


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def timing_words(timing: Timing, tr: Tr, local: datetime | None) -> str:
    """When it runs, as a person says it (`every 15m`, `Mon, Fri at 07:30`), in the UI's
    language; a one-off's time is shown in the app's zone (`local`, worked out by the caller)."""
    zone = f" ({timing.zone})" if timing.zone else ""
    if timing.kind is TimingKind.AT:
        return tr("plan_at", when=local.strftime("%Y-%m-%d %H:%M") if local else "—")
    if timing.kind is TimingKind.EVERY:
        return tr("plan_every", span=format_duration(timing.every_s))
    clock = f"{timing.hour:02d}:{timing.minute:02d}"
    if not timing.weekdays or len(timing.weekdays) == 7:
        return tr("plan_daily", time=clock) + zone
    days = tr("plan_day_sep").join(tr(f"plan_day_{WEEKDAYS[d]}") for d in sorted(timing.weekdays))
    return tr("plan_weekly", days=days, time=clock) + zone


class PlansScreen(SubScreen):
    CSS_PATH = "plans.tcss"
    BINDINGS = [
        Binding("p", "toggle_pause", "b_plan_pause", id="plans.pause", tooltip="d_plan_pause"),
        Binding("r", "run_now", "b_plan_run", id="plans.run", tooltip="d_plan_run"),
        Binding("d", "delete", "b_plan_delete", id="plans.delete", tooltip="d_plan_delete"),
        Binding("ctrl+r", "reload", "b_mem_reload", id="plans.reload", tooltip="b_mem_reload", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.schedules: list[TriggerStatus] = []

    @property
    def store(self) -> TriggerStore:
        # The app's state folder (a test's, or MIKA_STATE_DIR / XDG_STATE_HOME): never a global.
        return TriggerStore(self.mika.deps.state_dir)

    # -- layout -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        tr = self.mika.tr
        with VerticalScroll():
            yield Static(tr("plans_title"), classes="title", id="plans-title")
            yield Static("", id="plans-message", classes="message")
            yield Static("", id="plans-note", classes="note")
            yield Static(tr("plans_active"), classes="section", id="plans-active-title")
            yield DataTable(id="plans-active", cursor_type="row", zebra_stripes=True)
            yield Static(tr("plans_paused"), classes="section", id="plans-paused-title")
            yield DataTable(id="plans-paused", cursor_type="row", zebra_stripes=True)
            yield Static("", id="plans-detail", classes="detail")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        tr = self.mika.tr
        for selector in TABLES:
            self.query_one(selector, DataTable).add_columns(
                tr("col_plan_kind"), tr("col_plan_goal"), tr("col_plan_when"), tr("col_plan_next"), tr("col_plan_last")
            )

    def on_screen_resume(self) -> None:
        # Refresh on show: `mika serve` may have run one, `mika schedule add` made one.
        self.reload()

    def action_reload(self) -> None:
        self.say("")
        self.reload()

    # -- filling ------------------------------------------------------------------------

    def _local(self, moment: datetime | None) -> datetime | None:
        return moment.astimezone(self.mika.deps.tz) if moment else None

    def _stamp(self, ts: float) -> str:
        return datetime.fromtimestamp(ts, self.mika.deps.tz).strftime("%m-%d %H:%M") if ts else ""

    def reload(self) -> None:
        tr = self.mika.tr
        note = self.query_one("#plans-note", Static)
        try:
            self.schedules = self.store.list()
        except (OSError, ValueError) as exc:  # an unreadable file: said, the file left alone
            self.schedules = []
            note.update(plain(tr("plans_unreadable", error=str(exc))))
            note.display = True
            self._fill([])
            return
        note.update(plain(tr("plans_empty")) if not self.schedules else "")
        note.display = not self.schedules
        self._fill(self.schedules)

    def _fill(self, schedules: list[TriggerStatus]) -> None:
        groups = {
            "#plans-active": [s for s in schedules if not s.paused],
            "#plans-paused": [s for s in schedules if s.paused],
        }
        for selector, rows in groups.items():
            table = self.query_one(selector, DataTable)
            keep = self._row_key(table)
            table.clear()
            for s in rows:
                table.add_row(*self._cells(s), key=s.id)
            self._restore_cursor(table, keep)
            table.display = bool(rows)
            self.query_one(f"{selector}-title", Static).display = bool(rows)
        self._show(self.current())

    def _cells(self, s: TriggerStatus) -> tuple[object, ...]:
        tr = self.mika.tr
        t = s.trigger
        if s.paused:
            next_time = tr("plan_next_paused")
        elif s.finished:
            next_time = tr("plan_next_none")
        else:
            local = self._local(s.next_due)
            next_time = local.strftime("%Y-%m-%d %H:%M") if local else "—"
        last = "—"
        if s.last_result:
            last = f"{self._stamp(s.last_result_at)} {_short(s.last_result, RESULT_CELL)}".strip()
        return (
            cell(tr(f"plan_kind_{t.kind.value}")),
            cell(_short(t.goal, GOAL_CELL)),
            cell(timing_words(t.timing, tr, self._local(t.timing.at))),
            cell(next_time),
            cell(last),
        )

    @staticmethod
    def _row_key(table: DataTable) -> str | None:
        if table.row_count == 0:
            return None
        try:
            return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        except CellDoesNotExist:
            return None

    @staticmethod
    def _restore_cursor(table: DataTable, key: str | None) -> None:
        if key is None:
            return
        try:
            table.move_cursor(row=table.get_row_index(key))
        except RowDoesNotExist:  # gone (deleted, or moved to the other group): the cursor stays near
            pass

    # -- selection ----------------------------------------------------------------------

    def _table(self) -> DataTable | None:
        """The group the user is in: the focused table, else the first one with rows."""
        focused = self.focused
        if isinstance(focused, DataTable) and f"#{focused.id}" in TABLES and focused.row_count:
            return focused
        for selector in TABLES:
            table = self.query_one(selector, DataTable)
            if table.row_count:
                return table
        return None

    def current(self) -> TriggerStatus | None:
        table = self._table()
        key = self._row_key(table) if table is not None else None
        return next((s for s in self.schedules if s.id == key), None)

    def _show(self, s: TriggerStatus | None) -> None:
        detail = self.query_one("#plans-detail", Static)
        detail.display = s is not None
        if s is None:
            detail.update("")
            return
        t = s.trigger
        detail.update(
            markup(
                self.mika.tr("plan_detail_markup"),
                id=t.id,
                goal=t.goal,
                condition=t.condition or "—",
                conversation=t.conversation_id or "—",
                result=s.last_result or "—",
            )
        )

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.has_focus:
            self._show(self.current())

    # -- actions ------------------------------------------------------------------------

    def say(self, text: str, *, error: bool = False) -> None:
        message = self.query_one("#plans-message", Static)
        message.update(plain(text))
        message.set_class(error, "-error")
        message.display = bool(text)

    def _picked(self) -> TriggerStatus | None:
        s = self.current()
        if s is None:
            self.say(self.mika.tr("plans_nothing_selected"), error=True)
        return s

    def _gone(self, s: TriggerStatus) -> None:
        self.say(self.mika.tr("plan_gone", goal=_short(s.trigger.goal, 80)), error=True)

    def action_toggle_pause(self) -> None:
        s = self._picked()
        if s is None:
            return
        tr, goal = self.mika.tr, _short(s.trigger.goal, 80)
        try:
            # What the file says now, not what the list said: another Mika may have paused it.
            if self.store.get(s.id).paused:
                self.store.resume(s.id)
                self.say(tr("plan_resumed", goal=goal))
            else:
                self.store.pause(s.id)
                self.say(tr("plan_paused", goal=goal))
        except TriggerNotFound:
            self._gone(s)
        except (OSError, ValueError) as exc:
            self.say(tr("error_line", error=str(exc)), error=True)
        self.reload()

    def action_run_now(self) -> None:
        s = self._picked()
        if s is None:
            return
        tr = self.mika.tr
        try:
            self.store.request_run(s.id)
            self.say(tr("plan_run_queued", goal=_short(s.trigger.goal, 80)))
        except TriggerNotFound:
            self._gone(s)
        except (OSError, ValueError) as exc:
            self.say(tr("error_line", error=str(exc)), error=True)
        self.reload()

    def action_delete(self) -> None:
        s = self._picked()
        if s is None:
            return
        tr = self.mika.tr

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(s)

        self.app.push_screen(
            ConfirmDialog(tr("plan_delete_confirm", goal=_short(s.trigger.goal, 120)), tr, yes="plan_delete_yes"),
            answered,
        )

    def _delete(self, s: TriggerStatus) -> None:
        tr = self.mika.tr
        try:
            if self.store.delete(s.id):
                self.say(tr("plan_deleted", goal=_short(s.trigger.goal, 80)))
            else:
                self._gone(s)
        except (OSError, ValueError) as exc:
            self.say(tr("error_line", error=str(exc)), error=True)
        self.reload()
