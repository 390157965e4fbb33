"""`ContextBuilder`: what each model request holds, in zones (seed §7).

Zone 0: the system prompt and tool definitions — byte-identical within a run except when
a group opens. Zone 1: the opening context, written once (earlier turns, the user's
words). Zone 2: the history, append-only. Zone 3: this step's results, image and runtime
state, appended to the last message (and kept there, so the next request's prefix still
matches this one's).
"""

from __future__ import annotations

import time
from typing import Callable

from mika.agent.history import History, only_last_image
from mika.agent.system_prompt import SystemPrompt
from mika.model.messages import Message, ModelRequest, Text
from mika.run.spec import PriorTurn, RunSpec
from mika.tool.groups import ToolGroups


def context_block(kind: str, source: str, trust: str, body: str) -> str:
    return f'<context kind="{kind}" source="{source}" trust="{trust}">\n{body}\n</context>'


def prior_turns_text(turns: tuple[PriorTurn, ...]) -> str:
    lines = []
    for t in turns:
        lines.append(f"User: {t.user}")
        outcome = f" [{t.outcome}]" if t.outcome and t.outcome != "answered" else ""
        lines.append(f"Mika{outcome}: {t.answer}")
    return "\n".join(lines)


class ContextBuilder:
    def __init__(
        self,
        spec: RunSpec,
        system: SystemPrompt,
        groups: ToolGroups,
        *,
        extra_context: tuple[tuple[str, str, str, str], ...] = (),
        now: Callable[[], float] = time.time,
    ) -> None:
        self.spec = spec
        self.system = system
        self.groups = groups
        self.history = History()
        self.now = now
        opening: list[str] = []
        if spec.prior_turns:
            opening.append(context_block("earlier_turns", "conversation", "trusted", prior_turns_text(spec.prior_turns)))
        for kind, source, trust, body in extra_context:
            opening.append(context_block(kind, source, trust, body))
        # The user's own words go in unwrapped and last, so they are what the model reads first as the task.
        opening.append(spec.goal)
        self.history.add_user(Text("\n\n".join(opening)), users_words=True)
        self.opening_index = 0

    def runtime_state(self, step: int) -> str:
        stamp = time.strftime("%Y-%m-%d %H:%M %a", time.localtime(self.now()))
        return f"[step {step} · local time {stamp}]"

    def build(self, purpose: str = "main") -> ModelRequest:
        return ModelRequest(
            system=self.system.build(self.groups.open),
            messages=tuple(only_last_image(self.history.messages)),
            tools=self.groups.specs(),
            cache_marks=(self.opening_index,),
            conversation_id=self.spec.conversation_id or None,
            purpose=purpose,
        )

    def messages(self) -> list[Message]:
        return list(self.history.messages)
