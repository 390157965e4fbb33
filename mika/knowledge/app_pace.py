"""An app's `pace` from its knowledge (`knowledge/apps/<package>/APP.md`, `pace: careful`).

Read from the same catalog a run's knowledge comes from, so the user's copy under
`$XDG_DATA_HOME/mika/knowledge/` wins over the shipped one. A package no file claims, a
broken file or an odd package name all mean "" (normal pace): knowledge never stops a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mika.knowledge.catalog import KnowledgeCatalog, knowledge_roots
from mika.knowledge.entries import PACKAGE


class AppPace:
    """`AppPace()(package)` → "careful" or ""; the index is read once, at the first ask."""

    def __init__(self, roots: Sequence[Path] | None = None, *, catalog: KnowledgeCatalog | None = None) -> None:
        self.roots = list(roots) if roots is not None else [r for r, _ in knowledge_roots()]
        self._catalog = catalog

    def __call__(self, package: str) -> str:
        if not PACKAGE.match(package or ""):
            return ""
        if self._catalog is None:
            origins = ["user"] * (len(self.roots) - 1) + ["shipped"]
            self._catalog = KnowledgeCatalog.load(list(zip(self.roots, origins, strict=True)))
        entry = self._catalog.for_package(package)
        return entry.pace if entry is not None else ""

    def __eq__(self, other: object) -> bool:
        # Two lookups over the same folders answer alike; run options are compared by value.
        return isinstance(other, AppPace) and self.roots == other.roots

    def __hash__(self) -> int:
        return hash(tuple(self.roots))
