"""`InputGate`: one payment judgement for every input that reaches a screen.

The check used to live in each tool's `target()`, so a tool that declared none (a focus
tap before typing, a gesture, a link in a page) was never judged. Now the ports call the
gate themselves, with what the input will land on, just before they send it: a phone's
tap, long press, stroke, key, text, intent or launch; a page's click, key, typing and
every navigation it starts. Whatever route the input came by (the model, a batch, a route
replay, the sandbox bridge, an MCP client, a schedule, a sub-agent) it meets this one
judgement, because every route reaches the screen through a port.

The gate knows nothing of phones or pages: a port describes the input as an
`ActionTarget` (label, where it leads, the screen's text and place, whether the element
is pressable or secret), and `classify_touch` judges it. The executor opens a `Scope`
around each call so the gate knows who started the input and at which step; an input
outside any call (a page that navigates on a timer) is judged as one nobody can consent to.

A refused input raises `InputHeld` inside the tool; the dispatcher turns it into the
call's result and the executor makes sure the result is the refusal whatever the tool did
with the exception.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mika.action.approval import ApprovalPolicy, Decision, Verdict
from mika.action.approval_summary import ScreenSummary, summarize_text
from mika.action.origin import Origin
from mika.action.risk import Classified, RiskClass, classify_touch
from mika.observe.untrusted import fence
from mika.record.events import ApprovalEvent
from mika.resources import prompt
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.tool.errors import ToolFault

if TYPE_CHECKING:
    from mika.tool.context import ToolContext

log = logging.getLogger(__name__)

# Model-facing texts live in prompts/feedback/, named by the verdict's code.
REFUSALS = {
    v: f"feedback/{v.value}.md"
    for v in (Verdict.NEEDS_CONFIRMATION, Verdict.UNAVAILABLE, Verdict.HAND_TO_USER, Verdict.UNCLEAR)
}
# A risky setting is asked like a payment step, in its own words (nothing is spent).
SETTING_REFUSALS = {v: f"feedback/setting_{v.value}.md" for v in (Verdict.NEEDS_CONFIRMATION, Verdict.UNAVAILABLE)}


def refusal_text(decision: Decision, target: ActionTarget) -> str:
    if decision.classified.risk is RiskClass.SETTING and decision.verdict in SETTING_REFUSALS:
        return prompt(SETTING_REFUSALS[decision.verdict]).format(what=what_of(target, decision.classified))
    return prompt(REFUSALS[decision.verdict]).format(what=what_of(target, decision.classified))


class InputHeld(ToolFault):
    """An input was not sent: it is a payment step nobody approved (or the final pay)."""

    def __init__(self, held: Held) -> None:
        super().__init__(held.text, code=held.decision.verdict.value)
        self.held = held


@dataclass(frozen=True)
class Held:
    decision: Decision
    target: ActionTarget
    text: str  # the refusal, for the model

    def outcome(self) -> ToolOutcome:
        return ToolOutcome.error(
            self.decision.verdict.value,
            self.text,
            amount=self.decision.classified.amount,
            app=self.target.app,
        )


@dataclass
class Scope:
    """One call through the executor: who started it, and what the gate decided in it."""

    origin: Origin
    ctx: ToolContext | None
    tool: str
    held: Held | None = None
    released: bool = False  # a consent released an input of this call
    inputs: int = 0  # inputs judged and sent
    risks: list[RiskClass] = field(default_factory=list)


class InputGate:
    def __init__(self, approval: ApprovalPolicy) -> None:
        self.approval = approval
        self._scopes: list[Scope] = []
        self._last_ctx: ToolContext | None = None
        # Capabilities whose ports call the gate: their tools' own targets are no longer
        # judged (one judgement per input), only used for pacing.
        self._covered: set[str] = set()
        # Every judgement, for the gate's benchmark and for tests: (kind, verdict).
        self.judged = 0
        self.on_judged: Callable[[ActionTarget, Decision], None] | None = None

    # -- who is acting ---------------------------------------------------------------

    def cover(self, capability: str) -> None:
        self._covered.add(capability)

    def covers(self, capability: str) -> bool:
        return capability in self._covered

    @contextlib.contextmanager
    def scope(self, origin: Origin, ctx: ToolContext | None, tool: str) -> Iterator[Scope]:
        s = Scope(origin, ctx, tool)
        self._scopes.append(s)
        if ctx is not None:
            self._last_ctx = ctx
        try:
            yield s
        finally:
            self._scopes.remove(s)

    @property
    def current(self) -> Scope | None:
        return self._scopes[-1] if self._scopes else None

    # -- the judgement ---------------------------------------------------------------

    def check(self, target: ActionTarget) -> None:
        """Judge one input before it is sent; raises InputHeld when it may not go."""
        held = self.judge(target)
        if held is not None:
            raise InputHeld(held)

    def judge(self, target: ActionTarget, *, tool: str = "") -> Held | None:
        """The judgement without raising: None when the input may go, else what held it."""
        scope = self.current
        # Outside any call (a page navigating by itself): nobody's consent can cover it.
        origin = scope.origin if scope is not None else Origin.SCRIPT
        ctx = scope.ctx if scope is not None else self._last_ctx
        step = ctx.step if ctx is not None else 0
        classified = classify_touch(target)
        decision = self.approval.decide(classified, target, origin, step)
        self.judged += 1
        if self.on_judged is not None:
            self.on_judged(target, decision)
        if scope is not None:
            scope.risks.append(classified.risk)
        if classified.risk is not RiskClass.NONE:
            self._record(target, classified, decision, ctx, tool or (scope.tool if scope else ""))
        if decision.verdict is Verdict.RELEASED and scope is not None:
            scope.released = True
        if decision.allowed:
            if scope is not None:
                scope.inputs += 1
            return None
        held = Held(decision, target, refusal_text(decision, target))
        if scope is not None and scope.held is None:
            scope.held = held
        log.info("input held (%s): %s %r", decision.verdict.value, target.kind, target.label)
        return held

    def _record(
        self, target: ActionTarget, classified: Classified, decision: Decision, ctx: ToolContext | None, tool: str
    ) -> None:
        seen = None
        if classified.risk in (RiskClass.PAYMENT, RiskClass.PAY):
            seen = summarize_text(target.screen_text, button=target.label, app=target.app)
        elif classified.risk is RiskClass.SETTING:
            # What the person is asked about: the setting and what the change does.
            seen = ScreenSummary(
                item=target.screen_text or target.label, app=target.app, button=target.label, kind="setting"
            )
        if seen is not None and not decision.allowed:
            self.approval.seen = seen
        if ctx is None:
            return
        ctx.emit(
            ApprovalEvent(
                run_id=ctx.run_id,
                conversation_id=ctx.spec.conversation_id,
                step=ctx.step,
                decision={"go": "outward", "released": "released"}.get(decision.verdict.value, decision.verdict.value),
                tool=tool,
                app=target.app,
                amount=(seen.amount if seen else "") or classified.amount,
                what=what_of(target, classified, fenced=False),
                reason=classified.risk.value,
                item=seen.item if seen else "",
                button=seen.button if seen else "",
            )
        )


def what_of(target: ActionTarget, classified: Classified, *, fenced: bool = True) -> str:
    """The step in a few words: its label (fenced for the model: it is the app's text), the
    amount and the app."""
    # A setting is named with the change the port read ("settings secure lockscreen.disabled
    # = 1 (the lock screen)"), not just its key.
    label = (target.screen_text if target.kind == "setting" else "") or target.label or target.place
    if label and fenced:
        parts = [fence(label[:120], {"source": "screen"}, block=False)]
    elif label:
        parts = [f"'{label[:120]}'"]
    else:
        parts = ["this action"]
    if classified.amount:
        parts.append(classified.amount)
    if target.app:
        parts.append(f"in {target.app}")
    return " ".join(parts)
