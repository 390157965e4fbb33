"""`StopRules`: when a run must end although the model has not answered (seed §3).

- give-up: the model called end_not_done (the loop ends with its message);
- guards: the same action repeated without effect, actions that change nothing, reading
  the same thing again and again, too many failures in a row;
- model failure: a provider error the retry policy gave up on;
- the step budget, only when one is set (evals, child runs).

Each stop carries a sentence for the user in the UI language. `stuck()` says when the
run is halfway to a guard, so `StuckAdvice` can speak up before the guard ends it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from mika.config.language import ui_language
from mika.model.errors import ModelError
from mika.model.messages import ToolCall
from mika.tool.outcome import EndRun, ToolOutcome

SAME_ACTION_LIMIT = 5
NO_PROGRESS_LIMIT = 8
SAME_READ_LIMIT = 6
FAILURE_LIMIT = 8

REASONS: dict[str, dict[str, str]] = {
    "en": {
        "repeated_action": "Stopped: the same action ({tool}) was repeated {n} times without progress.",
        "no_progress": "Stopped: the last {n} actions changed nothing on the screen.",
        "repeated_reading": "Stopped: the same content was read {n} times without anything changing.",
        "too_many_failures": "Stopped: {n} actions in a row failed.",
        "step_budget": "Stopped: the step budget of {n} steps was used up.",
        "gave_up": "{message}",
    },
    "zh": {
        "repeated_action": "已停止：同一个动作（{tool}）重复了 {n} 次都没有进展。",
        "no_progress": "已停止：最近 {n} 个动作都没有让界面发生变化。",
        "repeated_reading": "已停止：同样的内容读了 {n} 次，什么都没变。",
        "too_many_failures": "已停止：连续 {n} 个动作失败。",
        "step_budget": "已停止：{n} 步的步数上限用完了。",
        "gave_up": "{message}",
    },
}


@dataclass(frozen=True)
class Stop:
    subtype: str
    reason: str


def stop(subtype: str, lang: str | None = None, **fields: object) -> Stop:
    table = REASONS.get(lang or ui_language(), REASONS["en"])
    return Stop(subtype, table[subtype].format(**fields))


@dataclass
class StopRules:
    same_action_limit: int = SAME_ACTION_LIMIT
    no_progress_limit: int = NO_PROGRESS_LIMIT
    same_read_limit: int = SAME_READ_LIMIT
    failure_limit: int = FAILURE_LIMIT
    lang: str | None = None
    _last_key: str = ""
    _repeats: int = 0
    _no_effect: int = 0
    _failures: int = 0
    _reads: dict[str, int] = field(default_factory=dict)
    _max_read: int = 0

    def after_call(self, call: ToolCall, outcome: ToolOutcome) -> Stop | None:
        key = call.name + json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)
        progressed = outcome.effect not in ("", "no_effect")
        if key == self._last_key and not progressed:
            self._repeats += 1
        else:
            self._last_key, self._repeats = key, 1
        self._failures = 0 if outcome.ok else self._failures + 1
        if outcome.effect == "no_effect":
            self._no_effect += 1
        elif progressed:
            self._no_effect = 0
        if progressed:
            self._reads.clear()  # the world changed: reading it again is new reading
            self._max_read = 0
        for obs in outcome.observations:
            digest = hashlib.sha1(obs.text.encode("utf-8")).hexdigest()
            self._reads[digest] = self._reads.get(digest, 0) + 1
            self._max_read = max(self._max_read, self._reads[digest])
        if self._repeats >= self.same_action_limit:
            return stop("repeated_action", self.lang, tool=call.name, n=self._repeats)
        if self._no_effect >= self.no_progress_limit:
            return stop("no_progress", self.lang, n=self._no_effect)
        if self._max_read >= self.same_read_limit:
            return stop("repeated_reading", self.lang, n=self._max_read)
        if self._failures >= self.failure_limit:
            return stop("too_many_failures", self.lang, n=self._failures)
        return None

    def stuck(self) -> bool:
        """Halfway to a guard: time for advice."""
        return (
            self._repeats >= (self.same_action_limit + 1) // 2 + 1
            or self._no_effect >= self.no_progress_limit // 2
            or self._max_read >= self.same_read_limit // 2
            or self._failures >= self.failure_limit // 2
        )

    def budget(self, step: int, budget: int) -> Stop | None:
        if budget and step >= budget:
            return stop("step_budget", self.lang, n=budget)
        return None

    def gave_up(self, end: EndRun) -> Stop:
        return stop("gave_up", self.lang, message=end.message)

    def model_failed(self, err: ModelError) -> Stop:
        # The provider error's own sentence says what to fix (the key, the model name).
        return Stop(err.kind.value, err.user_message(ui_language()))
