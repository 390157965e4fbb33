"""knowledge_search / knowledge_read / skill_search / skill_read: the model looks things up (seed §11).

The run is given some knowledge unasked (the task's apps, the first screen of an app:
`NoticePolicy`); these tools are for the rest. They only read, and only from the
catalogs the assembly loaded. A knowledge entry the run already has is not repeated:
the answer says where it already is. `skill_read(file=…)` reads one of the files beside
a SKILL.md and nothing else — no way out of the skill's folder, by `..`, an absolute
path, a symlink or an odd byte, and no file too big for the context.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from mika.agent.context import context_block
from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.knowledge.entries import KnowledgeEntry, SkillEntry
from mika.knowledge.notice import NoticePolicy, skill_line
from mika.record.events import KnowledgeGiven
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, Risk, ToolOutcome

SEARCH_LIMIT = 8
MAX_QUERY = 200
# A file beside a skill is read whole into the context, so it must stay small.
MAX_SKILL_FILE = 32 * 1024
MAX_LISTED = 40  # a folder full of files is named in part, not poured into the context

_ALREADY = {
    "task": "it is in your opening context, above the task",
    "screen": "it was added to your context when the run first read a screen of that app; it is still there",
    "page": "it was added to your context when the run first opened that site; it is still there",
    "read": "you read it earlier in this run with knowledge_read",
}


def _query(args: dict[str, Any], key: str = "query") -> str:
    return " ".join(str(args.get(key, "") or "").split())[:MAX_QUERY]


def _notices(ctx: ToolContext, own: NoticePolicy) -> NoticePolicy:
    # The run's policy knows what was given unasked; a run without one keeps its own.
    return ctx.service(NoticePolicy) or own


class KnowledgeSearch(AgentTool):
    name = "knowledge_search"
    capability = "general"
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "An app or site name, a package, a domain, or what you need."}
        },
        "required": ["query"],
    }

    def __init__(self, knowledge: KnowledgeCatalog, notices: NoticePolicy) -> None:
        self.knowledge = knowledge
        self._own = notices

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        query = _query(args)
        if not query:
            return ToolOutcome.error("bad_query", "Give a query: an app or site name, a package name or a domain.")
        found = self.knowledge.search(query, limit=SEARCH_LIMIT)
        if not found:
            kinds = self.knowledge.entries()
            return ToolOutcome(
                text=f"No knowledge matches {query!r} ({len(kinds)} entries exist). Try the app's name, "
                "its package name or the site's domain.",
                code="none",
            )
        given = _notices(ctx, self._own).given
        lines = [f"{len(found)} match{'es' if len(found) != 1 else ''} (knowledge_read with an id reads one):"]
        for e in found:
            mark = " [already in your context]" if e.id in given else ""
            lines.append(f"- {e.id} — {e.name} ({e.kind}){mark}: {e.summary()}")
        return ToolOutcome(text="\n".join(lines))


class KnowledgeRead(AgentTool):
    name = "knowledge_read"
    capability = "general"
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "The entry's id: a package name (apps) or a domain (sites)."}
        },
        "required": ["id"],
    }

    def __init__(self, knowledge: KnowledgeCatalog, notices: NoticePolicy) -> None:
        self.knowledge = knowledge
        self._own = notices

    def _find(self, key: str) -> KnowledgeEntry | None:
        found = self.knowledge.get(key) or self.knowledge.for_package(key)
        if found is None and "." in key:
            found = self.knowledge.for_domain(key)
        if found is None:
            named = self.knowledge.match_text(key)
            found = named[0] if len(named) == 1 else None
        return found

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        key = _query(args, "id")
        if not key:
            return ToolOutcome.error("bad_id", "Give the id of an entry (knowledge_search finds ids).")
        entry = self._find(key)
        if entry is None:
            return ToolOutcome.error(
                "unknown_knowledge", f"There is no knowledge entry {key!r}; knowledge_search finds the ids that exist."
            )
        notices = _notices(ctx, self._own)
        given = notices.read(entry)
        if given is None:
            why = _ALREADY.get(notices.given.get(entry.id, ""), "it is already in your context")
            return ToolOutcome(text=f"Knowledge {entry.id} ({entry.name}) was already given: {why}.", code="given")
        ctx.emit(
            KnowledgeGiven(
                run_id=ctx.spec.id,
                conversation_id=ctx.spec.conversation_id,
                step=ctx.step,
                id=entry.id,
                origin=entry.origin,
                reason="read",
            )
        )
        return ToolOutcome(text=context_block(*given.block))


class SkillSearch(AgentTool):
    name = "skill_search"
    capability = "general"
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "What you want to do, in a few words."}},
        "required": ["query"],
    }

    def __init__(self, skills: SkillCatalog) -> None:
        self.skills = skills

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        query = _query(args)
        if not query:
            return ToolOutcome.error("bad_query", "Give a query: what you want to do, in a few words.")
        found = self.skills.search(query, limit=SEARCH_LIMIT)
        if not found:
            return ToolOutcome(text=f"No skill matches {query!r}. Try other words for the task.", code="none")
        lines = [f"{len(found)} skill{'s' if len(found) != 1 else ''} (skill_read with a name loads one):"]
        lines += [f"- {skill_line(s)}" for s in found]
        return ToolOutcome(text="\n".join(lines))


def skill_file(skill: SkillEntry, name: str) -> tuple[str, str]:
    """(text, "") for a file beside the skill, or ("", why it is refused)."""
    if "\x00" in name:
        return "", "the file name holds a NUL byte; give a name from the skill's file list"
    rel = PurePosixPath(name.replace("\\", "/"))
    if rel.is_absolute() or Path(name).is_absolute() or name.startswith("~"):
        return "", "give the file's path inside the skill's folder (from its file list), not an absolute path"
    if any(part == ".." for part in rel.parts):
        return "", "'..' is not allowed: only files inside the skill's own folder can be read"
    listed = skill.files()
    if str(rel) not in listed:
        offer = ", ".join(listed) if listed else "none"
        return "", f"{skill.name} has no file {name!r}; its files: {offer}"
    folder = skill.folder.resolve()
    try:
        target = (skill.folder / rel).resolve(strict=True)
        target.relative_to(folder)
    except (OSError, ValueError, RuntimeError):
        return "", f"{name!r} points outside the skill's folder (a link); it is not read"
    try:
        size = target.stat().st_size
        if size > MAX_SKILL_FILE:
            return "", f"{name!r} is {size} bytes; files beside a skill are read only up to {MAX_SKILL_FILE} bytes"
        with target.open("rb") as fh:
            data = fh.read(MAX_SKILL_FILE + 1)
    except OSError as exc:
        return "", f"{name!r} cannot be read: {exc.strerror or exc}"
    if len(data) > MAX_SKILL_FILE:
        return "", f"{name!r} is larger than {MAX_SKILL_FILE} bytes; it is not read"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "", f"{name!r} is not UTF-8 text; only text files beside a skill can be read"
    if "\x00" in text:
        return "", f"{name!r} holds NUL bytes (a binary file); only text files beside a skill can be read"
    return text, ""


class SkillRead(AgentTool):
    name = "skill_read"
    capability = "general"
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The skill's name, as in the skill index."},
            "file": {
                "type": "string",
                "description": "Optional: one of the files listed with the skill, to read that file instead.",
            },
        },
        "required": ["name"],
    }

    def __init__(self, skills: SkillCatalog) -> None:
        self.skills = skills

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        name = _query(args, "name")
        skill = self.skills.get(name) if name else None
        if skill is None:
            return ToolOutcome.error(
                "unknown_skill", f"There is no skill {name!r}; the skill index and skill_search name the skills."
            )
        file = str(args.get("file", "") or "")
        if file.strip() and file.strip() != "SKILL.md":
            text, refused = skill_file(skill, file.strip())
            if refused:
                return ToolOutcome.error("file_refused", f"Not read: {refused}.")
            return ToolOutcome(text=f"{skill.name}/{file.strip()}:\n{text}")
        lines = [f"Skill {skill.name} ({skill.origin}): {' '.join(skill.description.split())}", "", skill.body]
        files = skill.files()
        if files:
            shown = ", ".join(files[:MAX_LISTED]) + (
                f" and {len(files) - MAX_LISTED} more" if len(files) > MAX_LISTED else ""
            )
            lines += ["", "Files beside it (skill_read with file= reads one): " + shown]
        return ToolOutcome(text="\n".join(lines))


def lookup_tools(knowledge: KnowledgeCatalog | None, skills: SkillCatalog | None) -> list[AgentTool]:
    """The lookup tools for the catalogs that exist (each pair only with its catalog)."""
    tools: list[AgentTool] = []
    if knowledge is not None:
        own = NoticePolicy(knowledge, skills)
        tools += [KnowledgeSearch(knowledge, own), KnowledgeRead(knowledge, own)]
    if skills is not None:
        tools += [SkillSearch(skills), SkillRead(skills)]
    return tools
