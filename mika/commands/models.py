"""`mika models`: presets, list, add, use, test.

Errors print one line to stderr and exit 2 (usage or config) or 4 (the provider failed);
stdout carries data only. The model catalogue loads httpx, so it is imported inside the
commands that list or probe: `mika --help` stays cheap.
"""

from __future__ import annotations

import asyncio
import ipaddress
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlparse

import click

from mika.atomic_write import write_secret_file
from mika.config.errors import ConfigError
from mika.config.language import set_language
from mika.config.paths import config_file, state_dir
from mika.config.secret_discovery import register_config_secrets
from mika.exit_codes import ExitCode
from mika.model.adapters import KINDS, SIGN_IN_KINDS
from mika.model.config_edit import (
    add_model_table,
    plan_provider_table,
    read_config,
    set_role,
)
from mika.model.copy import t
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.metering import metered
from mika.model.presets import PRESETS, for_host, preset, preset_ids
from mika.model.probe import MODEL_PROBLEMS, PROBE_TIMEOUT, ProbeAttempt, probe
from mika.model.providers_config import ModelRef, ProvidersConfig, load_providers
from mika.model.roles import build_model, provider_settings
from mika.terminal_text import echo, json_for_terminal
from mika.usage.ledger import UsageLedger

if TYPE_CHECKING:
    from mika.model.base import Model
    from mika.model.catalog import ListedModel

EXIT_CONFIG = ExitCode.USAGE
EXIT_PROVIDER = ExitCode.MODEL
EXIT_NO_TOOL_CALL = ExitCode.NOT_DONE


def _fail(message: str, code: int) -> NoReturn:
    echo(f"mika models: {message}", err=True)
    sys.exit(code)


def config_path_of(explicit: str | None) -> Path:
    """This command's --config, else the one given to `mika --config …`, else the default."""
    if explicit is None:
        ctx = click.get_current_context(silent=True)
        root = ctx.find_root().obj if ctx is not None else None
        if isinstance(root, dict):
            explicit = root.get("config")
    return config_file(explicit)


def apply_language(data: dict[str, Any]) -> None:
    general = data.get("general")
    set_language(general.get("language") if isinstance(general, dict) else None)


def _apply_language_of(path: Path) -> None:
    try:
        apply_language(read_config(path)[1])
    except ConfigError:
        pass  # the command itself reports a broken config


def _load(config_path: str | None) -> tuple[Path, ProvidersConfig]:
    path = config_path_of(config_path)
    _apply_language_of(path)
    try:
        _, data = read_config(path)
        apply_language(data)
        register_config_secrets(data, path)  # a key the provider echoes is masked in what we print
        return path, load_providers(data, path)
    except ConfigError as exc:
        _fail(str(exc), EXIT_CONFIG)


