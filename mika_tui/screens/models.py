"""Models: providers from the presets, add one with its key, test it (the probe) and
save it, and pick the main / vision / light roles.

The provider gets a name of the user's (two providers of one preset, e.g. a work and a
home DeepSeek key); the Custom preset gets a protocol. Every save is first read back by
the real config loader (settings and providers): a draft it refuses is shown in the form
and nothing is written. A saved config is applied at once: the app's models are selected
again from it, so the roles line, the providers table and the status line change without
a restart.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, DataTable, Footer, Input, Select, Static

from mika.config.errors import ConfigError
from mika.config.paths import config_file
from mika.model.adapters import KINDS
from mika.model.errors import ModelError
from mika.model.presets import PRESETS, preset
from mika_tui.config_write import ConfigWriteError, preview_config, write_config_text
from mika_tui.plain import cell, plain
from mika_tui.screens.base import SubScreen

# A provider name is a TOML table name and the first half of "provider/model": letters,
# digits, "-" and "_" only, so it never needs quoting and never holds a "/" or a ".".
_PROVIDER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")


def provider_id_problem(pid: str) -> str | None:
    """Why `pid` cannot name a provider (an i18n key), or None."""
    if not pid:
        return "provider_id_missing"
    if not _PROVIDER_ID.fullmatch(pid):
        return "provider_id_bad"
    return None


class PresetTable(DataTable):
    """Row cursor on Home/End: the first and last preset (Textual's scroll sideways)."""

    BINDINGS = [
        Binding("home", "scroll_top", "b_top", show=False),
        Binding("end", "scroll_bottom", "b_bottom", show=False),
    ]


class ModelsScreen(SubScreen):
    CSS_PATH = "models.tcss"

    class Said(Message):
        def __init__(self, text: str, error: bool = False) -> None:
            super().__init__()
            self.text, self.error = text, error

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The provider name the form filled in from the preset; a name the user typed
        # over it is theirs and stays when another preset is highlighted.
        self._auto_id = ""

    def compose(self) -> ComposeResult:
        tr = self.mika.tr
        with VerticalScroll():
            yield Static(tr("roles"), classes="title")
            yield Static(plain(self._roles_line()), id="roles-line")
            yield Static(tr("configured"), classes="title")
            yield DataTable(id="configured", cursor_type="row")
            yield Static(tr("presets"), classes="title")
            yield Input(placeholder=tr("preset_filter"), id="preset-filter")
            yield PresetTable(id="presets", cursor_type="row")
            yield Static(tr("add_provider"), classes="title")
            with Horizontal():
                yield Input(placeholder=tr("provider_id"), id="provider-id")
                yield Select(
                    [(tr("kind_" + k), k) for k in KINDS],
                    value=KINDS[0],
                    allow_blank=False,
                    id="protocol",
                    prompt=tr("protocol"),
                )
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
            # After the key form, so the form keeps its place on a small terminal; the
            # empty state's message points down here.
            yield Static(tr("chatgpt_title"), classes="title")
            with Horizontal(id="chatgpt-row"):
                yield Static(plain(self._chatgpt_line()), id="chatgpt-line")
                yield Button(self._chatgpt_button(), id="chatgpt")
        yield Footer()

    # -- what is configured ------------------------------------------------------------------

    def _raw(self) -> dict:
        return self.mika.deps.settings.raw or {}

    def _roles_line(self) -> str:
        tr = self.mika.tr
        roles = self._raw().get("roles", {}) or {}
        parts = [
            f"{tr('role_' + r)}: {roles.get(r, '—' if r == 'main' else ('none' if r == 'vision' else 'main'))}"
            for r in ("main", "vision", "light")
        ]
        launch = getattr(self.mika.deps.assembly, "model_choice", None)
        if launch:
            parts[0] += tr("roles_launch", model=launch)  # what runs use until Mika restarts
        return "   ".join(parts)

    # -- the ChatGPT plan ------------------------------------------------------------------

    def _chatgpt_store(self) -> Any:
        from mika.config.paths import chatgpt_auth_file
        from mika.model.chatgpt.token_store import TokenStore

        return TokenStore(chatgpt_auth_file(self.mika.deps.state_dir))

    def _chatgpt_tokens(self) -> Any:
        return self._chatgpt_store().load()

    def _chatgpt_line(self) -> str:
        tokens = self._chatgpt_tokens()
        if tokens is None:
            return self.mika.tr("chatgpt_pitch")
        return self.mika.tr("chatgpt_signed_in", who=tokens.email or tokens.account_id)

    def _chatgpt_button(self) -> str:
        return self.mika.tr("chatgpt_sign_out" if self._chatgpt_tokens() is not None else "chatgpt_sign_in")

    def _chatgpt_changed(self) -> None:
        self.query_one("#chatgpt-line", Static).update(plain(self._chatgpt_line()))
        self.query_one("#chatgpt", Button).label = self._chatgpt_button()

    class ChatGptDone(Message):
        """A sign-in or sign-out finished (in a worker); the screen owns what follows."""

        def __init__(self, signed_in: bool) -> None:
            super().__init__()
            self.signed_in = signed_in

    @on(Button.Pressed, "#chatgpt")
    def on_chatgpt(self) -> None:
        if self._chatgpt_tokens() is None:
            self._chatgpt_sign_in()
        else:
            self._chatgpt_sign_out()

    @work(exclusive=True, exit_on_error=False, group="chatgpt")
    async def _chatgpt_sign_in(self) -> None:
        from mika.model.chatgpt.endpoints import from_environment
        from mika.model.chatgpt.errors import LoginError
        from mika.model.chatgpt.login import sign_in_with_browser

        tr = self.mika.tr
        opener = self.mika.deps.open_browser or _system_browser

        def show(url: str) -> None:
            self.post_message(self.Said(tr("chatgpt_opening", url=url)))

        try:
            await sign_in_with_browser(from_environment(), self._chatgpt_store(), open_browser=opener, show_url=show)
        except LoginError as err:
            self.post_message(self.Said(err.user_message(tr.lang), True))
            return
        self.post_message(self.ChatGptDone(True))

    @work(exclusive=True, exit_on_error=False, group="chatgpt")
    async def _chatgpt_sign_out(self) -> None:
        from mika.model.chatgpt.endpoints import from_environment
        from mika.model.chatgpt.oauth import revoke

        store = self._chatgpt_store()
        tokens = store.load()
        why = await revoke(from_environment(), tokens.refresh_token) if tokens is not None else None
        store.clear()  # whatever the issuer said: signing out here never waits on the network
        self.post_message(self.Said(self.mika.tr("chatgpt_out" if why is None else "chatgpt_out_local", why=why)))
        self.post_message(self.ChatGptDone(False))

    def on_models_screen_chat_gpt_done(self, message: ChatGptDone) -> None:
        from mika.model.chatgpt.endpoints import DEFAULT_MODEL, PROVIDER_ID
        from mika.model.chatgpt.refresh import forget_shared

        forget_shared(self._chatgpt_store())
        self._chatgpt_changed()
        raw = self._raw()
        providers = raw.get("providers", {}) or {}
        ours = [pid for pid, conf in providers.items() if isinstance(conf, dict) and conf.get("kind") == "chatgpt"]
        if not message.signed_in:
            if ours:
                self._reapply()  # runs through the plan now say "signed out" before they start
            return
        changes: dict = {}
        pid = ours[0] if ours else PROVIDER_ID
        if not ours and PROVIDER_ID not in providers:
            changes["providers"] = {PROVIDER_ID: {"kind": "chatgpt"}}
        if not (raw.get("roles", {}) or {}).get("main") and (ours or PROVIDER_ID not in providers):
            changes["roles"] = {"main": f"{pid}/{DEFAULT_MODEL}"}
        tokens = self._chatgpt_tokens()
        done = self.mika.tr("chatgpt_done", who=(tokens.email or tokens.account_id) if tokens is not None else "")
        if changes:
            self._save(changes, prefix=done + " ")
        elif self._reapply():
            self._say(done)

    def _reapply(self) -> bool:
        problem = apply_settings(self.mika, self.mika.deps.settings)
        self.query_one("#roles-line", Static).update(plain(self._roles_line()))
        if problem:
            self._say(problem, error=True)
        return not problem

    def _fill_configured(self) -> None:
        configured = self.query_one("#configured", DataTable)
        configured.clear()
        raw = self._raw()
        providers = raw.get("providers", {}) or {}
        roles = raw.get("roles", {}) or {}
        for pid, conf in providers.items():
            if not isinstance(conf, dict):
                continue
            models = list(conf.get("models", {}) or []) if isinstance(conf.get("models"), dict) else []
            # The models the roles use count too: a saved provider shows what it is used for.
            for ref in roles.values():
                if isinstance(ref, str) and ref.startswith(f"{pid}/") and ref[len(pid) + 1 :] not in models:
                    models.append(ref[len(pid) + 1 :])
            kind = conf.get("kind") or (p.kind if (p := preset(str(conf.get("preset", "")))) else "")
            configured.add_row(
                cell(pid), cell(str(conf.get("preset") or "custom")), cell(kind), cell(", ".join(models)), key=pid
            )

    def _fill_presets(self, query: str = "") -> None:
        table = self.query_one("#presets", DataTable)
        table.clear()
        words = query.lower().split()
        hits = [p for p in PRESETS if all(w in f"{p.name} {p.id} {p.kind} {p.region}".lower() for w in words)]
        # A preset named by the words comes before one whose protocol or region matched
        # ("openai": OpenAI first, then the OpenAI-compatible ones).
        hits.sort(key=lambda p: not all(w in f"{p.name} {p.id}".lower() for w in words))
        for p in hits:
            table.add_row(p.name, p.id, p.kind, p.region, p.key_env or ("—" if not p.key_required else ""), key=p.id)
        if table.row_count:
            table.move_cursor(row=0)
            self._preset_changed()
        elif query:
            self._say(self.mika.tr("preset_no_match", query=query), error=True)

    def on_mount(self) -> None:
        super().on_mount()
        tr = self.mika.tr
        presets = self.query_one("#presets", DataTable)
        presets.add_columns(tr("col_provider"), "id", tr("col_kind"), tr("col_region"), tr("col_key"))
        configured = self.query_one("#configured", DataTable)
        configured.add_columns(tr("col_name"), tr("col_preset"), tr("col_kind"), tr("model_name"))
        self._fill_configured()
        self._fill_presets()
        if not self._raw().get("providers"):
            self._say(tr("none_configured"))
        # Typing narrows the presets at once: the filter is where the keyboard starts.
        self.query_one("#preset-filter", Input).focus()

    # -- the preset table and the form ------------------------------------------------------

    @on(DataTable.RowSelected, "#configured")
    def on_configured_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a configured provider brings it back into the form: change its key or
        address, test it again, or give it a role, without retyping it."""
        pid = str(event.row_key.value)
        conf = (self._raw().get("providers", {}) or {}).get(pid)
        if not isinstance(conf, dict):
            return
        if conf.get("kind") == "chatgpt":
            # No key, address or protocol to edit: the sign-in is the whole connection.
            self.query_one("#chatgpt", Button).focus()
            self._say(self.mika.tr("chatgpt_no_form"))
            return
        preset_id = str(conf.get("preset") or "custom")
        flt = self.query_one("#preset-filter", Input)
        with flt.prevent(Input.Changed):
            flt.value = ""
        self._fill_presets()
        presets = self.query_one("#presets", DataTable)
        if preset(preset_id) is not None:
            presets.move_cursor(row=presets.get_row_index(preset_id))
        self._auto_id = ""
        self.query_one("#provider-id", Input).value = pid
        self._preset_changed_to(preset_id)
        if preset_id == "custom" and conf.get("kind") in KINDS:
            self.query_one("#protocol", Select).value = conf["kind"]
        models = str(event.control.get_row(event.row_key)[3])
        self.query_one("#model-name", Input).value = models.split(", ")[0] if models else ""
        self.query_one("#api-key", Input).value = ""  # kept in its file; typed again only to change it
        self.query_one("#base-url", Input).value = str(conf.get("base_url") or "")
        self.query_one("#model-name", Input).focus()

    @on(Input.Changed, "#preset-filter")
    def on_filter(self, event: Input.Changed) -> None:
        self._fill_presets(event.value.strip())

    @on(Input.Submitted, "#preset-filter")
    def on_filter_done(self) -> None:
        self.query_one("#presets", DataTable).focus()

    @on(DataTable.RowHighlighted, "#presets")
    def on_preset_highlighted(self) -> None:
        self._preset_changed()

    def _preset_id(self) -> str | None:
        table = self.query_one("#presets", DataTable)
        if table.row_count == 0:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def _preset_changed(self) -> None:
        pid = self._preset_id()
        if pid:
            self._preset_changed_to(pid)

    def _preset_changed_to(self, pid: str) -> None:
        p = preset(pid)
        if p is None:
            return
        name = self.query_one("#provider-id", Input)
        if name.value.strip() in ("", self._auto_id):
            name.value = self._auto_id = p.id
        protocol = self.query_one("#protocol", Select)
        # A preset knows its protocol; only Custom leaves it to the user.
        if p.id != "custom":
            protocol.value = p.kind
        protocol.disabled = p.id != "custom"

    def _say(self, text: str, *, error: bool = False) -> None:
        line = self.query_one("#model-message", Static)
        line.update(plain(text))
        line.set_class(error, "-error")

    def on_models_screen_said(self, message: Said) -> None:
        self._say(message.text, error=message.error)

    def _address(self) -> str:
        return self.query_one("#base-url", Input).value.strip()

    def _provider_name(self) -> str:
        return self.query_one("#provider-id", Input).value.strip()

    def _chosen(self) -> tuple[str, str, str, str] | None:
        """(preset, provider name, model name, key), or None after saying what is missing."""
        tr = self.mika.tr
        preset_id = self._preset_id()
        if preset_id is None:
            self._say(tr("pick_preset"), error=True)
            return None
        pid = self._provider_name()
        problem = provider_id_problem(pid)
        if problem is not None:
            self._say(tr(problem, name=pid), error=True)
            return None
        name = self.query_one("#model-name", Input).value.strip()
        if not name:
            self._say(tr("model_name_missing"), error=True)
            return None
        return preset_id, pid, name, self.query_one("#api-key", Input).value.strip()

    def _draft(self, preset_id: str, pid: str, key: str) -> dict:
        """The provider table as it would be saved; the key lives in a 0600 file beside the config."""
        table: dict = {"preset": preset_id}
        if preset_id == "custom":
            table["kind"] = str(self.query_one("#protocol", Select).value)
        if key:
            table["api_key_file"] = f"keys/{pid}.key"
        if self._address():
            table["base_url"] = self._address()  # custom or self-hosted address, or a proxy
        return table

    # -- test ---------------------------------------------------------------------------------

    @on(Button.Pressed, "#test")
    def on_test(self) -> None:
        chosen = self._chosen()
        if chosen is not None:
            self._probe(*chosen)

    @work(exclusive=True, exit_on_error=False, group="probe")
    async def _probe(self, preset_id: str, pid: str, name: str, key: str) -> None:
        import tempfile

        from mika.atomic_write import write_secret_file
        from mika.config.secrets import register_secret
        from mika.model.probe import probe_model
        from mika.model.providers_config import load_providers, parse_ref
        from mika.model.roles import build_model

        tr = self.mika.tr
        ref = f"{pid}/{name}"
        with tempfile.TemporaryDirectory() as tmp:
            cfg_path = Path(tmp) / "config.toml"
            if key:
                register_secret(key)  # from now on masked in every record and output
                write_secret_file(Path(tmp) / "keys" / f"{pid}.key", key)
            raw = {"providers": {pid: self._draft(preset_id, pid, key)}, "roles": {"main": ref}}
            try:
                cfg = load_providers(raw, cfg_path)
                model = build_model(cfg, parse_ref(ref, file=cfg_path, key="roles.main", cfg=cfg))
                attempt = await probe_model(model)
            except (ConfigError, ModelError, OSError) as exc:
                msg = exc.user_message() if isinstance(exc, ModelError) else self._config_sentence(exc)
                self.post_message(self.Said(tr("probe_fail", model=ref, error=msg), True))
                return
        if attempt.ok:
            self.post_message(self.Said(tr("probe_ok", model=ref, ms=attempt.latency_ms)))
        else:
            error = attempt.error.user_message() if attempt.error else attempt.outcome
            self.post_message(self.Said(tr("probe_fail", model=ref, error=error), True))

    @staticmethod
    def _config_sentence(exc: Exception) -> str:
        # A draft lives in no file yet (a temp one while testing): the key it names is what matters.
        if isinstance(exc, ConfigError) and exc.key:
            return f"{exc.key}: expected {exc.expected}" + (f", got {exc.got!r}" if exc.got is not None else "")
        return str(exc)

    # -- save ---------------------------------------------------------------------------------

    @on(Button.Pressed, "#save")
    def on_save(self) -> None:
        chosen = self._chosen()
        if chosen is None:
            return
        preset_id, pid, name, key = chosen
        existing = (self._raw().get("providers", {}) or {}).get(pid)
        if isinstance(existing, dict) and existing.get("preset", "custom") != preset_id:
            self._say(
                self.mika.tr("provider_taken", name=pid, preset=str(existing.get("preset", "custom"))), error=True
            )
            return
        changes: dict = {"providers": {pid: self._draft(preset_id, pid, key)}}
        if not (self._raw().get("roles", {}) or {}).get("main"):
            changes["roles"] = {"main": f"{pid}/{name}"}  # the first model is the one runs use
        self._save(changes, key=(pid, key) if key else None)

    @on(Button.Pressed, "#role-main, #role-vision, #role-light")
    def on_role(self, event: Button.Pressed) -> None:
        chosen = self._chosen()
        if chosen is None:
            return
        role = (event.button.id or "role-main").split("-")[1]
        self._save({"roles": {role: f"{chosen[1]}/{chosen[2]}"}})

    def _save(self, changes: dict, key: tuple[str, str] | None = None, prefix: str = "") -> None:
        from mika.atomic_write import write_secret_file
        from mika.config.secrets import register_secret
        from mika.config.settings import load_settings

        tr = self.mika.tr
        path = self.mika.deps.settings.file or config_file()
        try:
            if key is not None:
                register_secret(key[1])
            text, data = preview_config(path, changes)
            _load_draft(data, path)  # refused: nothing is written, not even the key
            if key is not None:
                # The key before the config that names it: a config never points at a
                # key file that is not there. The provider name keeps it inside keys/.
                write_secret_file(path.parent / "keys" / f"{key[0]}.key", key[1])
            write_config_text(path, text)
            settings = load_settings(path, warn=None)
        except ConfigError as exc:
            # The draft is not in the file yet: the key and what it needs are the news.
            self._say(tr("draft_refused", error=self._config_sentence(exc)), error=True)
            return
        except (ConfigWriteError, OSError) as exc:
            self._say(tr("config_bad", error=str(exc)), error=True)
            return
        problem = apply_settings(self.mika, settings)
        self.query_one("#roles-line", Static).update(plain(self._roles_line()))
        self._fill_configured()
        if problem:
            self._say(tr("saved_not_used", file=str(path), error=problem), error=True)
        else:
            self._say(prefix + tr("saved_applied", file=str(path), model=self.mika.deps.model_label or "—"))


def _system_browser(url: str) -> bool:
    import webbrowser

    try:
        return webbrowser.open(url)
    except Exception:  # no display, a broken BROWSER: the address is on screen anyway
        return False


def _load_draft(data: dict, path: Path) -> None:
    """The draft as `mika` will read it at the next start: the settings and the providers
    and roles, by the loaders `mika run` uses (a ConfigError names the key)."""
    from mika.config.settings import parse_settings
    from mika.model.providers_config import load_providers

    parse_settings(data, path)
    load_providers(data, path)


def apply_settings(app: Any, settings: Any) -> str:
    """Use a just-saved config now: the settings, and for the real app (an assembly) the
    models selected again from it. Returns why the models could not be used ("" if they
    can); the app then keeps the ones it had."""
    from mika.assembly import select_models
    from mika_tui.launch import model_error_line

    deps = app.deps
    deps.settings = settings
    asm = deps.assembly
    if asm is None:
        # A test's or an embedder's own run factory: it, not the config, picks the model.
        return ""
    try:
        # A launch-time `--model` stays the session's main model (the saved roles.main is
        # what the next start without it uses).
        models = select_models(settings, asm.model_choice, asm.state_dir)
    except (ConfigError, ModelError) as exc:
        line = model_error_line(exc)
        return app.tr("model_missing") if line == "model_missing" else line
    old = asm.models
    if old is not None:
        # Runs already going still use the old models; their ledger closes with the app.
        new_close, old_close = models.close, old.close

        def close_both() -> None:
            try:
                new_close()
            finally:
                old_close()

        models.close = close_both
    asm.settings, asm.models, asm.model_problem = settings, models, None
    deps.run_factory = asm.run_factory
    deps.model_label = f"{models.main.provider}/{models.main.name}"
    deps.model_error = ""
    app.models_changed()
    return ""
