"""`StopRules`: when a run must end although the model has not answered.

Guards: the same action repeated, too many failures in a row. The step budget applies
only when one is set (evals, child runs). Each stop carries a sentence for the user.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from mika.model.messages import ToolCall
from mika.tool.declaration import ToolOutcome

SAME_ACTION_LIMIT = 5
FAILURE_LIMIT = 8


@dataclass(frozen=True)
class Stop:
    subtype: str
    reason: str


@dataclass
class StopRules:
    same_action_limit: int = SAME_ACTION_LIMIT
    failure_limit: int = FAILURE_LIMIT
    _last_key: str = ""
    _repeats: int = 0
    _failures: int = 0
    history: list[str] = field(default_factory=list)

    def after_call(self, call: ToolCall, outcome: ToolOutcome) -> Stop | None:
        key = call.name + json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)
        if key == self._last_key and outcome.effect in ("", "no_effect"):
            self._repeats += 1
        else:
            self._last_key, self._repeats = key, 1
        self._failures = 0 if outcome.ok else self._failures + 1
        if self._repeats >= self.same_action_limit:
            return Stop("repeated_action", f"Stopped: the same action ({call.name}) was repeated {self._repeats} times without progress.")
        if self._failures >= self.failure_limit:
            return Stop("too_many_failures", f"Stopped: {self._failures} actions in a row failed.")
        return None

    @staticmethod
    def budget(step: int, budget: int) -> Stop | None:
        if budget and step >= budget:
            return Stop("step_budget", f"Stopped: the step budget of {budget} steps was used up.")
        return None
