"""Small modal dialogs: confirm a deletion, type a new name, read a source."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static

from mika_tui.bindings import TranslatedBindings
from mika_tui.i18n import Tr
from mika_tui.plain import markup, plain

DIALOG_CSS = """
{name} { align: center middle; }
{name} > Vertical { width: 70%; max-width: 90; height: auto; max-height: 90%; border: thick $accent; background: $surface; padding: 1 2; }
{name} Horizontal { height: auto; margin-top: 1; }
{name} Button { margin-right: 2; }
"""


class ConfirmDialog(TranslatedBindings, ModalScreen[bool]):
    DEFAULT_CSS = DIALOG_CSS.replace("{name}", "ConfirmDialog")
    BINDINGS = [Binding("escape", "cancel", "no", id="dialog.cancel", tooltip="d_dialog_cancel")]

    def __init__(self, text: str, tr: Tr, yes: str = "yes") -> None:
        super().__init__()
        self.text, self.tr, self.yes = text, tr, yes

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.text))
            with Horizontal():
                yield Button(self.tr(self.yes), id="yes", variant="error")
                yield Button(self.tr("no"), id="no")
        # The dialog's own keys over the screen's below (which do nothing while it is up).
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_cancel(self) -> None:
        self.dismiss(False)


class PromptDialog(TranslatedBindings, ModalScreen[str | None]):
    DEFAULT_CSS = DIALOG_CSS.replace("{name}", "PromptDialog")
    BINDINGS = [Binding("escape", "cancel", "no", id="dialog.cancel", tooltip="d_dialog_cancel")]

    def __init__(self, label: str, value: str = "") -> None:
        super().__init__()
        self.label, self.value = label, value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.label))
            yield Input(self.value, id="prompt-value")
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class SourceDialog(TranslatedBindings, ModalScreen[None]):
    """One observation an answer rests on: its text and, if there is one, its frame."""

    DEFAULT_CSS = (
        DIALOG_CSS.replace("{name}", "SourceDialog") + "SourceDialog VerticalScroll { height: auto; max-height: 30; }"
    )
    BINDINGS = [Binding("escape", "close", "back", id="dialog.close", tooltip="d_dialog_close")]

    def __init__(self, title: str, text: str, frame: bytes | None = None) -> None:
        super().__init__()
        self.title_text, self.body, self.frame = title, text, frame

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(markup("[b]$title[/b]", title=self.title_text))
            with VerticalScroll():
                yield Static(plain(self.body))
                if self.frame:
                    from mika_tui.widgets.frame_view import FrameView

                    yield FrameView(self.frame)
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
