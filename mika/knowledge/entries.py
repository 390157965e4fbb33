"""What one knowledge or skill file says, once its front matter is checked.

`app_entry`/`site_entry` and `skill_entry` turn a parsed `Document` into an entry or raise
a `FrontMatterError` at the line of the field that is wrong: a file is either wholly
usable or skipped with its reason, never half-read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mika.knowledge.front_matter import Document, FrontMatterError

PACKAGE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")
DOMAIN = re.compile(r"^(?=.{3,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")
# Agent Skills: 1–64 lower-case letters, digits and single hyphens, not at either end.
SKILL_NAME = re.compile(r"^(?=.{1,64}$)[a-z0-9]+(-[a-z0-9]+)*$")

KNOWLEDGE_KEYS = frozenset({"id", "name", "packages", "domains", "aliases", "pace", "verified", "skills"})
SKILL_KEYS = frozenset({"name", "description", "license", "compatibility", "metadata", "allowed-tools"})
PACES = ("", "normal", "careful")
BODY_LIMIT = 6000
DESCRIPTION_LIMIT = 1024
COMPATIBILITY_LIMIT = 500


@dataclass(frozen=True)
class KnowledgeEntry:
    id: str
    kind: str  # "app" | "site"
    name: str
    packages: tuple[str, ...]
    domains: tuple[str, ...]
    aliases: tuple[str, ...]
    pace: str  # "" or "careful" ("normal" reads as "")
    verified: bool
    skills: tuple[str, ...]
    body: str
    path: Path
    origin: str  # "user" | "shipped"

    @property
    def folder(self) -> str:
        return "apps" if self.kind == "app" else "sites"

    @property
    def source(self) -> str:
        """How the run's context names it: `knowledge/apps/com.tencent.mm`."""
        return f"knowledge/{self.folder}/{self.id}"

    def summary(self) -> str:
        """The body's first bullet or line, for search results and listings."""
        for line in self.body.splitlines():
            text = line.strip().lstrip("-*# ").strip()
            if text:
                return text[:160]
        return ""


@dataclass(frozen=True)
class SkillEntry:
    name: str
    description: str
    body: str
    path: Path  # the SKILL.md
    origin: str  # "user" | "learned" | "shipped"
    metadata: Mapping[str, str] = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        return self.path.parent

    def files(self) -> list[str]:
        """The optional files beside SKILL.md (relative, sorted), for skill_read to offer."""
        out = []
        for p in sorted(self.folder.rglob("*")):
            if p.is_file() and p.name != "SKILL.md" and not any(part.startswith(".") for part in p.parts):
                out.append(str(p.relative_to(self.folder)))
        return out


def _text(doc: Document, key: str, *, required: bool = True) -> str:
    value = doc.meta.get(key, "")
    if isinstance(value, bool) or not isinstance(value, str):
        raise FrontMatterError(doc.path, doc.line_of(key), f"{key!r} must be text")
    value = value.strip()
    if required and not value:
        line = doc.line_of(key) if key in doc.meta else 1
        raise FrontMatterError(doc.path, line, f"{key!r} is required")
    return value


def _list(doc: Document, key: str) -> tuple[str, ...]:
    value = doc.meta.get(key, [])
    if value == "":
        return ()
    if isinstance(value, str):
        value = [value]  # "aliases: 微信" is one alias
    if not isinstance(value, list) or any(not isinstance(v, str) or not v.strip() for v in value):
        raise FrontMatterError(doc.path, doc.line_of(key), f"{key!r} must be a list of text, e.g. [a, b]")
    seen: list[str] = []
    for v in value:
        if v.strip() not in seen:
            seen.append(v.strip())
    return tuple(seen)


def _unknown(doc: Document, allowed: frozenset[str]) -> None:
    for key in doc.meta:
        if key not in allowed:
            raise FrontMatterError(
                doc.path, doc.line_of(key), f"unknown field {key!r}; allowed: {', '.join(sorted(allowed))}"
            )


