"""memory_save / memory_search: what Mika remembers about the user, from the user's words only.

A save is checked against `UserUtterances` (the goal, the user's messages and answers, the
user side of earlier turns — never screens or pages) and then goes through the store's own
gate (sensitive values, emptiness, duplicates). Facts and preferences apply at once and can
be undone; a procedure waits for the user's approval.
"""

from __future__ import annotations

from typing import Any

from mika.memory.store import MemoryFileError, MemoryKind, MemoryRefused, MemoryStatus, MemoryStore
from mika.memory.utterances import UserUtterances
from mika.observe.observation import Observation, ObsKind, Place, Trust
from mika.resources import prompt
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, Risk, ToolOutcome

_REFUSAL_PROMPTS = {
    "not_from_user": "feedback/memory_not_from_user.md",
    "sensitive": "feedback/memory_sensitive.md",
}


class MemorySave(AgentTool):
    name = "memory_save"
    capability = "general"
    risk = Risk.WRITE  # changes Mika's memory: not in read-only runs
    parameters = {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": [k.value for k in MemoryKind]},
            "text": {
                "type": "string",
                "description": 'One short sentence in the user\'s own terms, e.g. "Takes the 7:30 train on weekdays".',
            },
        },
        "required": ["kind", "text"],
    }

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        text = str(args.get("text", ""))
        said = UserUtterances.from_run(ctx.spec, ctx.evidence)
        check = said.check(text)
        try:
            if not check.ok and text.strip():
                # The sensitive refusal comes first when both apply: it names the real problem.
                self.store.check(args.get("kind", "fact"), text, text)
                raise MemoryRefused("not_from_user", _missing(check.missing))
            item = self.store.add(
                args.get("kind", "fact"), text, said.source_for(text), conversation_id=ctx.spec.conversation_id
            )
        except MemoryRefused as refused:
            return ToolOutcome.error(refused.code, _refusal(refused))
        except MemoryFileError as exc:
            return ToolOutcome.error("memory_unavailable", f"Memory can't be used now: {exc} Go on without it.")
        if item.status is MemoryStatus.PENDING:
            note = prompt("feedback/memory_pending.md").format(id=item.id)
        else:
            note = prompt("feedback/memory_saved.md").format(id=item.id)
        return ToolOutcome(
            text=f"{note}\n{item.kind.value}: {item.text}",
            data={"id": item.id, "kind": item.kind.value, "status": item.status.value},
        )


def _missing(missing: tuple[str, ...]) -> str:
    return f"not in the user's words: {', '.join(missing[:5])}" if missing else ""


def _refusal(refused: MemoryRefused) -> str:
    path = _REFUSAL_PROMPTS.get(refused.code)
    if path is None:
        return refused.message  # empty / duplicate: the store's sentence says it all
    detail = refused.message if refused.code == "not_from_user" and "not in the user" in refused.message else ""
    text = prompt(path)
    return f"{text} ({detail})" if detail else text


class MemorySearch(AgentTool):
    name = "memory_search"
    capability = "general"
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "A few words: a person, a place, an app, a habit."}},
        "required": ["query"],
    }

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            found = self.store.search(str(args.get("query", "")))
        except MemoryFileError as exc:
            return ToolOutcome.error("memory_unavailable", f"Memory can't be used now: {exc} Go on without it.")
        if not found:
            return ToolOutcome(text="Nothing remembered matches that.", data={"ids": []})
        text = "\n".join(f"- [{i.id}] {i.kind.value}: {i.text}" for i in found)
        # What the user told Mika earlier: their own words, trusted like the goal.
        obs = Observation.build(
            ObsKind.FACT,
            "general",
            text,
            trust=Trust.TRUSTED,
            title="memory",
            place=Place("memory", "memory"),
            step=ctx.step,
        )
        return ToolOutcome(text=text, observations=(obs,), data={"ids": [i.id for i in found]})
