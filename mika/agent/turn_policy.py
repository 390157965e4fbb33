"""`TurnPolicy`: what the loop says to the model before it accepts an answer (seed §3).

- an empty or cut-off reply is reminded once;
- the user just answered a question in the middle of work (something was acted on
  before) and the model did nothing with it: reminded once;
- the last screen-changing action was never read back: reminded once;
- the answer is not in the language of the user's last message: sent back once to be
  rewritten (if the rewrite is still off, it stands);
- only with a step budget (evals, child runs): a progress check at half of it, and the
  last request says it is the last step (answer or end_not_done) in its runtime zone. It
  keeps the tool list of the step before, so the cached prefix holds (issue 16); a call
  to any other tool on that step is refused, not run.

Each reminder is given once per run; if the model persists, its answer stands. The loop
tells the policy what each call did (`after_call`) and what the user last said.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mika.agent.reply_language import ReplyLanguage, dominant_script
from mika.model.messages import ModelResponse
from mika.resources import prompt
from mika.tool.declaration import AgentTool, Risk, ToolOutcome
from mika.tool.groups import OPENS_WITH, opens_along

# Groups whose tools act on a screen (they open the "screens" group with them, a tier
# such as phone_more through its group).
SCREEN_GROUPS = frozenset(g for g in OPENS_WITH if "screens" in opens_along(g))
SCREEN_EFFECTS = frozenset({"done", "place_changed"})


@dataclass
class TurnPolicy:
    _given: set[str] = field(default_factory=set)
    # The user answered a question and no action has followed yet.
    _answer_pending: bool = False
    # A screen-changing action succeeded and nothing has read the screen since.
    _unread_change: str = ""
    # Something was acted on in this run: an answer then matters for the work under way
    # (a question answered in a plain chat needs no action after it).
    _acted: bool = False
    user_last: str = ""
    # The old last round (only end_not_done offered), kept for the context_cache
    # benchmark's baseline (RunOptions.cache_baseline); never on in a real run.
    narrow_last_round: bool = False

    def _once(self, key: str, **fields: str) -> str | None:
        if key in self._given:
            return None
        self._given.add(key)
        text = prompt(f"feedback/{key}.md")
        return text.format(**fields) if fields else text

    def user_said(self, text: str) -> None:
        """The user's latest words (the task, a steer): the answer's language follows them."""
        # A bare "M" or "2" says nothing about the language: the earlier words still decide.
        if dominant_script(text) is not None:
            self.user_last = text

    def after_call(self, tool: AgentTool | None, outcome: ToolOutcome) -> None:
        if tool is None:
            return
        if tool.needs_user:
            answered = bool(outcome.data.get("answer")) if outcome.ok else False
            self._answer_pending = answered
            if answered:
                self.user_said(str(outcome.data["answer"]))
            return
        if tool.control:
            return
        self._answer_pending = False
        if tool.risk is not Risk.READ:
            self._acted = True
        if outcome.observations and tool.risk is Risk.READ:
            self._unread_change = ""
        elif (
            tool.risk is not Risk.READ
            and tool.group in SCREEN_GROUPS
            and outcome.ok
            and outcome.effect in SCREEN_EFFECTS
            and not outcome.observations
        ):
            self._unread_change = tool.name

    def budget_note(self, step: int, budget: int) -> str | None:
        """With a step budget (evals, child runs): once, at half of it, a progress check."""
        if not budget or step < max(1, budget // 2) or step >= budget - 1:
            return None
        return self._once("progress_check", used=str(step), budget=str(budget))

    @staticmethod
    def last_round(step: int, budget: int) -> bool:
        """With a step budget, the request for the last step (only an answer or end_not_done is taken)."""
        return bool(budget) and step == budget - 1

    @staticmethod
    def last_step_note() -> str:
        """Zone 3's line on the last budgeted step: said in words, not by dropping tools."""
        return prompt("feedback/last_step.md")

    @staticmethod
    def allowed_on_last_round(tool: AgentTool | None) -> bool:
        """On the last budgeted step only a tool that gives up (end_not_done) runs; an
        unknown name is refused too."""
        return tool is not None and tool.gives_up

    def before_answer(self, response: ModelResponse) -> str | None:
        """A reminder to send back instead of accepting this reply, or None to accept."""
        text = response.message.text.strip()
        if not text or response.stop_reason == "max_tokens":
            return self._once("empty_reply")
        if self._answer_pending and self._acted:
            self._answer_pending = False
            reminder = self._once("answer_not_acted")
            if reminder:
                return reminder
        if self._unread_change:
            tool, self._unread_change = self._unread_change, ""
            reminder = self._once("read_back", tool=tool)
            if reminder:
                return reminder
        mismatch = ReplyLanguage.check(text, self.user_last)
        if mismatch is not None:
            return self._once("rewrite_language", language=mismatch.wanted_name)
        return None
