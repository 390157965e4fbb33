"""Edit the config file's text in place (comments and layout survive), then re-validate.

tomllib only reads; instead of a TOML writer we touch exactly the lines we own: append a
`[providers.ID]` table, or set one key of `[roles]`.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from mika.atomic_write import write_secret_file
from mika.config.errors import ConfigError
from mika.model.providers_config import ProvidersConfig, load_providers

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_HEADER = re.compile(r"^\s*\[")


def toml_string(value: str) -> str:
    # A JSON string is a valid TOML basic string (same escapes).
    return json.dumps(value, ensure_ascii=False)


def toml_key(key: str) -> str:
    return key if BARE_KEY.match(key) else toml_string(key)


def read_config(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", {}
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, "", f"valid TOML ({exc})") from None


def _validated(path: Path, text: str) -> ProvidersConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # only if our edit met something unusual
        raise ConfigError(path, "", f"valid TOML after the edit ({exc}); the file was not changed") from None
    return load_providers(data, path)


def add_provider_table(path: Path, provider_id: str, values: dict[str, Any]) -> ProvidersConfig:
    new, cfg = plan_provider_table(path, provider_id, values)
    write_secret_file(path, new)  # the config may hold header secrets: 0600, not masked
    return cfg


def plan_provider_table(path: Path, provider_id: str, values: dict[str, Any]) -> tuple[str, ProvidersConfig]:
    """The config text with the new table appended, validated but not written yet (so a
    connection test can run first)."""
    text, data = read_config(path)
    if not BARE_KEY.match(provider_id):
        raise ConfigError(path, "--id", "a provider id of letters, digits, '-' or '_'", provider_id)
    if provider_id in (data.get("providers") or {}):
        raise ConfigError(path, f"providers.{provider_id}", "a provider id not used yet (choose another with --id)",
                          provider_id)
    new = _append_table(text, f"providers.{provider_id}", values)
    return new, _validated(path, new)


def _append_table(text: str, header: str, values: dict[str, Any]) -> str:
    lines = [f"[{header}]"]
    for key, value in values.items():
        if value is None:
            continue
        rendered = toml_string(value) if isinstance(value, str) else ("true" if value is True else
                                                                       "false" if value is False else str(value))
        lines.append(f"{key} = {rendered}")
    block = "\n".join(lines) + "\n"
    return (text.rstrip("\n") + "\n\n" + block) if text.strip() else block


def add_model_table(path: Path, provider_id: str, model: str, values: dict[str, Any]) -> ProvidersConfig | None:
    """Record what a listing said about a chosen model, unless the user already has a
    table for it (theirs wins). Returns None when nothing was written."""
    text, data = read_config(path)
    existing = ((data.get("providers") or {}).get(provider_id) or {}).get("models") or {}
    if model in existing or not any(v is not None for v in values.values()):
        return None
    new = _append_table(text, f"providers.{toml_key(provider_id)}.models.{toml_string(model)}", values)
    cfg = _validated(path, new)
    write_secret_file(path, new)  # the config may hold header secrets: 0600, not masked
    return cfg


def set_role(path: Path, role: str, value: str) -> ProvidersConfig:
    text, _ = read_config(path)
    line = f"{role} = {toml_string(value)}"
    lines = text.splitlines()
    # Top-level dotted form (`roles.main = …`) before the first table header.
    for i, existing in enumerate(lines):
        if _HEADER.match(existing):
            break
        if re.match(rf"^\s*roles\.{role}\s*=", existing):
            lines[i] = f"roles.{line}"
            return _write(path, lines)
    start = next((i for i, l in enumerate(lines) if re.match(r"^\s*\[roles\]\s*(#.*)?$", l)), None)
    if start is None:
        new = (text.rstrip("\n") + "\n\n" if text.strip() else "") + f"[roles]\n{line}\n"
        cfg = _validated(path, new)
        write_secret_file(path, new)  # the config may hold header secrets: 0600, not masked
        return cfg
    end = next((i for i in range(start + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
    for i in range(start + 1, end):
        if re.match(rf"^\s*{role}\s*=", lines[i]):
            lines[i] = line
            return _write(path, lines)
    lines.insert(start + 1, line)
    return _write(path, lines)


def _write(path: Path, lines: list[str]) -> ProvidersConfig:
    new = "\n".join(lines) + "\n"
    cfg = _validated(path, new)
    write_secret_file(path, new)  # the config may hold header secrets: 0600, not masked
    return cfg
