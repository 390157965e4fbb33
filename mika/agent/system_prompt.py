"""`SystemPrompt`: the fixed system text, assembled in a fixed order.

prompts/system/*.md in file-name order, then the section of every open capability group
in the fixed group order. Rebuilt only when a group opens; otherwise byte-identical
within a run.
"""

from __future__ import annotations

from collections.abc import Mapping

from mika.resources import prompts_dir
from mika.tool.groups import GROUP_ORDER


def base_text() -> str:
    parts = [p.read_text(encoding="utf-8").rstrip("\n") for p in sorted((prompts_dir() / "system").glob("*.md"))]
    return "\n\n".join(parts)


class SystemPrompt:
    def __init__(self, sections: Mapping[str, str]) -> None:
        # group -> capability section text (capabilities/<id>.md), joined once the group opens.
        self._sections = dict(sections)
        self._base = base_text()

    def build(self, open_groups: set[str]) -> str:
        order = list(GROUP_ORDER) + sorted(set(self._sections) - set(GROUP_ORDER))
        parts = [self._base] + [self._sections[g] for g in order if g in open_groups and g in self._sections]
        return "\n\n".join(p for p in parts if p)