def knowledge_entry(doc: Document, kind: str, folder: str, origin: str) -> KnowledgeEntry:
    """An APP.md (kind "app") or SITE.md (kind "site") in the folder named `folder`."""
    _unknown(doc, KNOWLEDGE_KEYS)
    entry_id = _text(doc, "id")
    if entry_id != folder:
        raise FrontMatterError(doc.path, doc.line_of("id"), f"id {entry_id!r} must equal its folder name {folder!r}")
    name = _text(doc, "name")
    packages = _list(doc, "packages")
    domains = tuple(d.lower() for d in _list(doc, "domains"))
    if kind == "app":
        if not packages:
            raise FrontMatterError(doc.path, doc.line_of("packages"), "an app needs 'packages: [its.package.name]'")
        if domains:
            raise FrontMatterError(doc.path, doc.line_of("domains"), "'domains' belongs in a SITE.md, not an APP.md")
    else:
        if not domains:
            raise FrontMatterError(doc.path, doc.line_of("domains"), "a site needs 'domains: [example.com]'")
        if packages:
            raise FrontMatterError(doc.path, doc.line_of("packages"), "'packages' belongs in an APP.md, not a SITE.md")
    for p in packages:
        if not PACKAGE.match(p):
            raise FrontMatterError(
                doc.path, doc.line_of("packages"), f"{p!r} is not a package name (like com.example.app)"
            )
    for d in domains:
        if not DOMAIN.match(d):
            raise FrontMatterError(doc.path, doc.line_of("domains"), f"{d!r} is not a domain (like example.com)")
    pace = _text(doc, "pace", required=False).lower()
    if pace not in PACES:
        raise FrontMatterError(doc.path, doc.line_of("pace"), f"pace {pace!r} is not one of: normal, careful")
    verified: Any = doc.meta.get("verified", False)
    if not isinstance(verified, bool):
        raise FrontMatterError(doc.path, doc.line_of("verified"), "'verified' must be true or false")
    skills = _list(doc, "skills")
    for s in skills:
        if not SKILL_NAME.match(s):
            raise FrontMatterError(doc.path, doc.line_of("skills"), f"{s!r} is not a skill name (like reply-to-chat)")
    _body(doc)
    return KnowledgeEntry(
        id=entry_id,
        kind=kind,
        name=name,
        packages=packages,
        domains=domains,
        aliases=_list(doc, "aliases"),
        pace="careful" if pace == "careful" else "",
        verified=verified,
        skills=skills,
        body=doc.body.strip(),
        path=doc.path,
        origin=origin,
    )


def skill_entry(doc: Document, folder: str, origin: str) -> SkillEntry:
    _unknown(doc, SKILL_KEYS)
    name = _text(doc, "name")
    if not SKILL_NAME.match(name):
        raise FrontMatterError(
            doc.path,
            doc.line_of("name"),
            f"name {name!r}: 1–64 lower-case letters, digits and single hyphens, not at the start or end",
        )
    if name != folder:
        raise FrontMatterError(doc.path, doc.line_of("name"), f"name {name!r} must equal its folder name {folder!r}")
    description = _text(doc, "description")
    if len(description) > DESCRIPTION_LIMIT:
        raise FrontMatterError(
            doc.path, doc.line_of("description"), f"description is {len(description)} characters; at most 1024"
        )
    if len(_text(doc, "compatibility", required=False)) > COMPATIBILITY_LIMIT:
        raise FrontMatterError(doc.path, doc.line_of("compatibility"), "compatibility is longer than 500 characters")
    _text(doc, "license", required=False)
    _text(doc, "allowed-tools", required=False)
    metadata: Any = doc.meta.get("metadata", {})
    if metadata == "":
        metadata = {}
    if not isinstance(metadata, dict) or any(not isinstance(v, str) for v in metadata.values()):
        raise FrontMatterError(doc.path, doc.line_of("metadata"), "metadata must be 'key: text' lines under it")
    _body(doc)
    return SkillEntry(name, description, doc.body.strip(), doc.path, origin, dict(metadata))


def _body(doc: Document) -> None:
    if not doc.body.strip():
        raise FrontMatterError(doc.path, doc.body_line, "the body after the front matter is empty")
    if len(doc.body) > BODY_LIMIT:
        raise FrontMatterError(
            doc.path, doc.body_line, f"the body is {len(doc.body)} characters; at most {BODY_LIMIT} (keep it short)"
        )
