"""Conversations: in progress, pinned, recent. Choosing one opens it in the chat."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from mika.run.conversations import ConversationSummary
from mika_tui.i18n import Tr
from mika_tui.plain import plain_line


class ConversationList(Vertical):
    DEFAULT_CSS = """
    ConversationList { width: 28; border-right: vkey $panel-lighten-2; height: 1fr; }
    ConversationList .title { text-style: bold; padding: 0 1; }
    ConversationList OptionList { height: 1fr; border: none; }
    """

    class Chosen(Message):
        def __init__(self, conversation_id: str) -> None:
            super().__init__()
            self.conversation_id = conversation_id

    def __init__(self, tr: Tr, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tr = tr
        self.summaries: list[ConversationSummary] = []

    def compose(self) -> ComposeResult:
        yield Static(self.tr("conversations"), classes="title")
        yield OptionList(id="conv-options")

    def show(self, summaries: list[ConversationSummary], running: set[str], current: str) -> None:
        self.summaries = summaries
        options = self.query_one("#conv-options", OptionList)
        options.clear_options()
        groups = (
            ("conv_in_progress", [s for s in summaries if s.id in running]),
            ("conv_pinned", [s for s in summaries if s.pinned_at and s.id not in running]),
            ("conv_recent", [s for s in summaries if not s.pinned_at and s.id not in running]),
        )
        if not summaries:
            options.add_option(Option(self.tr("conv_empty"), disabled=True))
            return
        for key, items in groups:
            if not items:
                continue
            options.add_option(Option(f"— {self.tr(key)} —", disabled=True))
            for s in items:
                mark = "▸ " if s.id == current else "  "
                options.add_option(Option(plain_line(f"{mark}{s.title or '…'}"), id=s.id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Chosen(event.option.id))

    @property
    def highlighted_id(self) -> str | None:
        options = self.query_one("#conv-options", OptionList)
        if options.highlighted is None:
            return None
        return options.get_option_at_index(options.highlighted).id
