"""What every secondary screen shares: a title line, Esc to go back, bindings in the user's language (TranslatedBindings)."""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import Screen

from mika_tui.bindings import TranslatedBindings
from mika_tui.host import AppHost


class SubScreen(TranslatedBindings, Screen):
    BINDINGS = [Binding("escape", "app.back", "b_back", id="screen.back", tooltip="b_back")]

    @property
    def mika(self) -> AppHost:
        """The app as Mika's screens use it (Textual types `self.app` as a plain App)."""
        return self.app  # type: ignore[return-value]

    def on_mount(self) -> None:
        """Each screen's own on_mount calls this first (nothing shared to do today)."""
