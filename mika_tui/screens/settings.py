"""Settings: autonomous mode (with a plain warning), pace, language, graphics, notifications,
the size of the phone pictures a model gets, keymap."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, DataTable, Footer, Select, Static, Switch

from mika.config.paths import config_file
from mika.config.settings import GRAPHICS, LANGUAGES, NOTIFY, PACES, PICTURE_FORMATS, PICTURE_SIDES
from mika_tui.config_write import ConfigWriteError, update_config
from mika_tui.plain import plain
from mika_tui.screens.base import SubScreen
from mika_tui.screens.keymap import binding_table


class SettingsScreen(SubScreen):
    CSS_PATH = "settings.tcss"

    def compose(self) -> ComposeResult:
        tr = self.mika.tr
        s = self.mika.deps.settings
        with VerticalScroll():
            yield Static(tr("settings_title"), classes="title")
            with Horizontal():
                yield Switch(value=s.autonomous, id="autonomous")
                yield Static(tr("autonomous"))
            yield Static(tr("autonomous_warning"), classes="warning")
            yield Static(tr("pace"), classes="title")
            yield Select([(p, p) for p in PACES], value=s.pace, allow_blank=False, id="pace")
            yield Static(tr("language"), classes="title")
            yield Select([(lang, lang) for lang in LANGUAGES], value=s.language, allow_blank=False, id="language")
            yield Static(tr("graphics"), classes="title")
            yield Select([(g, g) for g in GRAPHICS], value=s.graphics, allow_blank=False, id="graphics")
            yield Static(tr("notify_setting"), classes="title")
            yield Select([(tr("notify_" + n), n) for n in NOTIFY], value=s.notify, allow_blank=False, id="notify")
            yield Static(tr("picture_long_side"), classes="title")
            # The usual sizes, and the file's own when it names another.
            sides = sorted({*PICTURE_SIDES, s.picture_long_side})
            yield Select(
                [(str(n), n) for n in sides], value=s.picture_long_side, allow_blank=False, id="picture-long-side"
            )
            yield Static(tr("picture_format"), classes="title")
            yield Select(
                [(tr("picture_format_" + f), f) for f in PICTURE_FORMATS],
                value=s.picture_format,
                allow_blank=False,
                id="picture-format",
            )
            yield Static(tr("keymap"), classes="title")
            yield DataTable(id="keymap", cursor_type="row")
            yield Button(tr("save_button"), id="save-settings", variant="primary")
            yield Static("", id="settings-message")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        table = self.query_one("#keymap", DataTable)
        table.add_columns("id", "key")
        keymap = self.mika.deps.settings.keymap
        for bid, key in binding_table():
            table.add_row(bid, keymap.get(bid, key), key=bid)

    @on(Button.Pressed, "#save-settings")
    def save(self) -> None:
        tr = self.mika.tr
        settings = self.mika.deps.settings
        path = settings.file or config_file()
        changes = {
            "general": {
                "autonomous": self.query_one("#autonomous", Switch).value,
                "pace": str(self.query_one("#pace", Select).value),
                "language": str(self.query_one("#language", Select).value),
            },
            "ui": {
                "graphics": str(self.query_one("#graphics", Select).value),
                "notify": str(self.query_one("#notify", Select).value),
            },
            "phone": {
                "picture_long_side": int(str(self.query_one("#picture-long-side", Select).value)),
                "picture_format": str(self.query_one("#picture-format", Select).value),
            },
        }
        try:
            update_config(path, changes)
        except ConfigWriteError as exc:
            self.query_one("#settings-message", Static).update(plain(tr("config_bad", error=str(exc))))
            return
        # How to be told applies at once: the next card already rings (or doesn't).
        self.mika.attention.mode = str(self.query_one("#notify", Select).value)
        self.query_one("#settings-message", Static).update(plain(tr("settings_saved", file=str(path))))
