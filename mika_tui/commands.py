"""The command palette: every action of the app, offered by the screen you are on."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import Hit, Hits, Provider

if TYPE_CHECKING:
    from mika_tui.app import MikaApp

# (i18n key, action on the app) — the screen decides with check_action what is available.
APP_ACTIONS = (
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
    ("b_settings", "app.open('settings')"),
    ("b_back", "app.back"),
    ("b_quit", "app.quit"),
)


class MikaCommands(Provider):
    def _available(self) -> list[tuple[str, str]]:
        app: MikaApp = self.app  # type: ignore[assignment]
        screen = self.screen
        out = []
        for key, action in APP_ACTIONS:
            target, _, name = action.partition(".")
            name = name.split("(")[0]
            node = screen if target == "screen" else app
            if not hasattr(node, f"action_{name}"):
                continue
            if node.check_action(name, ()) is False:
                continue
            out.append((app.tr(key), action))
        return out

    async def discover(self) -> Hits:
        for label, action in self._available():
            yield Hit(1.0, label, partial(self.app.run_action, action), help=action)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, action in self._available():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), partial(self.app.run_action, action), help=action)
