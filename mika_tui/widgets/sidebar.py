"""Conversations: in progress, pinned, recent. Choosing one opens it in the chat.

Keyboard first: the list takes focus when the sidebar opens, Up/Down move the highlight,
Enter opens the highlighted conversation, `/` narrows the list by title, Esc closes.
Each title carries when it last changed, so three "Buy one Green Tea" are told apart.
"""

from __future__ import annotations

from datetime import datetime, tzinfo

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from mika.run.conversations import ConversationSummary
from mika_tui.i18n import Tr
from mika_tui.plain import plain_line


def when_label(at: float, now: float, tz: tzinfo | None) -> str:
    """Today "14:05", any other day "12-01 14:05" (in the user's zone)."""
    if not at:
        return ""
    moment = datetime.fromtimestamp(at, tz)
    today = datetime.fromtimestamp(now, tz).date()
    return moment.strftime("%H:%M") if moment.date() == today else moment.strftime("%m-%d %H:%M")


class ConversationList(Vertical):
    DEFAULT_CSS = """
    ConversationList { width: 37; border-right: vkey $panel-lighten-2; height: 1fr; }
    ConversationList .title { text-style: bold; padding: 0 1; }
    ConversationList OptionList { height: 1fr; border: none; }
    ConversationList OptionList:focus { border: tall $accent; }
    ConversationList #conv-search { display: none; border: none; height: 1; padding: 0 1; }
    ConversationList.-searching #conv-search { display: block; }
    """
    BINDINGS = [
        Binding("slash", "search", "conv_search", id="sidebar.search", tooltip="conv_search"),
        Binding("escape", "close", "conv_close", id="sidebar.close", tooltip="conv_close"),
    ]

    class Chosen(Message):
        def __init__(self, conversation_id: str) -> None:
            super().__init__()
            self.conversation_id = conversation_id

    class Closed(Message):
        """Esc on the list: the screen closes the sidebar and gives the input its focus back."""

    def __init__(self, tr: Tr, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tr = tr
        self.summaries: list[ConversationSummary] = []
        self._running_ids: set[str] = set()  # not `_running`: Textual's MessagePump owns that name
        self._current = ""
        self._now = 0.0
        self._tz: tzinfo | None = None

    def compose(self) -> ComposeResult:
        yield Static(self.tr("conversations"), classes="title")
        yield Input(placeholder=self.tr("conv_search_placeholder"), id="conv-search")
        yield OptionList(id="conv-options")

    @property
    def options(self) -> OptionList:
        return self.query_one("#conv-options", OptionList)

    @property
    def query_text(self) -> str:
        return self.query_one("#conv-search", Input).value.strip().casefold() if self.has_class("-searching") else ""

    def show(
        self,
        summaries: list[ConversationSummary],
        running: set[str],
        current: str,
        *,
        now: float = 0.0,
        tz: tzinfo | None = None,
    ) -> None:
        self.summaries, self._running_ids, self._current = summaries, running, current
        self._now, self._tz = now, tz
        self._render_options()

    def _render_options(self) -> None:
        options = self.options
        # The list is redrawn on every change of the center: the highlight stays on its row.
        keep = self.highlighted_id
        options.clear_options()
        needle = self.query_text
        shown = [s for s in self.summaries if needle in (s.title or "").casefold()]
        if not shown:
            options.add_option(Option(self.tr("conv_no_match" if needle else "conv_empty"), disabled=True))
            return
        running = self._running_ids
        groups = (
            ("conv_in_progress", [s for s in shown if s.id in running]),
            ("conv_pinned", [s for s in shown if s.pinned_at and s.id not in running]),
            ("conv_recent", [s for s in shown if not s.pinned_at and s.id not in running]),
        )
        for key, items in groups:
            if not items:
                continue
            options.add_option(Option(f"— {self.tr(key)} —", disabled=True))
            for s in items:
                options.add_option(Option(self._label(s), id=s.id))
        if keep is not None:
            self.highlight(keep)

    def _label(self, s: ConversationSummary) -> Content:
        mark = "▸ " if s.id == self._current else "  "
        when = when_label(s.updated_at, self._now, self._tz)
        # The title is outside text (the user's words): plain, never markup.
        # No styling in the row: a span would blur what is ours and what is the title.
        return Content.assemble(mark, f"{when} " if when else "", plain_line(s.title or "…"))

    def highlight(self, conversation_id: str) -> bool:
        options = self.options
        try:
            options.highlighted = options.get_option_index(conversation_id)
        except Exception:  # OptionDoesNotExist: filtered out or deleted
            return False
        return True

    def focus_list(self) -> None:
        """Focus the list with a row highlighted: the open conversation, else the first one."""
        options = self.options
        if self.highlighted_id is None and not self.highlight(self._current):
            first = next((i for i, o in enumerate(options.options) if not o.disabled), None)
            if first is not None:
                options.highlighted = first
        options.focus()

    def action_search(self) -> None:
        self.add_class("-searching")
        self.query_one("#conv-search", Input).focus()

    def action_close(self) -> None:
        if self.has_class("-searching"):
            self._end_search()
            return
        self.post_message(self.Closed())

    def _end_search(self) -> None:
        search = self.query_one("#conv-search", Input)
        search.value = ""
        self.remove_class("-searching")
        self._render_options()
        self.focus_list()

    @on(Input.Changed, "#conv-search")
    def _narrow(self, event: Input.Changed) -> None:
        event.stop()
        self.options.highlighted = None
        self._render_options()
        self.focus_list_row()

    def focus_list_row(self) -> None:
        """The first match is highlighted while typing, so Enter opens it."""
        options = self.options
        first = next((i for i, o in enumerate(options.options) if not o.disabled), None)
        options.highlighted = first

    @on(Input.Submitted, "#conv-search")
    def _search_done(self, event: Input.Submitted) -> None:
        event.stop()
        conversation_id = self.highlighted_id
        if conversation_id:
            self.post_message(self.Chosen(conversation_id))
        else:
            self.options.focus()

    def on_key(self, event) -> None:
        # Down from the search box goes to the list (the rows are below it).
        if event.key == "down" and self.query_one("#conv-search", Input).has_focus:
            event.stop()
            self.options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Chosen(event.option.id))

    @property
    def highlighted_id(self) -> str | None:
        options = self.options
        if options.highlighted is None:
            return None
        return options.get_option_at_index(options.highlighted).id
