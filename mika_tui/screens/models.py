"""Models: providers from the presets, add one with its key, test it (the probe) and
save it, and pick the main / vision / light roles."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, DataTable, Footer, Input, Static

from mika.config.errors import ConfigError
from mika.config.paths import config_file
from mika.model.errors import ModelError
from mika.model.presets import PRESETS
from mika_tui.config_write import ConfigWriteError, update_config
from mika_tui.plain import cell, plain
from mika_tui.screens.base import SubScreen


class ModelsScreen(SubScreen):
    CSS_PATH = "models.tcss"

    class Said(Message):
        def __init__(self, text: str, error: bool = False) -> None:
            super().__init__()
            self.text, self.error = text, error

    def compose(self) -> ComposeResult:
        tr = self.mika.tr
        with VerticalScroll():
            yield Static(tr("roles"), classes="title")
            yield Static(plain(self._roles_line()), id="roles-line")
            yield Static(tr("configured"), classes="title")
            yield DataTable(id="configured", cursor_type="row")
            yield Static(tr("presets"), classes="title")
            yield DataTable(id="presets", cursor_type="row")
            yield Static(tr("add_provider"), classes="title")
            with Horizontal():
                yield Input(placeholder=tr("model_name"), id="model-name")
                yield Input(placeholder=tr("api_key"), password=True, id="api-key")
                yield Input(placeholder=tr("base_url"), id="base-url")
            with Horizontal():
                yield Button(tr("test_button"), id="test")
                yield Button(tr("save_button"), id="save", variant="primary")
                yield Button(f"{tr('role_main')}", id="role-main")
                yield Button(f"{tr('role_vision')}", id="role-vision")
                yield Button(f"{tr('role_light')}", id="role-light")
            yield Static("", id="model-message")
        yield Footer()

    def _roles_line(self) -> str:
        tr = self.mika.tr
        roles = self.mika.deps.settings.raw.get("roles", {}) or {}
        return "   ".join(
            f"{tr('role_' + r)}: {roles.get(r, '—' if r == 'main' else ('none' if r == 'vision' else 'main'))}"
            for r in ("main", "vision", "light")
        )

    def on_mount(self) -> None:
        super().on_mount()
        tr = self.mika.tr
        presets = self.query_one("#presets", DataTable)
        presets.add_columns(tr("col_provider"), "id", tr("col_kind"), tr("col_region"), tr("col_key"))
        for p in PRESETS:
            presets.add_row(p.name, p.id, p.kind, p.region, p.key_env or ("—" if not p.key_required else ""), key=p.id)
        configured = self.query_one("#configured", DataTable)
        configured.add_columns(tr("col_provider"), tr("col_kind"), tr("model_name"))
        providers = self.mika.deps.settings.raw.get("providers", {}) or {}
        for pid, conf in providers.items():
            if isinstance(conf, dict):
                models = ", ".join(conf.get("models", {}) or []) if isinstance(conf.get("models"), dict) else ""
                configured.add_row(cell(pid), cell(conf.get("preset") or conf.get("kind") or ""), cell(models))
        if not providers:
            self._say(tr("none_configured"))

    def _say(self, text: str, *, error: bool = False) -> None:
        line = self.query_one("#model-message", Static)
        line.update(plain(text))
        line.set_class(error, "-error")

    def on_models_screen_said(self, message: Said) -> None:
        self._say(message.text, error=message.error)

    def _address(self) -> str:
        return self.query_one("#base-url", Input).value.strip()

    def _chosen(self) -> tuple[str, str, str] | None:
        table = self.query_one("#presets", DataTable)
        if table.row_count == 0:
            return None
        pid = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        name = self.query_one("#model-name", Input).value.strip()
        key = self.query_one("#api-key", Input).value.strip()
        if not name:
            return None
        return pid, name, key

    def _draft(self, pid: str, key: str) -> dict:
        """The provider table as it would be saved; the key lives in a 0600 file beside the config."""
        table: dict = {"preset": pid}
        if key:
            table["api_key_file"] = f"keys/{pid}.key"
        if self._address():
            table["base_url"] = self._address()  # custom or self-hosted address, or a proxy
        return table

    @on(Button.Pressed, "#test")
    def on_test(self) -> None:
        chosen = self._chosen()
        if chosen is None:
            self._say(self.mika.tr("pick_preset"), error=True)
            return
        self._probe(*chosen)

    @work(exclusive=True, exit_on_error=False, group="probe")
    async def _probe(self, pid: str, name: str, key: str) -> None:
        import tempfile
        from pathlib import Path

        from mika.atomic_write import write_secret_file
        from mika.config.secrets import register_secret
        from mika.model.probe import probe_model
        from mika.model.providers_config import load_providers, parse_ref
        from mika.model.roles import build_model

        tr = self.mika.tr
        with tempfile.TemporaryDirectory() as tmp:
            cfg_path = Path(tmp) / "config.toml"
            if key:
                register_secret(key)  # from now on masked in every record and output
                write_secret_file(Path(tmp) / "keys" / f"{pid}.key", key)
            raw = {"providers": {pid: self._draft(pid, key)}, "roles": {"main": f"{pid}/{name}"}}
            try:
                cfg = load_providers(raw, cfg_path)
                model = build_model(cfg, parse_ref(f"{pid}/{name}", file=cfg_path, key="roles.main", cfg=cfg))
                attempt = await probe_model(model)
            except (ConfigError, ModelError, OSError) as exc:
                msg = exc.user_message() if isinstance(exc, ModelError) else str(exc)
                self.post_message(self.Said(tr("probe_fail", model=f"{pid}/{name}", error=msg), True))
                return
        if attempt.ok:
            self.post_message(self.Said(tr("probe_ok", model=f"{pid}/{name}", ms=attempt.latency_ms)))
        else:
            error = attempt.error.user_message() if attempt.error else attempt.outcome
            self.post_message(self.Said(tr("probe_fail", model=f"{pid}/{name}", error=error), True))

    @on(Button.Pressed, "#save")
    def on_save(self) -> None:
        chosen = self._chosen()
        if chosen is None:
            self._say(self.mika.tr("pick_preset"), error=True)
            return
        pid, _name, key = chosen
        self._save({"providers": {pid: self._draft(pid, key)}}, key=(pid, key) if key else None)

    def _save(self, changes: dict, key: tuple[str, str] | None = None) -> None:
        from mika.atomic_write import write_secret_file
        from mika.config.secrets import register_secret

        path = self.mika.deps.settings.file or config_file()
        try:
            if key is not None:
                register_secret(key[1])
                write_secret_file(path.parent / "keys" / f"{key[0]}.key", key[1])
            update_config(path, changes)
        except (ConfigWriteError, OSError) as exc:
            self._say(self.mika.tr("config_bad", error=str(exc)), error=True)
            return
        self._say(self.mika.tr("saved", file=str(path)))

    @on(Button.Pressed, "#role-main, #role-vision, #role-light")
    def on_role(self, event: Button.Pressed) -> None:
        chosen = self._chosen()
        if chosen is None:
            self._say(self.mika.tr("pick_preset"), error=True)
            return
        role = (event.button.id or "role-main").split("-")[1]
        self._save({"roles": {role: f"{chosen[0]}/{chosen[1]}"}})
