"""`StuckAdvice`: a word in the tool result when the run is going in circles (seed §3).

Given once per stuck episode (when `StopRules.stuck()` turns true); the first time it
suggests another way, the second time it also says giving up is allowed, so a model that
cannot get on ends with end_not_done instead of running into a guard.
"""

from __future__ import annotations

from dataclasses import dataclass

from mika.resources import prompt


@dataclass
class StuckAdvice:
    times: int = 0
    _was_stuck: bool = False

    def advise(self, stuck: bool) -> str | None:
        """The advice to add to this result, or None."""
        if not stuck:
            self._was_stuck = False
            return None
        if self._was_stuck:
            return None
        self._was_stuck = True
        self.times += 1
        return prompt("feedback/stuck_first.md" if self.times == 1 else "feedback/stuck_again.md")
