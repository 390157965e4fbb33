"""The index of app/site knowledge and of skills, built once when Mika starts (seed §11).

Roots are read in order and the first one to name an entry wins: the user's own folder
(`$XDG_DATA_HOME/mika/knowledge/`, `…/skills/`) before the shipped one, so a user can
correct or replace what ships. For apps, a user's file that claims a package also wins
that package from a shipped file with another id.

A broken file never stops a run: it is left out and kept in `problems` (a
`FrontMatterError` naming the file and line), which the faces show and
`mika knowledge check` turns into exit 2.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from mika.config.paths import data_dir
from mika.knowledge.entries import KnowledgeEntry, SkillEntry, knowledge_entry, skill_entry
from mika.knowledge.front_matter import FrontMatterError, parse_document
from mika.resources import knowledge_dir, skills_dir
from mika.search_terms import fold, overlap

Root = tuple[Path, str]  # (folder, origin)
MAX_FILE_BYTES = 256 * 1024
_ASCII = re.compile(r"^[\x00-\x7f]+$")


def knowledge_roots() -> list[Root]:
    return [(data_dir() / "knowledge", "user"), (knowledge_dir(), "shipped")]


def skill_roots() -> list[Root]:
    return [(data_dir() / "skills", "user"), (data_dir() / "skills-learned", "learned"), (skills_dir(), "shipped")]


def read_document_text(path: Path) -> str:
    """A file's text, or FrontMatterError for what a person must fix (size, encoding)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise FrontMatterError(path, 0, f"the file is {size} bytes; knowledge and skills stay under 256 KB")
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrontMatterError(path, 0, f"the file is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except OSError as exc:
        raise FrontMatterError(path, 0, f"cannot read it: {exc.strerror or exc}") from None


def _files(root: Path, pattern: str) -> list[Path]:
    try:
        return sorted(root.glob(pattern))
    except OSError:
        return []


def mention_spans(text: str, word: str) -> list[tuple[int, int]]:
    """Where `word` occurs in `text` as a name. Latin names need word edges ("qq" is not in
    "sqqr"); Chinese has none, so a substring is a mention."""
    w = fold(word).strip()
    if len(w) < 2:
        return []
    t = fold(text)
    if w not in t:
        # Every match is an occurrence of `w`: without one there is nothing to find, and no
        # pattern is compiled (a task's opening checks ~300 names, ~20 ms of compiling).
        return []
    pattern = rf"(?<![0-9a-z]){re.escape(w)}(?![0-9a-z])" if _ASCII.match(w) else re.escape(w)
    return [(m.start(), m.end()) for m in re.finditer(pattern, t)]


def mentions(text: str, word: str) -> int:
    """The first place `word` is named in `text` (-1: nowhere)."""
    spans = mention_spans(text, word)
    return spans[0][0] if spans else -1


@dataclass
class KnowledgeCatalog:
    entries_by_id: dict[str, KnowledgeEntry] = field(default_factory=dict)
    problems: list[FrontMatterError] = field(default_factory=list)
    # Ids a user's file replaced (shown by `mika knowledge list`).
    overridden: dict[str, Path] = field(default_factory=dict)
    _by_package: dict[str, KnowledgeEntry] = field(default_factory=dict)
    _by_domain: dict[str, KnowledgeEntry] = field(default_factory=dict)

    @classmethod
    def load(cls, roots: Sequence[Root] | None = None) -> KnowledgeCatalog:
        catalog = cls()
        for root, origin in roots if roots is not None else knowledge_roots():
            for kind, folder, name in (("app", "apps", "APP.md"), ("site", "sites", "SITE.md")):
                for path in _files(root, f"{folder}/*/{name}"):
                    catalog._add(path, kind, origin)
        return catalog

    def _add(self, path: Path, kind: str, origin: str) -> None:
        try:
            entry = knowledge_entry(parse_document(read_document_text(path), path), kind, path.parent.name, origin)
        except FrontMatterError as problem:
            self.problems.append(problem)
            return
        if entry.id in self.entries_by_id:
            self.overridden[entry.id] = entry.path
            return
        self.entries_by_id[entry.id] = entry
        for p in entry.packages:
            self._by_package.setdefault(p, entry)
        for d in entry.domains:
            self._by_domain.setdefault(d, entry)

    def entries(self) -> list[KnowledgeEntry]:
        return sorted(self.entries_by_id.values(), key=lambda e: (e.kind, e.id))

    def get(self, entry_id: str) -> KnowledgeEntry | None:
        return self.entries_by_id.get(entry_id)

    def for_package(self, package: str) -> KnowledgeEntry | None:
        return self._by_package.get(package)

    def for_domain(self, host_or_url: str) -> KnowledgeEntry | None:
        """The site for a host or URL: "m.taobao.com" finds taobao.com."""
        host = host_or_url
        if "/" in host_or_url:
            host = urlsplit(host_or_url if "//" in host_or_url else f"//{host_or_url}").hostname or ""
        host = host.lower().rstrip(".")
        while host:
            if host in self._by_domain:
                return self._by_domain[host]
            if "." not in host:
                return None
            host = host.split(".", 1)[1]
        return None

    def match_text(self, text: str) -> list[KnowledgeEntry]:
        """Entries a task's words name (name, alias, package or domain), in the order named.

        A name inside a longer name of another entry does not count: "企业微信" is WeCom,
        not WeChat too; "QQ音乐" is not QQ."""
        spans: list[tuple[int, int, str]] = []
        for entry in self.entries_by_id.values():
            for word in (entry.name, *entry.aliases, *entry.packages, *entry.domains):
                spans.extend((a, b, entry.id) for a, b in mention_spans(text, word))
        first: dict[str, int] = {}
        for a, b, entry_id in spans:
            inside = any(x <= a and b <= y and (y - x) > (b - a) and other != entry_id for x, y, other in spans)
            if not inside and (entry_id not in first or a < first[entry_id]):
                first[entry_id] = a
        return [self.entries_by_id[i] for i, _ in sorted(first.items(), key=lambda f: (f[1], f[0]))]

    def search(self, query: str, limit: int = 5) -> list[KnowledgeEntry]:
        scored: list[tuple[float, str, KnowledgeEntry]] = []
        for entry in self.entries_by_id.values():
            names = " ".join((entry.id, entry.name, *entry.aliases, *entry.packages, *entry.domains))
            score = 3 * overlap(query, names) + overlap(query, entry.body)
            if any(mentions(query, w) >= 0 for w in (entry.name, *entry.aliases, *entry.packages)):
                score += 3
            if score > 0:
                scored.append((score, entry.id, entry))
        scored.sort(key=lambda s: (-s[0], s[1]))
        return [e for _, _, e in scored[:limit]]


@dataclass
class SkillCatalog:
    by_name: dict[str, SkillEntry] = field(default_factory=dict)
    problems: list[FrontMatterError] = field(default_factory=list)
    overridden: dict[str, Path] = field(default_factory=dict)

    @classmethod
    def load(cls, roots: Sequence[Root] | None = None) -> SkillCatalog:
        catalog = cls()
        for root, origin in roots if roots is not None else skill_roots():
            for path in _files(root, "*/SKILL.md"):
                try:
                    skill = skill_entry(parse_document(read_document_text(path), path), path.parent.name, origin)
                except FrontMatterError as problem:
                    catalog.problems.append(problem)
                    continue
                if skill.name in catalog.by_name:
                    catalog.overridden[skill.name] = skill.path
                else:
                    catalog.by_name[skill.name] = skill
        return catalog

    def skills(self) -> list[SkillEntry]:
        return sorted(self.by_name.values(), key=lambda s: s.name)

    def get(self, name: str) -> SkillEntry | None:
        return self.by_name.get(name)

    def search(self, query: str, limit: int = 5) -> list[SkillEntry]:
        scored: list[tuple[float, str, SkillEntry]] = []
        for skill in self.by_name.values():
            score = 3 * overlap(query, f"{skill.name.replace('-', ' ')} {skill.description}") + overlap(
                query, skill.body
            )
            if score > 0:
                scored.append((score, skill.name, skill))
        scored.sort(key=lambda s: (-s[0], s[1]))
        return [s for _, _, s in scored[:limit]]
