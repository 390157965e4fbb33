"""Where the fixed texts (prompts/, knowledge/, skills/) live.

In a checkout they are top-level folders next to the package; in an installed wheel
they are packed under mika/_data/. Prompts are read once and cached: they never change
while Mika runs, and the request prefix must stay byte-identical.
"""

from __future__ import annotations

import functools
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _root(name: str) -> Path:
    checkout = _PACKAGE.parent / name
    if checkout.is_dir():
        return checkout
    return _PACKAGE / "_data" / name


def prompts_dir() -> Path:
    return _root("prompts")


def knowledge_dir() -> Path:
    return _root("knowledge")


def skills_dir() -> Path:
    return _root("skills")


class MissingPrompt(LookupError):
    pass


@functools.cache
def prompt(relative: str) -> str:
    """Text of prompts/<relative> (e.g. "tools/wait.md"), stripped of the trailing newline."""
    path = prompts_dir() / relative
    try:
        return path.read_text(encoding="utf-8").rstrip("\n")
    except FileNotFoundError:
        raise MissingPrompt(f"prompt file missing: {path}") from None


def has_prompt(relative: str) -> bool:
    return (prompts_dir() / relative).is_file()
