"""What every secondary screen shares: a title line, Esc to go back, bindings in the user's language (TranslatedBindings)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.screen import Screen

from mika_tui.bindings import TranslatedBindings

if TYPE_CHECKING:
    from mika_tui.app import MikaApp


class SubScreen(TranslatedBindings, Screen):
    BINDINGS = [Binding("escape", "app.back", "b_back", id="screen.back", tooltip="b_back")]

    @property
    def mika(self) -> MikaApp:
        return self.app  # type: ignore[return-value]

    def on_mount(self) -> None:
        """Each screen's own on_mount calls this first (nothing shared to do today)."""
