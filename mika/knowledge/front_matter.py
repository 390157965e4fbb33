"""The front matter of APP.md, SITE.md and SKILL.md: a small, strict YAML subset.

Why not a YAML library: these files are a contract between people who write them by hand
and a checker that must name the exact line of a mistake; a full YAML reader accepts far
more than we mean (anchors, tags, dates turned into objects, "no" turned into false) and
reports errors in its own terms. What is accepted, and nothing else:

    key: value            plain, 'single' or "double" quoted; true / false
    key: [a, "b c"]       an inline list of scalars
    key:                  followed by "  - item" lines: a block list
    key:                  followed by "  sub: value" lines: one level of map
    key: >  /  key: |     followed by indented lines: folded / literal text
    # comment             whole-line, or after a space

Values stay strings (a version "1.10" is not a number). A file without front matter, a
tab in the indentation, a repeated key or a line that is none of the above is a
`FrontMatterError` naming the file and the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)\s*:(?:\s+(.*))?$")
_ITEM = re.compile(r"^-(?:\s+(.*))?$")


class FrontMatterError(ValueError):
    """A mistake in a knowledge or skill file, at a line (1-based; 0: the whole file)."""

    def __init__(self, path: Path | str, line: int, message: str) -> None:
        self.path = Path(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line else str(self.path)
        super().__init__(f"{where}: {message}")

    def as_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "line": self.line, "message": self.message}


@dataclass(frozen=True)
class Document:
    meta: dict[str, Any]
    body: str
    path: Path
    body_line: int  # the file line the body starts on
    lines: dict[str, int] = field(default_factory=dict)  # key → the line it was given on

    def line_of(self, key: str) -> int:
        return self.lines.get(key, 1)


def _strip_comment(text: str) -> str:
    """Drop a trailing " # comment" that is not inside quotes."""
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
    return text.rstrip()


def _scalar(raw: str, err: _Errors) -> str | bool:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        inner = raw[1:-1]
        if raw[0] == "'":
            return inner.replace("''", "'")
        return inner.replace('\\"', '"').replace("\\\\", "\\")
    if raw[:1] in ("'", '"'):
        raise err("a quoted value is not closed on its line")
    if raw[:1] in ("{", "&", "*", "!", "|", ">", "@", "`"):
        raise err(f"a value may not start with {raw[0]!r}; put it in quotes")
    if raw in ("true", "True"):
        return True
    if raw in ("false", "False"):
        return False
    return raw


def _inline_list(raw: str, err: _Errors) -> list[str | bool]:
    inner = raw.strip()[1:-1]
    if not inner.strip():
        return []
    items: list[str] = []
    current: list[str] = []
    quote = ""
    for ch in inner:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch == ",":
            items.append("".join(current))
            current = []
        elif ch in "[]{}":
            raise err("lists inside lists are not allowed")
        else:
            current.append(ch)
    if quote:
        raise err("a quoted item in the list is not closed")
    items.append("".join(current))
    if any(not i.strip() for i in items):
        raise err("the list has an empty item (two commas, or a comma at the end)")
    return [_scalar(i, err) for i in items]


class _Errors:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.line = 0

    def __call__(self, message: str) -> FrontMatterError:
        return FrontMatterError(self.path, self.line, message)


def parse_document(text: str, path: Path | str = "<text>") -> Document:
    """Split `text` into its front matter (parsed) and body; raise FrontMatterError."""
    path = Path(path)
    err = _Errors(path)
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    if not lines or lines[0].strip() != "---":
        err.line = 1
        raise err("the file must start with a front matter block: a line '---', the fields, then '---'")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        err.line = 1
        raise err("the front matter is never closed: add a line '---' after the fields") from None
    meta: dict[str, Any] = {}
    where: dict[str, int] = {}
    i = 1
    while i < end:
        err.line = i + 1
        line = lines[i]
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise err("indent with spaces, not tabs")
        content = _strip_comment(line)
        if not content.strip():
            i += 1
            continue
        if content[0] in " ":
            raise err("this line is indented but belongs to no field above it")
        match = _KEY.match(content)
        if not match:
            raise err(f"expected 'key: value', got {content.strip()[:40]!r}")
        key, raw = match.group(1), (match.group(2) or "").strip()
        if key in meta:
            raise err(f"{key!r} is given twice (first on line {where[key]})")
        where[key] = i + 1
        i += 1
        if raw in (">", "|", ">-", "|-"):
            block: list[str] = []
            while i < end and (not lines[i].strip() or lines[i].startswith(" ")):
                block.append(lines[i].strip())
                i += 1
            while block and not block[-1]:
                block.pop()
            if not block:
                raise err(f"{key!r} has '{raw}' but no indented text under it")
            meta[key] = " ".join(b for b in block if b) if raw[0] == ">" else "\n".join(block)
        elif raw.startswith("["):
            if not raw.endswith("]"):
                raise err(f"the list of {key!r} must close with ']' on the same line")
            meta[key] = _inline_list(raw, err)
        elif raw:
            meta[key] = _scalar(raw, err)
        else:
            meta[key], i = _nested(lines, i, end, key, err)
    body_start = end + 1
    return Document(meta, "\n".join(lines[body_start:]).strip("\n"), path, body_start + 1, where)


def _nested(lines: list[str], i: int, end: int, key: str, err: _Errors) -> tuple[Any, int]:
    """The indented lines under `key:` — a block list or a one-level map (empty: "")."""
    items: list[str | bool] = []
    mapping: dict[str, str | bool] = {}
    while i < end:
        err.line = i + 1
        line = lines[i]
        content = _strip_comment(line)
        if not content.strip():
            i += 1
            continue
        if not content.startswith(" "):
            break
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise err("indent with spaces, not tabs")
        stripped = content.strip()
        item = _ITEM.match(stripped)
        if item:
            if mapping:
                raise err(f"{key!r} mixes '- item' lines with 'sub: value' lines")
            value = (item.group(1) or "").strip()
            if not value:
                raise err(f"an empty '-' item under {key!r}")
            if value.startswith("["):
                raise err("lists inside lists are not allowed")
            if _KEY.match(value) and not value.startswith(("'", '"')):
                raise err("maps inside a list are not allowed; put the item in quotes if it is text")
            items.append(_scalar(value, err))
        else:
            sub = _KEY.match(stripped)
            if not sub or not sub.group(2):
                raise err(f"under {key!r} expected '- item' or 'sub: value', got {stripped[:40]!r}")
            if items:
                raise err(f"{key!r} mixes '- item' lines with 'sub: value' lines")
            if sub.group(1) in mapping:
                raise err(f"{sub.group(1)!r} is given twice under {key!r}")
            if sub.group(2).strip().startswith("["):
                raise err(f"values under {key!r} are text, not lists")
            mapping[sub.group(1)] = _scalar(sub.group(2), err)
        i += 1
    if items:
        return items, i
    if mapping:
        return mapping, i
    return "", i
