"""Memory & skills: what Mika remembers about the user (forget, approve a procedure) and
the skills it drafted from good runs (accept, reject), with the learned skills' status.

Both stores are files another Mika process (the CLI, a finishing run) may change while
this screen is open, so every action re-reads them and a row that vanished in between is
said as a sentence, never a traceback. The rows are the user's own words and a model's
draft text: they are shown as text (`mika_tui.plain`), never parsed as markup.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Static
from textual.widgets.data_table import CellDoesNotExist, RowDoesNotExist

from mika.knowledge.learning.drafts import DraftError, LearnedSkill, SkillDraft, SkillDrafts, learned_skills_dir
from mika.memory.store import MemoryFileError, MemoryItem, MemoryKind, MemoryRefused, MemoryStatus, MemoryStore
from mika_tui.plain import cell, markup, plain
from mika_tui.screens.base import SubScreen
from mika_tui.screens.dialogs import ConfirmDialog

TEXT_CELL = 70  # the table shows the start of an item; the detail line below shows all of it
DESCRIPTION_CELL = 60


def memory_order(items: list[MemoryItem]) -> list[MemoryItem]:
    """Procedures waiting for approval first (they do nothing until approved), then newest first."""
    waiting = [i for i in items if i.status is MemoryStatus.PENDING]
    rest = [i for i in items if i.status is not MemoryStatus.PENDING]
    newest = lambda i: -i.created_at  # noqa: E731
    return sorted(waiting, key=newest) + sorted(rest, key=newest)


def _gone(item: MemoryItem | None) -> bool:
    """Forgotten (a tombstone) or erased from the file by another Mika since the list was read."""
    return item is None or item.status is MemoryStatus.FORGOTTEN


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class MemoryScreen(SubScreen):
    CSS_PATH = "memory.tcss"
    BINDINGS = [
        Binding("f", "forget", "b_mem_forget", id="memory.forget", tooltip="b_mem_forget"),
        Binding("a", "approve", "b_mem_approve", id="memory.approve", tooltip="b_mem_approve"),
        Binding("y", "accept_draft", "b_draft_accept", id="memory.accept", tooltip="b_draft_accept"),
        Binding("n", "reject_draft", "b_draft_reject", id="memory.reject", tooltip="b_draft_reject"),
        Binding("ctrl+r", "reload", "b_mem_reload", id="memory.reload", tooltip="b_mem_reload", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.items: list[MemoryItem] = []
        self.drafts: list[SkillDraft] = []
        self.learned: list[LearnedSkill] = []

    # -- the stores ---------------------------------------------------------------------

    @property
    def store(self) -> MemoryStore:
        # The app's state folder (MIKA_STATE_DIR / XDG_STATE_HOME, or a test's), not a global.
        return MemoryStore(self.mika.deps.state_dir / "memory.jsonl")

    @property
    def skill_drafts(self) -> SkillDrafts:
        return SkillDrafts(self.mika.deps.state_dir / "skill_drafts", learned_skills_dir())

    def memory_on(self) -> bool:
        # `[memory] use`: off, runs neither read nor save memory; what is kept is still listed
        # here so the user can forget it.
        return self.mika.deps.settings.memory_use

    # -- layout -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        tr = self.mika.tr
        with VerticalScroll():
            yield Static(tr("memory_title"), classes="title", id="memory-title")
            yield Static("", id="memory-message", classes="message")
            yield Static(tr("memory_section"), classes="section")
            yield Static("", id="memory-note", classes="note")
            yield DataTable(id="memory-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="memory-detail", classes="detail")
            yield Static(tr("drafts_section"), classes="section")
            yield Static("", id="drafts-note", classes="note")
            yield DataTable(id="drafts-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="draft-body", classes="detail")
            yield Static(tr("learned_section"), classes="section")
            yield DataTable(id="learned-table", cursor_type="none")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        tr = self.mika.tr
        self.query_one("#memory-table", DataTable).add_columns(
            tr("col_mem_kind"), tr("col_mem_text"), tr("col_mem_status"), tr("col_when")
        )
        self.query_one("#drafts-table", DataTable).add_columns(
            tr("col_skill_name"), tr("col_skill_description"), tr("col_draft_from")
        )
        self.query_one("#learned-table", DataTable).add_columns(
            tr("col_skill_name"), tr("col_mem_status"), tr("col_skill_uses"), tr("col_skill_description")
        )

    def on_screen_resume(self) -> None:
        # Refresh on show: a run that just ended may have saved an item or drafted a skill.
        self.reload()

    def action_reload(self) -> None:
        self.say("")
        self.reload()

    # -- filling ------------------------------------------------------------------------

    def reload(self) -> None:
        self._load_memory()
        self._load_skills()

    def _when(self, ts: float) -> str:
        if not ts:
            return ""
        return datetime.fromtimestamp(ts, self.mika.deps.tz).strftime("%Y-%m-%d %H:%M")

    def _load_memory(self) -> None:
        tr = self.mika.tr
        table = self.query_one("#memory-table", DataTable)
        keep = self._row_key(table)
        table.clear()
        note = self.query_one("#memory-note", Static)
        try:
            self.items = memory_order(self.store.items())
        except MemoryFileError as exc:
            self.items = []
            note.update(plain(tr("memory_unreadable", error=str(exc))))
            self._show_item(None)
            return
        notes = [] if self.memory_on() else [tr("memory_off")]
        if not self.items:
            notes.append(tr("memory_empty"))
        note.update(plain("\n".join(notes)))
        note.display = bool(notes)
        for item in self.items:
            table.add_row(
                cell(tr(f"mem_kind_{item.kind.value}")),
                cell(_short(item.text, TEXT_CELL)),
                self._status_cell(item),
                self._when(item.created_at),
                key=item.id,
            )
        self._restore_cursor(table, keep)
        self._show_item(self.current_item())

    def _status_cell(self, item: MemoryItem) -> Text:
        tr = self.mika.tr
        if item.status is MemoryStatus.PENDING:
            # Marked so it can't be missed: a procedure does nothing until the user approves it.
            return Text(f"● {tr('mem_status_pending')}", style="bold reverse")
        return Text(tr(f"mem_status_{item.status.value}"))

    def _load_skills(self) -> None:
        tr = self.mika.tr
        drafts_table = self.query_one("#drafts-table", DataTable)
        learned_table = self.query_one("#learned-table", DataTable)
        keep = self._row_key(drafts_table)
        drafts_table.clear()
        learned_table.clear()
        note = self.query_one("#drafts-note", Static)
        try:
            store = self.skill_drafts
            self.drafts = sorted(store.pending(), key=lambda d: -d.created_at)
            self.learned = store.learned()
        except DraftError as exc:
            self.drafts, self.learned = [], []
            note.update(plain(tr("drafts_unreadable", error=str(exc))))
            note.display = True
            self.query_one("#draft-body", Static).update("")
            return
        note.update(plain(tr("drafts_empty")) if not self.drafts else "")
        note.display = not self.drafts
        for d in self.drafts:
            origin = " · ".join(p for p in (d.run_id, _short(d.goal, 40)) if p)
            drafts_table.add_row(cell(d.name), cell(_short(d.description, DESCRIPTION_CELL)), cell(origin), key=d.name)
        self._restore_cursor(drafts_table, keep)
        if self.current_draft() is None:
            self.query_one("#draft-body", Static).update("")
        order = {"trial": 0, "active": 1, "retired": 2}
        for s in sorted(self.learned, key=lambda s: (order.get(s.status, 3), s.name)):
            learned_table.add_row(
                cell(s.name),
                cell(tr(f"skill_status_{s.status}") if s.status in order else s.status),
                cell(" ".join(s.outcomes) or "—"),
                cell(_short(s.description, DESCRIPTION_CELL)),
                key=s.name,
            )
        if not self.learned:
            learned_table.add_row("", cell(tr("learned_none")), "", "")

    @staticmethod
    def _row_key(table: DataTable) -> str | None:
        if table.row_count == 0:
            return None
        try:
            return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        except CellDoesNotExist:  # no cursor row yet: start at the top
            return None

    @staticmethod
    def _restore_cursor(table: DataTable, key: str | None) -> None:
        if key is None:
            return
        try:
            table.move_cursor(row=table.get_row_index(key))
        except RowDoesNotExist:  # the row is gone (forgotten, accepted): the cursor stays near
            pass

    # -- selection ----------------------------------------------------------------------

    def current_item(self) -> MemoryItem | None:
        table = self.query_one("#memory-table", DataTable)
        key = self._row_key(table)
        return next((i for i in self.items if i.id == key), None)

    def current_draft(self) -> SkillDraft | None:
        table = self.query_one("#drafts-table", DataTable)
        key = self._row_key(table)
        return next((d for d in self.drafts if d.name == key), None)

    def _show_item(self, item: MemoryItem | None) -> None:
        detail = self.query_one("#memory-detail", Static)
        if item is None:
            detail.update("")
            detail.display = False
            return
        detail.display = True
        tr = self.mika.tr
        detail.update(
            markup(
                tr("memory_detail_markup"),
                id=item.id,
                text=item.text,
                words=item.source_words or "—",
                conversation=item.conversation_id or "—",
            )
        )

    @on(DataTable.RowHighlighted, "#memory-table")
    def _item_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_item(self.current_item())

    @on(DataTable.RowSelected, "#memory-table")
    def _item_selected(self, event: DataTable.RowSelected) -> None:
        self._show_item(self.current_item())

    @on(DataTable.RowSelected, "#drafts-table")
    def _draft_selected(self, event: DataTable.RowSelected) -> None:
        draft = self.current_draft()
        body = self.query_one("#draft-body", Static)
        if draft is None:
            body.update("")
            return
        body.update(
            markup(
                self.mika.tr("draft_body_markup"),
                name=draft.name,
                description=draft.description,
                goal=draft.goal or "—",
                run=draft.run_id or "—",
                body=draft.body,
            )
        )

    # -- actions ------------------------------------------------------------------------

    def say(self, text: str, *, error: bool = False) -> None:
        message = self.query_one("#memory-message", Static)
        message.update(plain(text))
        message.set_class(error, "-error")
        message.display = bool(text)

    def action_forget(self) -> None:
        tr = self.mika.tr
        item = self.current_item()
        if item is None:
            self.say(tr("memory_nothing_selected"), error=True)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._forget(item)

        self.app.push_screen(
            ConfirmDialog(tr("memory_forget_confirm", text=_short(item.text, 120)), tr, yes="memory_forget_yes"),
            answered,
        )

    def _forget(self, item: MemoryItem) -> None:
        tr = self.mika.tr
        store = self.store
        try:
            if _gone(store.get(item.id)):
                self.say(tr("memory_gone", text=_short(item.text, 80)), error=True)
            else:
                store.forget(item.id)
                self.say(tr("memory_forgotten", text=_short(item.text, 80)))
        except (MemoryFileError, MemoryRefused, KeyError, OSError) as exc:  # KeyError: MemoryNotFound
            self._said_store_error(item, exc)
        self._load_memory()

    def action_approve(self) -> None:
        tr = self.mika.tr
        item = self.current_item()
        if item is None:
            self.say(tr("memory_nothing_selected"), error=True)
            return
        if item.status is not MemoryStatus.PENDING or item.kind is not MemoryKind.PROCEDURE:
            self.say(tr("memory_not_pending"), error=True)
            return
        store = self.store
        try:
            if _gone(store.get(item.id)):
                self.say(tr("memory_gone", text=_short(item.text, 80)), error=True)
            else:
                store.approve(item.id)
                self.say(tr("memory_approved", text=_short(item.text, 80)))
        except (MemoryFileError, MemoryRefused, KeyError, OSError) as exc:
            self._said_store_error(item, exc)
        self._load_memory()

    def _said_store_error(self, item: MemoryItem, exc: Exception) -> None:
        tr = self.mika.tr
        # Not found, or forgotten by another process in between: the same sentence for both.
        if isinstance(exc, KeyError) or (isinstance(exc, MemoryRefused) and exc.code == "forgotten"):
            self.say(tr("memory_gone", text=_short(item.text, 80)), error=True)
        else:
            self.say(tr("error_line", error=str(exc)), error=True)

    def action_accept_draft(self) -> None:
        self._decide_draft(accept=True)

    def action_reject_draft(self) -> None:
        self._decide_draft(accept=False)

    def _decide_draft(self, *, accept: bool) -> None:
        tr = self.mika.tr
        draft = self.current_draft()
        if draft is None:
            self.say(tr("drafts_nothing_selected"), error=True)
            return
        store = self.skill_drafts
        try:
            if accept:
                store.accept(draft.name)
                self.say(tr("draft_accepted", name=draft.name))
            else:
                store.reject(draft.name)
                self.say(tr("draft_rejected", name=draft.name))
        except DraftError as exc:
            try:
                still_waiting = any(d.name == draft.name for d in store.pending())
            except DraftError:
                still_waiting = True
            # Gone meanwhile (the CLI accepted or rejected it): our sentence, in the user's language.
            self.say(
                tr("draft_gone", name=draft.name) if not still_waiting else tr("error_line", error=str(exc)), error=True
            )
        except OSError as exc:
            self.say(tr("error_line", error=str(exc)), error=True)
        self.query_one("#draft-body", Static).update("")
        self._load_skills()
