"""`IntentGate`: is the user chatting, asking for information, or giving a task? (seed §3)

The first time a run started from the UI wants a tool that is not a read, one call to
the light model decides. "chat" means the reply is asked again without tools; anything
else — info, task, a failed call, a reply that is none of the three words — leaves the
main model's choice standing. Once per run.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from mika.agent.model_caller import side_call
from mika.model.base import Model
from mika.model.messages import Message, ModelRequest
from mika.resources import prompt
from mika.runtypes.spec import RunOrigin, RunSpec
from mika.tool.declaration import AgentTool, Risk

INTENT_TIMEOUT_S = 10.0


class Intent(enum.Enum):
    CHAT = "chat"
    INFO = "info"
    TASK = "task"
    UNKNOWN = "unknown"


def parse_intent(text: str) -> Intent:
    word = text.strip().strip(".!\"'`*").lower()
    for intent in (Intent.CHAT, Intent.INFO, Intent.TASK):
        if word == intent.value:
            return intent
    return Intent.UNKNOWN


@dataclass
class IntentGate:
    light: Model | None
    timeout: float = INTENT_TIMEOUT_S
    decided: Intent | None = None
    calls: int = 0

    def applies(self, spec: RunSpec, tools: list[AgentTool | None]) -> bool:
        """Ask now? Only UI-started runs, only once, only for a tool that is not a read."""
        if self.light is None or self.decided is not None or spec.provenance.origin is not RunOrigin.UI:
            return False
        return any(t is not None and t.risk is not Risk.READ and not t.control for t in tools)

    def request(self, user_words: str, conversation_id: str | None) -> ModelRequest:
        return ModelRequest(
            system=prompt("roles/intent.md"),
            messages=(Message.user(user_words),),
            max_output_tokens=5,
            conversation_id=conversation_id,
            purpose="intent",
        )

    async def decide(self, user_words: str, conversation_id: str | None = None) -> Intent:
        self.calls += 1
        response = await side_call([self.light], self.request(user_words, conversation_id), self.timeout)
        self.decided = parse_intent(response.message.text) if response is not None else Intent.UNKNOWN
        return self.decided
