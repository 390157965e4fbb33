"""`SkillDrafter`: the light model writes a SKILL.md from a finished run (seed §11).

What the model gets is the user's goal and the run's tool calls — names and the
arguments the model itself gave — and never a screen, page or tool result: those are
untrusted, and a skill built from them would carry an injected order into every later
run that reads it. The reply is parsed and validated like any skill file
(`mika.knowledge.entries.skill_entry`); a reply that is not a valid skill is dropped
whole with a log line, never stored in part.

The light model first, then the main one on failure (the side-call rule); the assembly
passes no models for a scripted main model, whose replies belong to the run.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from mika.knowledge.entries import skill_entry
from mika.knowledge.front_matter import FrontMatterError, parse_document
from mika.model.base import Model, complete
from mika.model.messages import Message, ModelRequest
from mika.record.events import RunEvent, ToolCalled
from mika.record.redactor import Redactor
from mika.resources import prompt

log = logging.getLogger(__name__)

DRAFT_TIMEOUT_S = 30.0  # as the outcome judge: aftercare is off the answer's path, but not endless
MAX_CALLS = 80  # a longer run's tail adds length, not a better procedure
ARGUMENT_CHARS = 160  # long typed texts are this task's content, not the route
DECLINE = "NONE"


@dataclass(frozen=True)
class DraftText:
    name: str
    description: str
    body: str


def call_lines(events: Sequence[RunEvent], redactor: Redactor | None = None) -> list[str]:
    """`N. tool {arguments}` per tool call, from the ToolCalled events only, redacted as
    the record is (configured secrets, text typed into a password field, key shapes):
    what the record may not hold, a skill may not learn."""
    redactor = redactor or Redactor()
    lines: list[str] = []
    for event in events:
        if not isinstance(event, ToolCalled):
            continue
        if len(lines) == MAX_CALLS:
            lines.append(f"… ({sum(isinstance(e, ToolCalled) for e in events) - MAX_CALLS} more calls)")
            break
        masked = redactor.event_dict({"arguments": dict(event.arguments)})["arguments"]
        args = json.dumps(_short(masked), ensure_ascii=False, sort_keys=True)
        lines.append(f"{len(lines) + 1}. {event.name} {args}")
    return lines


def _short(value: object) -> object:
    if isinstance(value, str):
        return value if len(value) <= ARGUMENT_CHARS else value[:ARGUMENT_CHARS] + "…"
    if isinstance(value, dict):
        return {str(k): _short(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_short(v) for v in value]
    return value


def parse_reply(text: str) -> DraftText | None:
    """The skill in a reply, or None (declined, or not a valid skill: logged)."""
    text = _unfenced(text.strip())
    if not text or text.split()[0].strip(".*`\"'") == DECLINE:
        log.info("skill draft: the model found no procedure worth keeping")
        return None
    try:
        doc = parse_document(text, "<skill draft>")
        name = doc.meta.get("name")
        entry = skill_entry(doc, name if isinstance(name, str) else "", "learned")
    except FrontMatterError as problem:
        log.info("skill draft dropped: the reply is not a valid skill (%s)", problem)
        return None
    if "\n" in entry.description:
        log.info("skill draft dropped: the description is more than one line")
        return None
    return DraftText(entry.name, entry.description, entry.body)


def _unfenced(text: str) -> str:
    # Models often wrap a file in ``` fences although asked not to.
    lines = text.splitlines()
    if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].strip() == "```":
        return "\n".join(lines[1:-1]).strip()
    return text


@dataclass
class SkillDrafter:
    models: Sequence[Model | None]  # light first, then main
    timeout: float = DRAFT_TIMEOUT_S

    def request(self, goal: str, events: Sequence[RunEvent], redactor: Redactor | None = None) -> ModelRequest:
        redactor = redactor or Redactor()
        calls = "\n".join(call_lines(events, redactor)) or "(none)"
        body = f"The user's task:\n{redactor.text(goal)}\n\nThe tool calls, in order:\n{calls}"
        return ModelRequest(
            system=prompt("roles/skill_draft.md"),
            messages=(Message.user(body),),
            max_output_tokens=1200,
            purpose="skill_draft",
        )

    async def draft(self, goal: str, events: Sequence[RunEvent], redactor: Redactor | None = None) -> DraftText | None:
        request = self.request(goal, events, redactor)
        for model in self.models:
            if model is None:
                continue
            try:
                response = await asyncio.wait_for(complete(model, request), self.timeout)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a failed draft is no draft; the run is long delivered
                log.info("skill draft on %s/%s failed: %s", model.provider, model.name, exc)
                continue
            return parse_reply(response.message.text)
        return None
