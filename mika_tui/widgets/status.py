"""The header line: device, main model, and the run's state with elapsed time."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from mika.terminal_text import one_line


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { dock: top; height: 1; background: $panel; color: $text; padding: 0 1; }
    StatusBar.-needs-you { background: $warning; color: $text; }
    StatusBar.-running { background: $accent 30%; }
    """

    def show(self, device: str, model: str, state: str, *, needs_you: bool, running: bool) -> None:
        self.set_class(needs_you, "-needs-you")
        self.set_class(running and not needs_you, "-running")
        # Device names come from the phone, the state line from the run: text, never controls.
        device, model, state = one_line(device), one_line(model), one_line(state)
        text = Text.assemble(
            ("Mika", "bold"),
            "  ",
            ("▣ ", "dim"),
            device,
            "  │  ",
            ("◆ ", "dim"),
            model,
            "  │  ",
            (state, "bold" if running or needs_you else ""),
        )
        self.update(text)
