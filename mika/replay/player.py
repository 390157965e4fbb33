"""`RoutePlayer`: do a recorded route again, step by step, without the model.

Each step: the tool must be in the run and replayable; its placeholders are filled from
the match's parameters; the tool re-targets it onto the current screen (`from_anchor`:
same place, the anchor present exactly once, fresh — else AnchorMissing); a payment
step is never replayed; the call goes through the single action entry
(`executor.perform(call, ctx, Origin.REPLAY)`: every rule of the executor applies, and
Origin.REPLAY may not spend a consent); and its effect must be the recorded one. The
first step that does not hold stops the replay: nothing is guessed, the model takes
over with a progress note (prompts/feedback/route_handover.md).
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field
from typing import Any

from mika.action.executor import ActionExecutor
from mika.action.origin import Origin
from mika.action.risk import RiskClass, classify_touch
from mika.model.messages import ToolCall
from mika.replay.matcher import RouteMatch
from mika.replay.route import RouteStep, fill, placeholders
from mika.resources import prompt
from mika.tool.context import ToolContext
from mika.tool.declaration import AnchorMissing

log = logging.getLogger(__name__)

_ids = itertools.count(1)
_CHANGED = ("done", "place_changed")


@dataclass(frozen=True)
class PlayReport:
    match: RouteMatch
    done: int  # steps replayed and checked
    handed_over_at: int = 0  # 1-based step that did not hold; 0: every step done
    reason: str = ""
    descriptions: tuple[str, ...] = field(default_factory=tuple)  # of the steps done

    @property
    def complete(self) -> bool:
        return self.handed_over_at == 0

    @property
    def total(self) -> int:
        return len(self.match.route.steps)

    def answer(self) -> str:
        """The recorded answer with this goal's values (empty when the route kept none)."""
        return str(fill(self.match.route.answer, self.match.params)) if self.match.route.answer else ""

    def handover_note(self) -> str:
        route = self.match.route
        step = route.steps[self.handed_over_at - 1]
        done = "\n".join(f"{i}. {d}" for i, d in enumerate(self.descriptions, 1)) or "(none)"
        return prompt("feedback/route_handover.md").format(
            route_goal=route.goal,
            route_id=route.id,
            step=self.handed_over_at,
            total=self.total,
            done_steps=done,
            step_text=describe(step, self.match.params),
            reason=self.reason,
        )


def describe(step: RouteStep, params: dict[str, str]) -> str:
    args = fill(step.args, params)
    anchor = step.anchor
    on = ""
    if anchor:
        name = anchor.get("label") or anchor.get("desc") or anchor.get("resource_id") or "?"
        on = f' on {anchor.get("role") or "element"} "{name}"'
    where = step.place.get("title") or step.place.get("activity") or step.place.get("app") or ""
    at = f" (on {where})" if where else ""
    shown = ", ".join(f"{k}={v!r}" for k, v in args.items()) if isinstance(args, dict) else ""
    return f"{step.tool}({shown}){on}{at}"


@dataclass
class RoutePlayer:
    executor: ActionExecutor
    ctx: ToolContext

    async def play(self, match: RouteMatch) -> PlayReport:
        done: list[str] = []
        for index, step in enumerate(match.route.steps, 1):
            why = await self._step(index, step, match.params)
            if why:
                log.info("route %s handed over at step %d: %s", match.route.id, index, why)
                return PlayReport(match, len(done), index, why, tuple(done))
            done.append(describe(step, match.params))
        return PlayReport(match, len(done), 0, "", tuple(done))

    async def _step(self, index: int, step: RouteStep, params: dict[str, str]) -> str:
        """ "" when the step was done and checked, else why not."""
        ctx = self.ctx
        if ctx.inbox.cancelled.is_set() or ctx.inbox.steer_signal.is_set():
            return "the user said something new (or stopped the task)"
        tool = self.executor.registry.get(step.tool)
        if tool is None:
            return f"there is no tool {step.tool!r} in this run"
        if not tool.replayable:
            return f"{step.tool} is not a tool a route may replay"
        missing = placeholders(step.args) - set(params)
        if missing:
            return f"no value for the parameter(s) {', '.join(sorted(missing))}"
        args: dict[str, Any] = fill(step.args, params)
        ctx.step = index
        try:
            targeted = await tool.from_anchor(args, {"place": step.place, "anchor": step.anchor}, ctx)
        except AnchorMissing as exc:
            return str(exc)
        except Exception as exc:  # a route is a shortcut: its fault hands over, never fails the run
            log.exception("re-targeting step %d of a route failed", index)
            return f"the screen could not be checked ({type(exc).__name__}: {exc})"
        if targeted is None:
            return "what the route acted on is not on the screen"
        # A payment step is never replayed: not even asked (the executor would refuse it too).
        try:
            target = await tool.target(targeted, ctx)
        except Exception as exc:
            return f"what the step would touch could not be checked ({type(exc).__name__})"
        if target is not None:
            risk = classify_touch(target).risk
            if target.unclear or risk in (RiskClass.PAYMENT, RiskClass.PAY):
                return "it is a payment step, which a route never replays: a person decides about paying"
        call = ToolCall(f"replay_{next(_ids)}", step.tool, targeted)
        outcome = await self.executor.perform(call, ctx, Origin.REPLAY)
        if not outcome.ok:
            first = outcome.text.strip().splitlines()[0] if outcome.text.strip() else ""
            return f"the step did not succeed ({outcome.code}): {first[:200]}"
        if outcome.effect == "no_effect" and step.effect != "no_effect":
            return "the step had no visible effect"
        if step.effect == "place_changed" and outcome.effect != "place_changed":
            return f"the step was to open another page, but its effect was {outcome.effect or 'unchecked'}"
        if step.effect in _CHANGED and outcome.effect not in _CHANGED:
            return "the step's effect could not be checked"
        return ""
