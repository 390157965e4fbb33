"""`TurnPolicy`: what the loop says to the model before it accepts an answer.

Each reminder is given once per run; if the model persists, its answer stands.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mika.model.messages import ModelResponse
from mika.resources import prompt


@dataclass
class TurnPolicy:
    _given: set[str] = field(default_factory=set)

    def _once(self, key: str) -> str | None:
        if key in self._given:
            return None
        self._given.add(key)
        return prompt(f"feedback/{key}.md")

    def before_answer(self, response: ModelResponse) -> str | None:
        """A reminder to send back instead of accepting this reply, or None to accept."""
        text = response.message.text.strip()
        if not text or response.stop_reason == "max_tokens":
            return self._once("empty_reply")
        return None
