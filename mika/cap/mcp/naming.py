"""The names MCP tools get in a run: `mcp_<server>_<tool>`, safe for every provider.

Providers accept `[A-Za-z0-9_-]` names of at most 64 characters; a server may call its
tools anything. Each name is sanitised (other characters become `_`), cut to the cap
with a short hash of the original kept at the end (two long names that share a start
stay apart), and a name still taken gets `_2`, `_3` … in the order the servers are
configured and their tools listed, so the same config gives the same names every run.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

MAX_LEN = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_]+")


def _clean(part: str) -> str:
    return _UNSAFE.sub("_", part).strip("_") or "x"


def base_name(server: str, tool: str) -> str:
    name = f"mcp_{_clean(server)}_{_clean(tool)}"
    if len(name) <= MAX_LEN:
        return name
    digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_LEN - 9].rstrip('_')}_{digest}"


def assign_names(pairs: Iterable[tuple[str, str]], taken: Iterable[str] = ()) -> list[str]:
    """One run name per (server, tool), in order; none equals another or one of `taken`."""
    used = set(taken)
    out: list[str] = []
    for server, tool in pairs:
        name = base = base_name(server, tool)
        n = 2
        while name in used:
            suffix = f"_{n}"
            name = base[: MAX_LEN - len(suffix)] + suffix
            n += 1
        used.add(name)
        out.append(name)
    return out
