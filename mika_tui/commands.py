"""The command palette: every action of the app, offered by the screen you are on.

Each entry reads as a person looks for it: its name, the key that does the same from the
screen you are on (so the palette teaches the keys), and one line saying what it does —
never the action string behind it.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

from textual.command import Hit, Hits, Provider
from textual.content import Content

from mika_tui.bindings import key_of
from mika_tui.host import AppHost

# (name key, action run on choosing it) — the screen decides with check_action what is available.
APP_ACTIONS: tuple[tuple[str, str], ...] = (
    ("b_new", "screen.new_conversation"),
    ("b_stop", "screen.stop"),
    ("b_sidebar", "screen.toggle_sidebar"),
    ("conv_rename", "screen.rename_conversation"),
    ("conv_pin", "screen.pin_conversation"),
    ("conv_delete", "screen.delete_conversation"),
    ("b_timeline", "screen.focus_timeline"),
    ("b_preview_zoom", "screen.zoom_preview"),
    ("b_preview_main", "screen.preview_main"),
    ("b_devices", "app.open('devices')"),
    ("b_models", "app.open('models')"),
    ("b_usage", "app.open('usage')"),
    ("b_runs", "app.open('runs')"),
    ("b_memory", "app.open('memory')"),
    ("b_plans", "app.open('plans')"),
    ("b_routes", "app.open('routes')"),
    ("b_settings", "app.open('settings')"),
    ("b_help", "app.open('help')"),
    ("b_back", "app.back"),
    ("b_quit", "app.quit"),
)
# What each one does, in a line (i18n key by name key).
DESCRIPTIONS: dict[str, str] = {
    "b_new": "d_new",
    "b_stop": "d_stop",
    "b_sidebar": "d_sidebar",
    "conv_rename": "d_rename",
    "conv_pin": "d_pin",
    "conv_delete": "d_delete",
    "b_timeline": "d_timeline",
    "b_preview_zoom": "d_preview_zoom",
    "b_preview_main": "d_preview_main",
    "b_devices": "d_devices",
    "b_models": "d_models",
    "b_usage": "d_usage",
    "b_runs": "d_runs",
    "b_memory": "d_memory",
    "b_plans": "d_plans",
    "b_routes": "d_routes",
    "b_settings": "d_settings",
    "b_help": "d_help",
    "b_back": "d_back",
    "b_quit": "d_quit",
}
# The action its key is bound to, where that differs from the one the palette runs.
BOUND_AS: dict[str, str] = {
    "app.open('help')": "help",
    "app.quit": "quit_request",
}


class PaletteEntry(NamedTuple):
    label: str
    action: str
    description: str
    key: str  # as the footer writes it ("^d"), "" when no key does it here


class MikaCommands(Provider):
    def entries(self) -> list[PaletteEntry]:
        app = self.app
        host: AppHost = app  # type: ignore[assignment]  # Textual types it as a plain App
        screen = self.screen
        out = []
        for name, action in APP_ACTIONS:
            target, _, act = action.partition(".")
            act = act.split("(")[0]
            node = screen if target == "screen" else app
            if not hasattr(node, f"action_{act}"):
                continue
            if node.check_action(act, ()) is False:
                continue
            if action == "app.back" and screen is getattr(app, "main_screen", None):
                continue  # the palette's own screen counts in the stack; the main screen has no back
            key = key_of(app, screen, BOUND_AS.get(action, action))
            out.append(PaletteEntry(host.tr(name), action, host.tr(DESCRIPTIONS[name]), key))
        return out

    def _available(self) -> list[tuple[str, str]]:
        """(name, action) of what the palette offers here."""
        return [(e.label, e.action) for e in self.entries()]

    @staticmethod
    def _display(name: Content, entry: PaletteEntry) -> Content:
        return Content.assemble(name, (f"   {entry.key}", "dim bold")) if entry.key else name

    async def discover(self) -> Hits:
        for e in self.entries():
            yield Hit(
                1.0, self._display(Content(e.label), e), partial(self.app.run_action, e.action), e.label, e.description
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for e in self.entries():
            # The name or what it does: "phone" finds Devices.
            score = max(matcher.match(e.label), matcher.match(e.description) * 0.5)
            if score > 0:
                yield Hit(
                    score,
                    self._display(matcher.highlight(e.label), e),
                    partial(self.app.run_action, e.action),
                    e.label,
                    e.description,
                )
