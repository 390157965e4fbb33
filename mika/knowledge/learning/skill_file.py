"""The Agent Skills rules a learned skill must meet, and how its SKILL.md is written.

Kept apart from the store and the drafter: both check a name the same way, and a skill
file written by one must read back with the knowledge parser."""

from __future__ import annotations

import re
from collections.abc import Mapping

# Agent Skills: 1–64 chars, lower-case letters, digits and single hyphens, no hyphen at an end.
NAME_MAX = 64
DESCRIPTION_MAX = 1024
BODY_MAX = 8000  # a learned skill is a short procedure; a longer reply is a model rambling
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def name_problem(name: str) -> str:
    """ "" when `name` is a valid skill name, else what is wrong with it."""
    if not name:
        return "the name is empty"
    if len(name) > NAME_MAX:
        return f"the name is {len(name)} characters; at most {NAME_MAX} are allowed"
    if not _NAME.match(name):
        return "the name may hold only a-z, 0-9 and single hyphens, not at its start or end"
    return ""


def description_problem(description: str) -> str:
    if not description.strip():
        return "the description is empty"
    if len(description) > DESCRIPTION_MAX:
        return f"the description is {len(description)} characters; at most {DESCRIPTION_MAX} are allowed"
    if "\n" in description:
        return "the description must be one line"
    return ""


def with_suffix(name: str, taken: set[str]) -> str:
    """`name`, or `name-2`, `name-3`… — the first that is not taken and still a valid name."""
    if name not in taken:
        return name
    n = 2
    while True:
        tail = f"-{n}"
        candidate = name[: NAME_MAX - len(tail)].rstrip("-") + tail
        if candidate not in taken:
            return candidate
        n += 1


def _quoted(value: str) -> str:
    # Single quotes with '' for a quote: the one escape the front-matter parser undoes
    # exactly, so no value (":", "#", quotes, brackets) can break the front matter.
    return "'" + value.replace("'", "''") + "'"


def render(name: str, description: str, body: str, metadata: Mapping[str, str] | None = None) -> str:
    lines = ["---", f"name: {name}", f"description: {_quoted(description)}"]
    if metadata:
        lines.append("metadata:")
        lines.extend(f"  {key}: {_quoted(str(value))}" for key, value in metadata.items())
    lines.append("---")
    return "\n".join(lines) + "\n" + body.strip("\n") + "\n"