def is_local_host(host: str) -> bool:
    """localhost, loopback, private, link-local and unique-local addresses, `.local` names."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".local"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local


config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Config file (default: $MIKA_CONFIG or the XDG config path).",
)


@click.group("models")
def models_group() -> None:
    """Providers, presets and model roles."""


@models_group.command("presets")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def presets_command(as_json: bool) -> None:
    """List the provider presets."""
    if as_json:
        echo(
            json_for_terminal(
                [
                    {
                        "id": p.id,
                        "name": p.name,
                        "kind": p.kind,
                        "base_url": p.base_url,
                        "family_tokens": list(p.family_tokens),
                        "session_header": p.session_header,
                        "key_required": p.key_required,
                        "key_env": p.key_env,
                        "self_hosted": p.self_hosted,
                        "region": p.region,
                    }
                    for p in PRESETS
                ],
                indent=1,
            )
        )
        return
    for p in PRESETS:
        echo(t("presets_head", id=p.id, name=p.name, kind=p.kind, url=p.base_url or "-"))


def _listed_json(m: ListedModel) -> dict[str, Any]:
    return {
        "name": m.name,
        "display_name": m.display_name,
        "tools": m.tools,
        "images": m.images,
        "context_window": m.context_window,
        "reasoning": m.reasoning,
        "chat": m.looks_like_chat,
        "usable": m.usable,
        "endpoint": None
        if m.endpoint is None
        else {"kind": m.endpoint.kind, "base_url": m.endpoint.base_url, "reasoning_field": m.endpoint.reasoning_field},
        "unsupported_apis": list(m.unsupported_apis),
    }


async def _list_one(cfg: ProvidersConfig, provider_id: str) -> list[ListedModel]:
    from mika.model.catalog import ModelCatalog

    p = provider_settings(cfg, provider_id, key="PROVIDER")
    _no_list_for_sign_in(p.kind, provider_id)
    pre = preset(p.preset)
    key = None
    try:
        key = p.api_key()
    except ConfigError:
        if pre is None or pre.list_needs_key:
            raise
    catalog = ModelCatalog()
    try:
        return await catalog.list(
            p.kind, p.base_url, key, extra_headers=dict(p.headers), session_header=p.session_header
        )
    finally:
        await catalog.aclose()


def _no_list_for_sign_in(kind: str, provider_id: str) -> None:
    """A sign-in provider (the ChatGPT plan) is reached with tokens, not a key, and Mika
    does not list its models: the user names one."""
    from mika.model.catalog import CatalogError
    from mika.model.chatgpt.endpoints import DEFAULT_MODEL

    if kind in SIGN_IN_KINDS:
        raise CatalogError("sign_in", t("sign_in_no_list", provider=provider_id, model=DEFAULT_MODEL))


def listing_path(provider_id: str) -> Path:
    return state_dir() / "model-lists" / f"{provider_id}.json"


def _remember(provider_id: str, listed: list[ListedModel]) -> None:
    from mika.model.catalog import save_listing

    try:
        save_listing(listing_path(provider_id), listed)
    except OSError:
        pass  # only a convenience for `models use`; listing itself worked


def _caps(m: ListedModel) -> str:
    marks = []
    for flag, label in ((m.tools, "tools"), (m.images, "images"), (m.reasoning, "reasoning")):
        if flag is True:
            marks.append(label)
        elif flag is False:
            marks.append(f"no-{label}")
    if m.context_window:
        marks.append(f"{m.context_window // 1000}k")
    if m.endpoint is not None:
        marks.append(m.endpoint.kind)
    return " ".join(marks)


@models_group.command("list")
@click.argument("provider", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@config_option
def list_command(provider: str | None, as_json: bool, config_path: str | None) -> None:
    """List the models a configured provider offers."""
    from mika.model.catalog import CatalogError

    _, cfg = _load(config_path)
    ids = [provider] if provider else sorted(cfg.providers)
    if not ids:
        _fail("no providers configured; add one with `mika models add PRESET`", EXIT_CONFIG)
    out: dict[str, Any] = {}
    for pid in ids:
        try:
            listed = asyncio.run(_list_one(cfg, pid))
        except ConfigError as exc:
            _fail(str(exc), EXIT_CONFIG)
        except CatalogError as exc:
            _fail(f"{pid}: {exc.user_message()}", EXIT_PROVIDER)
        listed = [m for m in listed if m.usable]
        _remember(pid, listed)
        if as_json:
            out[pid] = [_listed_json(m) for m in listed]
            continue
        p = provider_settings(cfg, pid, key="PROVIDER")
        echo(
            t("list_head", provider=pid, kind=p.kind, url=p.base_url, n=len(listed))
            if listed
            else t("list_none", provider=pid)
        )
        for m in listed:
            echo(f"  {m.name:<44} {_caps(m)}")
    if as_json:
        echo(json_for_terminal(out, indent=1))


@models_group.command("add")
@click.argument("preset_id", metavar="PRESET", type=click.Choice(preset_ids()))
@click.option("--id", "provider_id", default=None, help="Provider id in the config (default: the preset id).")
@click.option("--base-url", default=None, help="Address (required for custom; self-hosted presets may change it).")
@click.option("--kind", type=click.Choice(KINDS), default=None, help="Protocol (custom only).")
@click.option("--api-key-env", default=None, help="Environment variable holding the key.")
@click.option("--api-key-file", default=None, help="File holding the key (mode 0600).")
@click.option("--name", default=None, help="Display name.")
@click.option(
    "--test",
    "run_test",
    is_flag=True,
    help="Probe before saving (list, then try up to 3 models); the first that passes becomes the "
    "main model if none is set.",
)
@click.option(
    "--model", "model_name", default=None, help="With --test: the model to try (for providers without a list)."
)
@click.option(
    "--timeout", type=float, default=PROBE_TIMEOUT, show_default=True, help="With --test: seconds per attempt."
)
@config_option
def add_command(
    preset_id: str,
    provider_id: str | None,
    base_url: str | None,
    kind: str | None,
    api_key_env: str | None,
    api_key_file: str | None,
    name: str | None,
    run_test: bool,
    model_name: str | None,
    timeout: float,
    config_path: str | None,
) -> None:
    """Add a provider from a preset to the config file."""
    p = preset(preset_id)
    assert p is not None  # click.Choice
    path = config_path_of(config_path)
    _apply_language_of(path)
    if p.id == "custom" and (not base_url or not kind):
        _fail("a custom provider needs --base-url and --kind", EXIT_CONFIG)
    if kind and p.id != "custom" and kind != p.kind:
        _fail(
            f"the {p.name} preset speaks {p.kind}; use `mika models add custom --kind {kind}` for another protocol",
            EXIT_CONFIG,
        )
    if api_key_env is None and api_key_file is None and p.key_env:
        api_key_env = p.key_env
    url = base_url or p.base_url
    values = {
        "preset": p.id,
        "name": name,
        "kind": kind if p.id == "custom" else None,
        "base_url": base_url,
        "api_key_env": api_key_env,
        "api_key_file": api_key_file,
    }
    pid = provider_id or p.id
    try:
        new_text, planned = plan_provider_table(path, pid, values)
    except ConfigError as exc:
        _fail(str(exc), EXIT_CONFIG)
    chosen = None
    if run_test:
        chosen = _test_before_saving(planned, pid, model_name, timeout)
    try:
        write_secret_file(path, new_text)  # the config may hold header secrets: 0600, not masked
        if chosen is not None and planned.roles.main is None:
            set_role(path, "main", f"{pid}/{chosen}")
    except ConfigError as exc:
        _fail(str(exc), EXIT_CONFIG)
    except OSError as exc:
        _fail(f"cannot write {path}: {exc.strerror or exc}", EXIT_CONFIG)
    parsed = urlparse(url)
    if parsed.scheme == "http" and not is_local_host(parsed.hostname or ""):
        echo(t("cleartext", url=url), err=True)
    known = for_host(url) if p.id == "custom" else None
    if known is not None:
        echo(t("same_host", url=url, preset=known.id), err=True)
    echo(t("added", id=pid, name=name or p.name, file=path))
    if chosen is not None and planned.roles.main is None:
        echo(t("used", role="main", value=f"{pid}/{chosen}", file=path))
        return
    if api_key_env and not run_test:
        echo(t("key_hint", env=api_key_env))
    echo(t("next_use", id=pid))
    if run_test and chosen is None:
        sys.exit(EXIT_NO_TOOL_CALL)


def _test_before_saving(cfg: ProvidersConfig, pid: str, model_name: str | None, timeout: float) -> str | None:
    """Probe the provider about to be saved. Returns the model that passed; None when the
    key works but no model passed (the provider is still saved). Anything that proves
    the provider itself unusable (key, address, network) stops here, unsaved."""
    from mika.model.catalog import CatalogError

    target = f"{pid}/{model_name}" if model_name else pid
    ledger = UsageLedger(state_dir() / "usage-v1.json")
    try:
        result = asyncio.run(_run_probe(cfg, target, ledger, timeout))
    except ConfigError as exc:
        _fail(str(exc), EXIT_CONFIG)
    except CatalogError as exc:
        hint = " (give a model with --model NAME)" if exc.kind == "no_list" else ""
        _fail(f"{pid}: {exc.user_message()}{hint}; nothing was saved", EXIT_PROVIDER)
    except ModelError as exc:
        _fail(f"{pid}: {exc.user_message()}; nothing was saved", EXIT_PROVIDER)
    finally:
        ledger.close()
    for a in result.attempts:
        _print_attempt(a)
    if result.passed is not None:
        return result.passed.model
    first = result.attempts[0]
    if first.error is not None and first.error.kind not in MODEL_PROBLEMS:
        _fail(f"{first.error.user_message()}; nothing was saved", EXIT_PROVIDER)
    return None


@models_group.command("use")
@click.argument("role", type=click.Choice(["main", "vision", "light"]))
@click.argument("value", metavar="PROVIDER/MODEL")
@config_option
def use_command(role: str, value: str, config_path: str | None) -> None:
    """Choose the model for a role (vision also takes "main" or "none"; light takes "main")."""
    path = config_path_of(config_path)
    _apply_language_of(path)
    if value in ("main", "none") and (role == "main" or (role == "light" and value == "none")):
        _fail(f"{role} takes PROVIDER/MODEL" + (' or "main"' if role == "light" else ""), EXIT_CONFIG)
    try:
        cfg = set_role(path, role, value)
        if "/" in value:
            _record_listed_endpoint(path, cfg, value)
    except ConfigError as exc:
        _fail(str(exc), EXIT_CONFIG)
    echo(t("used", role=role, value=value, file=path))


def _record_listed_endpoint(path: Path, cfg: ProvidersConfig, value: str) -> None:
    """One provider, several protocols: when the remembered listing says this model
    speaks another protocol or lives at another address, write that into its table."""
    from mika.model.catalog import load_listing

    provider_id, model = value.split("/", 1)
    p = cfg.providers.get(provider_id)
    if p is None:
        return
    listed = next((m for m in load_listing(listing_path(provider_id)) if m.name == model), None)
    if listed is None:
        return
    values: dict[str, Any] = {"context_window": listed.context_window}
    e = listed.endpoint
    if e is not None:
        if e.kind != p.kind:
            values["kind"] = e.kind
        if e.base_url.rstrip("/") != p.base_url.rstrip("/"):
            values["base_url"] = e.base_url
        values["reasoning_field"] = e.reasoning_field
    add_model_table(path, provider_id, model, values)


async def _run_probe(cfg: ProvidersConfig, target: str, ledger: UsageLedger, timeout: float):
    from mika.model.catalog import CatalogError, ModelCatalog, probe_candidates

    provider_id, _, model_name = target.partition("/")
    p = provider_settings(cfg, provider_id, key="PROVIDER")
    if model_name:
        candidates = [model_name]
    else:
        _no_list_for_sign_in(p.kind, provider_id)
        catalog = ModelCatalog()
        try:
            listed = await catalog.list(
                p.kind, p.base_url, p.api_key(), extra_headers=dict(p.headers), session_header=p.session_header
            )
        finally:
            await catalog.aclose()
        _remember(provider_id, [m for m in listed if m.usable])
        pre = preset(p.preset)
        candidates = probe_candidates(listed, pre.family_tokens if pre else ())
        if not candidates:
            raise CatalogError("no_list", t("no_candidates", provider=provider_id))

    def make(name: str) -> Model:
        return metered(build_model(cfg, ModelRef(provider_id, name), key="PROVIDER"), ledger, "probe")

    return await probe(make, candidates, timeout=timeout)


def _print_attempt(a: ProbeAttempt) -> None:
    if a.ok:
        echo(
            t(
                "probe_ok",
                provider=a.provider,
                model=a.model,
                ms=a.latency_ms,
                input=a.usage.input_tokens,
                output=a.usage.output_tokens,
                cached=a.usage.cached_input_tokens,
            )
        )
    elif a.error is None:
        echo(t("probe_text", provider=a.provider, model=a.model, text=a.text.strip()[:200]))
    else:
        echo(t("probe_error", provider=a.provider, model=a.model, message=a.error.user_message()))
        if a.error.kind is ModelErrorKind.MODEL_NOT_FOUND:
            echo(t("not_found_hint", provider=a.provider))


@models_group.command("test")
@click.argument("target", metavar="PROVIDER[/MODEL]")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--timeout", type=float, default=PROBE_TIMEOUT, show_default=True, help="Seconds per attempt.")
@config_option
def test_command(target: str, as_json: bool, timeout: float, config_path: str | None) -> None:
    """Make a real call offering the tool get_time and report what came back."""
    from mika.model.catalog import CatalogError

    _, cfg = _load(config_path)
    ledger = UsageLedger(state_dir() / "usage-v1.json")
    try:
        result = asyncio.run(_run_probe(cfg, target, ledger, timeout))
    except ConfigError as exc:
        _fail(str(exc), EXIT_CONFIG)
    except CatalogError as exc:
        _fail(f"{target}: {exc.user_message()}", EXIT_PROVIDER)
    except ModelError as exc:  # the model could not even be built (a sign-in provider, signed out)
        _fail(f"{target}: {exc.user_message()}", EXIT_PROVIDER)
    finally:
        ledger.close()
    chosen = result.passed or result.last
    assert chosen is not None
    if as_json:
        body = chosen.as_json()
        body["attempts"] = [a.as_json() for a in result.attempts]
        echo(json_for_terminal(body, indent=1))
    else:
        for a in result.attempts:
            _print_attempt(a)
        if len(result.attempts) > 1:
            echo(t("probe_tried", models=", ".join(a.model for a in result.attempts)))
    if chosen.ok:
        return
    if chosen.error is not None:
        if not as_json:
            echo(f"mika models: {chosen.error.user_message()}", err=True)
        sys.exit(EXIT_PROVIDER)
    sys.exit(EXIT_NO_TOOL_CALL)
