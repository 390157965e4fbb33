"""`NoticePolicy`: which app and site knowledge a run is given, and when (seed §11).

Per run: at the start, the entries the task's words name (`opening`); later, the entry of
an app or site the first time the run reads a screen of it or opens a page on it
(`after_read`). Each entry is given at most once per run and at most `limit` (3) are
given unasked in all, the opening ones counted: knowledge helps the model, a pile of it
costs every later request. The model may still read any entry itself (`read`, the
`knowledge_read` tool): an asked-for read is not capped, and an entry already given is
not repeated.

The blocks come back as `(kind, source, trust, body)`: the agent layer wraps them in
`<context …>` (`mika.agent.context.context_block`) and decides where they go.
The skill index of the opening message is built here too, because an entry's related
skills (`skills:` in its front matter) go to its top.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.knowledge.entries import KnowledgeEntry, SkillEntry
from mika.observe.observation import Place

LIMIT = 3
INDEX_LIMIT = 30
Block = tuple[str, str, str, str]  # (kind, source, trust, body)

# A file's text must not end the block it sits in, nor open another one.
_CONTEXT_TAG = re.compile(r"<(/?)(context)", re.IGNORECASE)
SKILL_READ_LINE = "Call skill_read with a skill's name to load its steps before you follow it."


def _neutral(text: str) -> str:
    return _CONTEXT_TAG.sub(lambda m: f"&lt;{m.group(1)}{m.group(2)}", text)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def skill_line(skill: SkillEntry) -> str:
    # A learned skill came from one of the user's runs, not from a person who checked it.
    learned = " (learned from an earlier run: check each step)" if skill.origin == "learned" else ""
    return _neutral(f"{skill.name} — {_one_line(skill.description)}{learned}")


@dataclass(frozen=True)
class Given:
    """One entry handed to the model, and why: "task" | "screen" | "page" | "read"."""

    entry: KnowledgeEntry
    reason: str
    block: Block


def knowledge_block(entry: KnowledgeEntry, extra_skills: tuple[SkillEntry, ...] = ()) -> Block:
    """The block for one entry: its name, how far it was checked, the body, and the
    related skills the model has not been shown yet."""
    trust = "verified" if entry.verified else "partly unverified — statements marked (unverified) were not checked"
    lines = [f"{_neutral(_one_line(entry.name))} ({entry.id}) — {trust}", "", _neutral(entry.body)]
    if extra_skills:
        lines += ["", "Skills for this (skill_read loads one):", *(f"- {skill_line(s)}" for s in extra_skills)]
    kind = "app_knowledge" if entry.kind == "app" else "site_knowledge"
    return (kind, entry.source, "trusted", "\n".join(lines))


def place_host(place: Place) -> str:
    """The host a site or page place is on ("" when it names none)."""
    if place.kind == "site":
        return place.id.strip().lower()
    raw = place.id.strip()
    split = urlsplit(raw if "//" in raw else f"//{raw}")
    return (split.hostname or "").lower()


@dataclass
class NoticePolicy:
    knowledge: KnowledgeCatalog | None = None
    skills: SkillCatalog | None = None
    limit: int = LIMIT
    # id → why it was given, in the order given (opening ones first).
    given: dict[str, str] = field(default_factory=dict)
    # How many were given unasked (the cap counts these; reads are not counted).
    unasked: int = 0
    # Skills the model has been shown (the index, and skills listed with an entry).
    shown_skills: set[str] = field(default_factory=set)
    opened: list[Given] = field(default_factory=list)

    # -- the opening message ----------------------------------------------------------

    def opening(self, goal: str) -> list[Given]:
        """The entries the task's words name (first named first), up to the cap."""
        out: list[Given] = []
        if self.knowledge is None:
            return out
        for entry in self.knowledge.match_text(goal):
            if self.unasked >= self.limit:
                break
            if entry.id in self.given:
                continue
            self.given[entry.id] = "task"
            self.unasked += 1
            # Its related skills go to the top of the index, not into the block.
            out.append(Given(entry, "task", knowledge_block(entry)))
        self.opened.extend(out)
        return out

    def skill_index(self, goal: str, first: tuple[str, ...] = ()) -> Block | None:
        """One line per skill, `first` (the opening entries' skills) then those the goal
        is about, then the rest by name; at most INDEX_LIMIT. None without skills."""
        if self.skills is None or not self.skills.skills():
            return None
        order: list[SkillEntry] = []
        seen: set[str] = set()
        ranked = [self.skills.get(n) for n in first] + self.skills.search(goal, limit=INDEX_LIMIT)
        for skill in [*ranked, *self.skills.skills()]:
            if skill is None or skill.name in seen:
                continue
            seen.add(skill.name)
            order.append(skill)
        order = order[:INDEX_LIMIT]
        self.shown_skills.update(s.name for s in order)
        body = "\n".join([*(f"- {skill_line(s)}" for s in order), SKILL_READ_LINE])
        return ("skill_index", "skills", "trusted", body)

    def opening_context(self, goal: str) -> tuple[Block, ...]:
        """What the opening message holds from knowledge and skills, in order."""
        given = self.opening(goal)
        blocks = [g.block for g in given]
        related = tuple(s for g in given for s in g.entry.skills)
        index = self.skill_index(goal, related)
        if index is not None:
            blocks.append(index)
        return tuple(blocks)

    # -- during the run ---------------------------------------------------------------

    def entry_for(self, place: Place) -> KnowledgeEntry | None:
        if self.knowledge is None:
            return None
        if place.kind == "app":
            return self.knowledge.for_package(place.id)
        if place.kind in ("site", "page"):
            host = place_host(place)
            return self.knowledge.for_domain(host) if host else None
        return None

    def after_read(self, place: Place | None) -> Given | None:
        """The entry for a place read for the first time, or None (none, given, or capped)."""
        if place is None:
            return None
        entry = self.entry_for(place)
        if entry is None or entry.id in self.given or self.unasked >= self.limit:
            return None
        self.given[entry.id] = "screen" if place.kind == "app" else "page"
        self.unasked += 1
        return Given(entry, self.given[entry.id], knowledge_block(entry, self._new_skills(entry)))

    def read(self, entry: KnowledgeEntry) -> Given | None:
        """An asked-for read: the block, or None when the run was already given it."""
        if entry.id in self.given:
            return None
        self.given[entry.id] = "read"
        return Given(entry, "read", knowledge_block(entry, self._new_skills(entry)))

    def _new_skills(self, entry: KnowledgeEntry) -> tuple[SkillEntry, ...]:
        if self.skills is None:
            return ()
        out = []
        for name in entry.skills:
            skill = self.skills.get(name)
            if skill is not None and skill.name not in self.shown_skills:
                self.shown_skills.add(skill.name)
                out.append(skill)
        return tuple(out)
