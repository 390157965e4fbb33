"""Saving what the Settings and Models screens change into the TOML config.

tomllib only reads, so the merged mapping is written back by `dumps` (plain tables of
strings, numbers, booleans and string lists — everything config.example.toml uses).
Comments in a hand-written file are not kept; the screens say where they saved.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from mika.atomic_write import write_secret_file


class ConfigWriteError(Exception):
    pass


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise ConfigWriteError(f"cannot write {type(v).__name__} values to the config")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)


def dumps(data: dict[str, Any]) -> str:
    out: list[str] = []

    def table(prefix: str, mapping: dict[str, Any]) -> None:
        plain = {k: v for k, v in mapping.items() if not isinstance(v, dict)}
        nested = {k: v for k, v in mapping.items() if isinstance(v, dict)}
        if prefix and (plain or not nested):
            out.append(f"[{prefix}]")
        for k, v in plain.items():
            out.append(f"{_key(k)} = {_value(v)}")
        if plain or (prefix and not nested):
            out.append("")
        for k, v in nested.items():
            table(f"{prefix}.{_key(k)}" if prefix else _key(k), v)

    table("", data)
    return "\n".join(out).rstrip() + "\n"


def update_config(path: Path, changes: dict[str, Any]) -> None:
    """Merge `changes` (nested tables) into the file at `path` and write it atomically."""
    try:
        current = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigWriteError(f"{path}: {exc}") from None

    def merge(dst: dict[str, Any], src: dict[str, Any]) -> None:
        for k, v in src.items():
            if isinstance(v, dict) and isinstance(dst.get(k), dict):
                merge(dst[k], v)
            else:
                dst[k] = v

    merge(current, changes)
    try:
        write_secret_file(path, dumps(current))  # may hold keys: 0600, not masked
    except OSError as exc:
        raise ConfigWriteError(f"{path}: {exc}") from None
