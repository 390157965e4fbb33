"""The app's own keys (quit, and the function keys that open a screen from anywhere).

Declared here rather than on `MikaApp` so that the help screen and the Settings keymap
table can list them without importing the app, which imports the screens (an import
circle). `MikaApp.BINDINGS` is made from it.
"""

from __future__ import annotations

from textual.binding import Binding

GLOBAL_BINDINGS: tuple[Binding, ...] = (
    Binding("ctrl+c", "quit_request", "b_quit", id="app.quit", tooltip="d_quit", priority=True),
    Binding("f1", "open('settings')", "b_settings", id="app.settings", tooltip="b_settings", show=False),
    Binding("f4", "open('memory')", "b_memory", id="app.memory", tooltip="b_memory", show=False),
    Binding("f9", "open('plans')", "b_plans", id="app.plans", tooltip="d_plans", show=False),
)
