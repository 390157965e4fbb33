"""Android users from `pm list users` / `pm list packages --user N`: which apps are also
installed in another user (MIUI/ColorOS dual apps use user 999, a work profile 10+)."""

from __future__ import annotations

import re

_USER = re.compile(r"UserInfo\{(\d+):([^:}]*):[0-9a-fA-F]*\}")


def parse_users(text: str) -> dict[int, str]:
    """user id → name; `Users:\\n\\tUserInfo{0:Owner:c13} running` …"""
    return {int(m.group(1)): m.group(2) for m in _USER.finditer(text)}


def parse_packages(text: str) -> set[str]:
    out = set()
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("package:"):
            out.add(line[len("package:") :].rsplit("=", 1)[-1].strip())
    return out
