"""Edit the user's config file in place, then re-validate.

tomlkit parses the file into a document that keeps every comment, blank line and the
order of the user's tables; we add or set only what `mika models add|use` owns (a
`[providers.ID]` table, a `[providers.ID.models."NAME"]` table, one key of `[roles]`)
and write the document back. tomlkit quotes keys and escapes strings, so odd model
names and values (dots, slashes, quotes, newlines, any Unicode) stay what they were.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.container import Container, OutOfOrderTableProxy
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import InlineTable, Table
from tomlkit.toml_document import TOMLDocument

from mika.atomic_write import write_secret_file
from mika.config.errors import ConfigError
from mika.model.providers_config import ProvidersConfig, load_providers

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def read_config(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", {}
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, "", f"valid TOML ({exc})") from None


def _document(path: Path, text: str) -> TOMLDocument:
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:  # tomllib accepted it, so only on a tomlkit disagreement
        raise ConfigError(path, "", f"TOML that can be edited in place ({exc})") from None


def _validated(path: Path, text: str) -> ProvidersConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # only if our edit met something unusual
        raise ConfigError(path, "", f"valid TOML after the edit ({exc}); the file was not changed") from None
    return load_providers(data, path)


def _new_table(path: Path, doc: TOMLDocument, keys: list[str], values: dict[str, Any]) -> None:
    """Add the table at `keys` (which must not exist yet) holding `values` (None skipped).
    Missing parents become header-less super tables, so `[providers.x]` appears alone,
    as a person would write it."""
    parent: Container | Table | InlineTable | OutOfOrderTableProxy = doc
    for depth, key in enumerate(keys[:-1]):
        item = parent.get(key)
        if item is None:
            item = tomlkit.table(is_super_table=True)
            parent[key] = item
        # A proxy stands for `[providers.a]` … `[roles]` … `[providers.b]`: tables of one
        # parent that the user did not keep together.
        elif not isinstance(item, (Table, InlineTable, OutOfOrderTableProxy)):
            dotted = ".".join(keys[: depth + 1])
            raise ConfigError(path, dotted, "a table", item.unwrap() if hasattr(item, "unwrap") else item)
        parent = item
    table = tomlkit.table()
    for key, value in values.items():
        if value is not None:
            table[key] = value
    table.add(tomlkit.nl())  # a blank line before whatever table follows
    parent[keys[-1]] = table


def plan_provider_table(path: Path, provider_id: str, values: dict[str, Any]) -> tuple[str, ProvidersConfig]:
    """The config text with the new table added, validated but not written yet (so a
    connection test can run first)."""
    text, data = read_config(path)
    if not BARE_KEY.match(provider_id):
        raise ConfigError(path, "--id", "a provider id of letters, digits, '-' or '_'", provider_id)
    existing = data.get("providers")
    if isinstance(existing, dict) and provider_id in existing:
        raise ConfigError(
            path, f"providers.{provider_id}", "a provider id not used yet (choose another with --id)", provider_id
        )
    doc = _document(path, text)
    _new_table(path, doc, ["providers", provider_id], values)
    new = tomlkit.dumps(doc)
    return new, _validated(path, new)


def add_model_table(path: Path, provider_id: str, model: str, values: dict[str, Any]) -> ProvidersConfig | None:
    """Record what a listing said about a chosen model, unless the user already has a
    table for it (theirs wins). Returns None when nothing was written."""
    text, data = read_config(path)
    existing = ((data.get("providers") or {}).get(provider_id) or {}).get("models") or {}
    if model in existing or not any(v is not None for v in values.values()):
        return None
    doc = _document(path, text)
    _new_table(path, doc, ["providers", provider_id, "models", model], values)
    new = tomlkit.dumps(doc)
    cfg = _validated(path, new)
    write_secret_file(path, new)  # may hold keys: 0600, not masked
    return cfg


def set_role(path: Path, role: str, value: str) -> ProvidersConfig:
    """Set `roles.ROLE`, wherever the user keeps it: a `[roles]` table, dotted
    `roles.main = …` keys at the top, or an inline table; a `[roles]` table is added when
    there is none."""
    text, _ = read_config(path)
    doc = _document(path, text)
    roles = doc.get("roles")
    if roles is None:
        roles = tomlkit.table()
        doc["roles"] = roles
    elif not isinstance(roles, (Table, InlineTable, OutOfOrderTableProxy)):
        raise ConfigError(path, "roles", "a [roles] table", roles.unwrap() if hasattr(roles, "unwrap") else roles)
    roles[role] = value
    new = tomlkit.dumps(doc)
    cfg = _validated(path, new)
    write_secret_file(path, new)  # may hold keys: 0600, not masked
    return cfg
