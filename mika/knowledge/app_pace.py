"""An app's `pace` from its knowledge front matter (`knowledge/apps/<package>/APP.md`).

A small reader until the real knowledge catalog (issue 14) exists: the user's copy under
`$XDG_DATA_HOME/mika/knowledge/` wins over the shipped one. Only `pace: careful` means
anything today; a missing file, no front matter, an odd package name or an unreadable
file all mean "" (normal pace) — knowledge never stops a run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from mika.resources import knowledge_dir

# Package names are dotted identifiers; anything else (a path, "..") is never looked up.
_PACKAGE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$")
_FRONT = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n", re.S)
_PACE = re.compile(r"^pace\s*:\s*['\"]?([A-Za-z]+)['\"]?\s*(#.*)?$", re.M)


def user_knowledge_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "mika" / "knowledge"


class AppPace:
    """`AppPace()(package)` → "careful" or ""; answers are cached for the run."""

    def __init__(self, roots: Sequence[Path] | None = None) -> None:
        self.roots = list(roots) if roots is not None else [user_knowledge_dir(), knowledge_dir()]
        self._cache: dict[str, str] = {}

    def __call__(self, package: str) -> str:
        if package not in self._cache:
            self._cache[package] = self._look_up(package)
        return self._cache[package]

    def __eq__(self, other: object) -> bool:
        # Two lookups over the same folders answer alike; run options are compared by value.
        return isinstance(other, AppPace) and self.roots == other.roots

    def __hash__(self) -> int:
        return hash(tuple(self.roots))

    def _look_up(self, package: str) -> str:
        if not _PACKAGE.match(package or ""):
            return ""
        for root in self.roots:
            path = root / "apps" / package / "APP.md"
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            front = _FRONT.match(text)
            found = _PACE.search(front.group(1)) if front else None
            return found.group(1).lower() if found else ""
        return ""
