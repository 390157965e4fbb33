"""Help (/help, `?`): every key, every slash command, and where Mika keeps its files.

The keys are read from the bindings themselves (with the user's keymap applied), so the
help never lists a key that does something else; the places are the real paths this
app uses (the config file it loaded, the state folder its runs record into).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Static

from mika.config.paths import config_file, data_dir
from mika_tui.bindings import translated
from mika_tui.global_keys import GLOBAL_BINDINGS
from mika_tui.screens.base import SubScreen
from mika_tui.screens.main import MainScreen
from mika_tui.widgets.cards import ApprovalCard, TakeoverCard
from mika_tui.widgets.sidebar import ConversationList
from mika_tui.widgets.timeline import Timeline

# (slash command, i18n key of what it does) — the commands MainScreen.slash understands.
SLASH_HELP = (
    ("/new", "slash_new"),
    ("/stop", "slash_stop"),
    ("/device", "slash_device"),
    ("/model", "slash_model"),
    ("/usage", "slash_usage"),
    ("/runs", "slash_runs"),
    ("/memory", "slash_memory"),
    ("/plans", "slash_plans"),
    ("/routes", "slash_routes"),
    ("/settings", "slash_settings"),
    ("/help", "slash_help"),
)


def key_groups() -> list[tuple[str, list[Binding]]]:
    """(section title key, bindings) in the order a newcomer meets them."""

    def of(*classes: type) -> list[Binding]:
        return [b for cls in classes for b in getattr(cls, "BINDINGS", ()) if isinstance(b, Binding)]

    palette = Binding("ctrl+p", "command_palette", "help_palette", id="app.palette", tooltip="d_palette")
    open_row = Binding("enter", "select", "b_open_conv", tooltip="d_open_conv")
    back = Binding("escape", "app.back", "b_back", id="screen.back", tooltip="d_back")
    return [
        ("help_main_keys", of(MainScreen) + list(GLOBAL_BINDINGS) + [palette, back]),
        ("conversations", [open_row, *of(ConversationList)]),
        ("help_card_keys", of(ApprovalCard, TakeoverCard)),
        ("help_timeline_keys", of(Timeline)),
    ]


class HelpScreen(SubScreen):
    CSS_PATH = "help.tcss"

    def compose(self) -> ComposeResult:
        tr = self.mika.tr
        with VerticalScroll(id="help-body"):
            yield Static(tr("help_title"), classes="help-title")
            yield Static(tr("help_keys"), classes="help-section")
            for title, bindings in key_groups():
                yield Static(tr(title), classes="help-group")
                yield Static(self._keys(bindings), classes="help-table")
            yield Static(tr("help_commands"), classes="help-section")
            yield Static(self._slash(), classes="help-table", id="help-slash")
            yield Static(tr("help_places"), classes="help-section")
            yield Static(self._places(), classes="help-table", id="help-places")
            yield Static(tr("help_more"), classes="help-note")
        yield Footer()

    def _keys(self, bindings: list[Binding]) -> Content:
        tr, keymap = self.mika.tr, self.mika.deps.settings.keymap or {}
        rows: list[tuple[str, str, str]] = []
        for b in bindings:
            # The key the user's keymap gives it, written as the footer writes keys.
            key = self.app.get_key_display(replace(b, key=keymap.get(b.id or "", b.key)))
            label = translated(tr, b.description)
            what = translated(tr, b.tooltip) if b.tooltip and b.tooltip != b.description else ""
            rows.append((key, label, what))
        width = max((len(k) for k, _, _ in rows), default=0) + 2
        lines = [
            Content.assemble((key.ljust(width), "bold"), label, (f" — {what}", "dim") if what else "")
            for key, label, what in rows
        ]
        return Content("\n").join(lines)

    def _slash(self) -> Content:
        tr = self.mika.tr
        return Content("\n").join(Content.assemble((cmd.ljust(11), "bold"), tr(key)) for cmd, key in SLASH_HELP)

    def places(self) -> list[tuple[str, Path]]:
        """(what, where) for the files this app reads and writes."""
        deps = self.mika.deps
        return [
            ("help_config", deps.settings.file or config_file()),
            ("help_state", deps.state_dir),
            ("help_records", deps.state_dir / "runs"),
            ("help_data", data_dir()),
        ]

    def _places(self) -> Content:
        tr = self.mika.tr
        lines = []
        for key, path in self.places():
            missing = "" if path.exists() else f" {tr('help_missing')}"
            # A path is outside text (a home folder may hold brackets): plain, never markup.
            lines.append(Content.assemble((f"{tr(key)}: ", "bold"), str(path), (missing, "dim")))
        return Content("\n").join(lines)
