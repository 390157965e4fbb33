"""`ActionExecutor`: the only way to act.

Every tool call goes through `perform`, in a fixed order: guards → lock-screen check →
irreversible check and consent → execute → post-action check → record. Only this module
holds the ActionPass minter, so a write cannot reach the dispatcher any other way.
Composite tools (do_steps) send each sub-action back through `perform` with their own
Origin.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from mika.action.approval import ApprovalPolicy, Verdict
from mika.action.origin import Origin
from mika.action.pacing import OutwardPacing
from mika.action.risk import Classified, RiskClass, classify
from mika.model.messages import ToolCall
from mika.resources import prompt
from mika.record.events import ApprovalEvent, ToolCalled, ToolFinished, ToolsOpened
from mika.tool.action_pass import issue_minter
from mika.tool.context import SkippedForNewMessage, ToolContext
from mika.tool.declaration import ActionTarget, Risk, ToolOutcome
from mika.tool.dispatcher import ToolDispatcher, skipped_outcome
from mika.tool.errors import BadArguments
from mika.tool.groups import ToolGroups
from mika.tool.registry import ToolRegistry
from mika.tool.schema import check_arguments

_MINTER = issue_minter()

# Model-facing texts live in prompts/feedback/, named by the verdict's code.
_REFUSALS = {v: f"feedback/{v.value}.md" for v in (Verdict.NEEDS_CONFIRMATION, Verdict.UNAVAILABLE, Verdict.HAND_TO_USER)}


@dataclass
class ExecutorHooks:
    """Callbacks the loop listens to (stop rules, metrics) without the executor knowing them."""

    on_finished: list[Callable[[ToolCall, ToolOutcome, Origin], None]] = field(default_factory=list)


class ActionExecutor:
    def __init__(
        self,
        registry: ToolRegistry,
        groups: ToolGroups,
        dispatcher: ToolDispatcher,
        approval: ApprovalPolicy,
        pacing: OutwardPacing,
        *,
        read_only: bool = False,
    ) -> None:
        self.registry = registry
        self.groups = groups
        self.dispatcher = dispatcher
        self.approval = approval
        self.pacing = pacing
        self.read_only = read_only
        self.hooks = ExecutorHooks()
        self.outward_count = 0

    async def perform(self, call: ToolCall, ctx: ToolContext, origin: Origin = Origin.MODEL) -> ToolOutcome:
        started = time.monotonic()
        tool = self.registry.get(call.name)
        if tool is None:
            offered = ", ".join(self.registry.names())
            outcome = ToolOutcome.error("unknown_tool", f"There is no tool named {call.name!r} in this run. Tools: {offered}.")
            self._record(call, ctx, origin, outcome, started, capability="", risk="read")
            return outcome

        for group in self.groups.on_call(tool):
            ctx.emit(ToolsOpened(run_id=ctx.run_id, conversation_id=ctx.spec.conversation_id, step=ctx.step, group=group))
        ctx.emit(
            ToolCalled(
                run_id=ctx.run_id, conversation_id=ctx.spec.conversation_id, step=ctx.step, call_id=call.id,
                name=tool.name, arguments=dict(call.arguments), origin=origin.value,
                capability=tool.capability, risk=tool.risk.value, control=tool.control,
            )
        )
        try:
            args = check_arguments(tool.name, tool.parameters, dict(call.arguments))
        except BadArguments as bad:
            outcome = ToolOutcome.error(bad.code, str(bad))
            return self._record(call, ctx, origin, outcome, started, emit_call=False, capability=tool.capability, risk=tool.risk.value)

        if tool.risk is Risk.READ:
            outcome = await self.dispatcher.execute_read(tool, args, ctx)
            return self._record(call, ctx, origin, outcome, started, emit_call=False, capability=tool.capability, risk=tool.risk.value)

        # 1. guards
        if self.read_only:
            outcome = ToolOutcome.error("read_only", prompt("feedback/read_only.md"))
            return self._record(call, ctx, origin, outcome, started, emit_call=False, capability=tool.capability, risk=tool.risk.value)
        # 2. lock screen
        if await ctx.surface.is_locked(tool.capability):
            outcome = ToolOutcome.error("screen_locked", prompt("feedback/screen_locked.md"))
            return self._record(call, ctx, origin, outcome, started, emit_call=False, capability=tool.capability, risk=tool.risk.value)
        # 3. irreversible check and consent
        target = await tool.target(args, ctx) or ActionTarget()
        classified = classify(target.label, target.screen_text)
        decision = self.approval.decide(classified, target, origin, ctx.step)
        what = _what(target, classified)
        if classified.risk is not RiskClass.NONE:
            ctx.emit(
                ApprovalEvent(
                    run_id=ctx.run_id, conversation_id=ctx.spec.conversation_id, step=ctx.step,
                    decision={"go": "outward", "released": "released"}.get(decision.verdict.value, decision.verdict.value),
                    tool=tool.name, app=target.app, amount=classified.amount, what=what, reason=classified.risk.value,
                )
            )
        if not decision.allowed:
            text = prompt(_REFUSALS[decision.verdict]).format(what=what)
            outcome = ToolOutcome.error(decision.verdict.value, text, amount=classified.amount, app=target.app)
            return self._record(call, ctx, origin, outcome, started, emit_call=False, capability=tool.capability, risk=tool.risk.value)

        outward = classified.risk in (RiskClass.OUTWARD, RiskClass.PAYMENT, RiskClass.PAY)
        place = target.app
        wait_ms = 0
        if outward:
            delay = self.pacing.delay(place)
            if delay > 0:
                waited_from = ctx.clock()
                try:
                    await ctx.wait_or_steer(delay)
                except SkippedForNewMessage:
                    wait_ms = int((ctx.clock() - waited_from) * 1000)
                    outcome = skipped_outcome()
                    return self._record(call, ctx, origin, outcome, started, emit_call=False, wait_ms=wait_ms, capability=tool.capability, risk=tool.risk.value)
                wait_ms = int((ctx.clock() - waited_from) * 1000)

        # 4. execute
        outcome = await self.dispatcher.execute(call.id, tool, args, ctx, _MINTER.mint(call.id, tool.name))

        # 5. post-action check
        if self.approval.gate is not None and decision.verdict is not Verdict.RELEASED:
            self.approval.gate.note_write()
        if outward and outcome.ok:
            self.pacing.finished(place)
            self.outward_count += 1
        return self._record(call, ctx, origin, outcome, started, emit_call=False, wait_ms=wait_ms, capability=tool.capability, risk=tool.risk.value)

    # 6. record
    def _record(
        self,
        call: ToolCall,
        ctx: ToolContext,
        origin: Origin,
        outcome: ToolOutcome,
        started: float,
        *,
        emit_call: bool = True,
        wait_ms: int = 0,
        capability: str,
        risk: str,
    ) -> ToolOutcome:
        if emit_call:
            ctx.emit(
                ToolCalled(
                    run_id=ctx.run_id, conversation_id=ctx.spec.conversation_id, step=ctx.step, call_id=call.id,
                    name=call.name, arguments=dict(call.arguments), origin=origin.value, capability=capability, risk=risk,
                )
            )
        total_wait = wait_ms + outcome.wait_ms
        if total_wait != outcome.wait_ms:
            outcome = _with_wait(outcome, total_wait)
        duration = int((time.monotonic() - started) * 1000)
        frame = ""
        if outcome.image is not None and ctx.save_frame is not None:
            frame = ctx.save_frame(outcome.image, ctx.step)
        obs_id = outcome.observations[-1].id if outcome.observations else ""
        ctx.emit(
            ToolFinished(
                run_id=ctx.run_id, conversation_id=ctx.spec.conversation_id, step=ctx.step, call_id=call.id,
                name=call.name, ok=outcome.ok, text=outcome.text, code=outcome.code, effect=outcome.effect,
                tree_blind=outcome.tree_blind, wait_ms=total_wait, duration_ms=max(0, duration - total_wait),
                observation_id=obs_id, frame=frame,
            )
        )
        for hook in self.hooks.on_finished:
            hook(call, outcome, origin)
        return outcome


def _with_wait(outcome: ToolOutcome, wait_ms: int) -> ToolOutcome:
    from dataclasses import replace

    return replace(outcome, wait_ms=wait_ms)


def _what(target: ActionTarget, classified: Classified) -> str:
    parts = [f"'{target.label}'" if target.label else "this action"]
    if classified.amount:
        parts.append(classified.amount)
    if target.app:
        parts.append(f"in {target.app}")
    return " ".join(parts)
