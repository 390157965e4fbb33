"""Keys the config does not know, each with the closest key it does know.

A typo (`general.pase`) would otherwise be ignored silently and the default used, which
looks like Mika not listening. Tables read elsewhere (`[providers.*]`, `[roles]`) are
checked where they are parsed; only their names are known here. Each `[mcp.servers.NAME]`
table's keys are checked here too (a misspelt `comand` would leave the server unusable
with a less helpful error).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from mika.config.mcp_servers import SERVER_KEYS

# table -> its keys; None: the table's keys are free (bindings, provider ids).
KNOWN: dict[str, frozenset[str] | None] = {
    "general": frozenset({"language", "autonomous", "pace"}),
    "device": frozenset({"default"}),
    "phone": frozenset({"display", "keep_apps_after_run", "picture_long_side", "picture_format"}),
    "run": frozenset({"max_parallel", "judge_outcome", "review_final_answer", "replay"}),
    "sandbox": frozenset({"enabled", "network", "cpu_seconds"}),
    "learning": frozenset({"skills"}),
    "ui": frozenset({"graphics", "notify"}),
    "memory": frozenset({"use", "auto_extract"}),
    "web": frozenset({"enabled", "browser", "headless", "download_cap_mb"}),
    "mcp": frozenset({"servers"}),
    "keymap": None,
    "providers": None,
    "roles": None,
}


def closest(word: str, choices: Iterable[str]) -> str | None:
    found = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return found[0] if found else None


def did_you_mean(word: str, choices: Iterable[str], prefix: str = "") -> str:
    """' (did you mean general.pace?)', or '' when nothing is close."""
    match = closest(word, choices)
    return f" (did you mean {prefix}{match}?)" if match else ""


def unknown_keys(data: dict[str, Any]) -> list[str]:
    """One sentence per unknown table or key, in file order."""
    out: list[str] = []
    for table, section in data.items():
        if table not in KNOWN:
            if isinstance(section, dict):
                out.append(f"unknown table [{table}]{did_you_mean(table, KNOWN)}")
            else:
                # A top-level key outside any table: most often meant for [general].
                general = KNOWN["general"] or ()
                hint = did_you_mean(table, general, "general.") or did_you_mean(table, KNOWN)
                out.append(f"unknown key {table}{hint}")
            continue
        keys = KNOWN[table]
        if keys is None or not isinstance(section, dict):
            continue
        for key in section:
            if key not in keys:
                out.append(f"unknown key {table}.{key}{did_you_mean(key, keys, table + '.')}")
        if table == "mcp":
            out.extend(_server_keys(section.get("servers")))
    return out


def _server_keys(servers: Any) -> list[str]:
    if not isinstance(servers, dict):
        return []
    out: list[str] = []
    for name, server in servers.items():
        if not isinstance(server, dict):
            continue
        prefix = f"mcp.servers.{name}."
        out.extend(
            f"unknown key {prefix}{key}{did_you_mean(key, SERVER_KEYS, prefix)}"
            for key in server
            if key not in SERVER_KEYS
        )
    return out
