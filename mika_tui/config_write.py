"""Saving what the Settings and Models screens change into the TOML config.

An existing file is edited in place with tomlkit: the changed keys are set inside the
user's own tables, and every comment, blank line and table order stays as they wrote it.
A config that does not exist yet is written fresh with tomli-w. Either way the result is
read back with tomllib before it replaces the file, so a bad edit never lands.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomli_w
import tomlkit
from tomlkit.container import OutOfOrderTableProxy
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import InlineTable, Table
from tomlkit.toml_document import TOMLDocument

from mika.atomic_write import write_secret_file


class ConfigWriteError(Exception):
    pass


_TABLES = (Table, InlineTable, OutOfOrderTableProxy, TOMLDocument)


def dumps(data: dict[str, Any]) -> str:
    """A whole config file from a plain mapping (tables of strings, numbers, booleans, lists)."""
    try:
        return tomli_w.dumps(data)
    except TypeError as exc:
        raise ConfigWriteError(f"cannot write this value to the config: {exc}") from None


def _merge(dst: Any, src: dict[str, Any], where: str) -> None:
    for key, value in src.items():
        here = f"{where}.{key}" if where else key
        current = dst.get(key)
        if isinstance(value, dict):
            if current is None:
                dst[key] = tomlkit.table()
                current = dst[key]
            elif not isinstance(current, _TABLES):
                raise ConfigWriteError(f"{here} is a value in the file, not a table; fix or remove it first")
            _merge(current, value, here)
        else:
            if isinstance(current, _TABLES):
                raise ConfigWriteError(f"{here} is a table in the file, not a value; fix or remove it first")
            try:
                dst[key] = value
            except (TypeError, ValueError, TOMLKitError) as exc:
                raise ConfigWriteError(f"cannot write {here} = {value!r} to the config: {exc}") from None


def preview_config(path: Path, changes: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The file's text after merging `changes`, and that text as the config loader reads it
    (tomllib): what a save would write, for checking before anything is written."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else None
    except OSError as exc:
        raise ConfigWriteError(f"{path}: {exc}") from None
    if text is None or not text.strip():
        new = dumps(changes)
    else:
        try:
            tomllib.loads(text)  # the same reader the config loader uses decides "broken"
            doc = tomlkit.parse(text)
        except (tomllib.TOMLDecodeError, TOMLKitError) as exc:
            raise ConfigWriteError(f"{path}: {exc}") from None
        _merge(doc, changes, "")
        new = tomlkit.dumps(doc)
    try:
        data = tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:  # only if the edit met something unusual
        raise ConfigWriteError(f"{path}: the edit would not be valid TOML ({exc}); the file was not changed") from None
    return new, data


def write_config_text(path: Path, text: str) -> None:
    try:
        write_secret_file(path, text)  # atomic (temp file + rename); may hold keys: 0600, not masked
    except OSError as exc:
        raise ConfigWriteError(f"{path}: {exc}") from None


def update_config(
    path: Path, changes: dict[str, Any], check: Callable[[dict[str, Any]], None] | None = None
) -> dict[str, Any]:
    """Merge `changes` (nested tables) into the file at `path` and write it atomically.
    `check` sees the result as the loader will read it and may raise; then nothing is
    written. Returns that result."""
    new, data = preview_config(path, changes)
    if check is not None:
        check(data)
    write_config_text(path, new)
    return data
