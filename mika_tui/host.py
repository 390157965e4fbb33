"""`AppHost`: what the screens and the command palette use of the app, and nothing more.

The app imports the screens it opens and the palette it offers, so neither may import the
app back: that is an import circle, and the "No import circles" contract counts
type-checking imports too. They see the app through this protocol instead. `MikaApp`
satisfies it (mypy checks that in mika_tui/app.py); Textual's own App methods are reached
through `self.app`, typed by Textual.
"""

from __future__ import annotations

from typing import Protocol

from textual.screen import Screen

from mika.run.contracts import TaskRunLike
from mika.run.task_center import TaskCenter
from mika_tui.deps import AppDeps
from mika_tui.i18n import Tr
from mika_tui.notify import Attention


class AppHost(Protocol):
    # Read-only here: screens read the app's state and act through its methods; only
    # the app itself rebinds these (a property also lets MikaApp's narrower types fit).
    @property
    def deps(self) -> AppDeps: ...

    @property
    def tr(self) -> Tr: ...

    @property
    def runs(self) -> dict[str, TaskRunLike]:
        """The runs this session started, by run id (to answer, confirm, hand back)."""
        ...

    @property
    def center(self) -> TaskCenter | None:
        """None while no model is configured."""
        ...

    @property
    def attention(self) -> Attention: ...

    @property
    def main_screen(self) -> Screen: ...

    def action_open(self, name: str) -> None:
        """Open a secondary screen by name ("devices", "settings", ...)."""
        ...

    def open_run(self, run_id: str) -> None: ...

    def frame_bytes(self, run_id: str, name: str) -> bytes | None: ...

    def models_changed(self) -> None: ...
