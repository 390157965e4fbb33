"""`ActionExecutor`: the only way to act.

Every tool call goes through `perform`, in a fixed order: guards → lock-screen check →
irreversible check and consent → execute → post-action check → record. Only this module
holds the ActionPass minter, so a write cannot reach the dispatcher any other way.
Composite tools (do_steps) send each sub-action back through `perform` with their own
Origin.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from mika.action.approval import ApprovalPolicy
from mika.action.input_gate import InputGate
from mika.action.origin import Origin
from mika.action.pace import ScreenPace
from mika.action.pacing import OutwardPacing
from mika.action.risk import Classified, RiskClass, classify_touch
from mika.model.messages import ToolCall
from mika.record.events import RouteStepSeen, ToolCalled, ToolFinished, ToolsOpened
from mika.resources import prompt
from mika.tool.action_pass import issue_minter
from mika.tool.context import SkippedForNewMessage, ToolContext
from mika.tool.declaration import ActionTarget, AgentTool, Risk, ToolOutcome
from mika.tool.dispatcher import ToolDispatcher, skipped_outcome
from mika.tool.errors import BadArguments
from mika.tool.groups import ToolGroups
from mika.tool.registry import ToolRegistry
from mika.tool.schema import check_arguments

_MINTER = issue_minter()
log = logging.getLogger(__name__)


# What a long read says of itself in the record: why it stopped and whether it read the
# whole list (mika.cap.phone.tools.collect), so an early stop is never mistaken for the end.
READ_KEYS = ("stop", "complete", "screens", "scrolls", "end")


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
        screen_pace: ScreenPace | None = None,
        record_anchors: bool = False,
        gate: InputGate | None = None,
    ) -> None:
        self.registry = registry
        self.groups = groups
        self.dispatcher = dispatcher
        self.approval = approval
        self.pacing = pacing
        self.read_only = read_only
        # [general] pace: dwell before each screen-changing action and the careful apps'
        # screen cap; None (tests, fast) acts at once as before.
        self.screen_pace = screen_pace
        # [run] replay: each replayable call's place and anchor is read just before it runs
        # (a RouteStepSeen event), so a verified run can become a route (mika.replay).
        self.record_anchors = record_anchors
        # The one payment judgement; the ports of the capabilities it covers call it too.
        self.gate = gate or InputGate(approval)

    async def perform(self, call: ToolCall, ctx: ToolContext, origin: Origin = Origin.MODEL) -> ToolOutcome:
        started = ctx.clock()  # the run's clock, like the waits it is compared with
        tool = self.registry.get(call.name)
        if tool is not None:
            for group in self.groups.on_call(tool):
                ctx.emit(
                    ToolsOpened(run_id=ctx.run_id, conversation_id=ctx.spec.conversation_id, step=ctx.step, group=group)
                )
        ctx.emit(
            ToolCalled(
                run_id=ctx.run_id,
                conversation_id=ctx.spec.conversation_id,
                step=ctx.step,
                call_id=call.id,
                name=call.name,
                arguments=dict(call.arguments),
                origin=origin.value,
                capability=tool.capability if tool else "",
                risk=tool.risk.value if tool else "read",
                control=tool.control if tool else False,
            )
        )
        if tool is None:
            offered = ", ".join(self.registry.names())
            outcome, wait_ms = (
                ToolOutcome.error(
                    "unknown_tool", f"There is no tool named {call.name!r} in this run. Tools: {offered}."
                ),
                0,
            )
        else:
            outcome, wait_ms = await self._act(tool, call, ctx, origin)
        return self._record(call, ctx, outcome, started, wait_ms)

    async def _act(self, tool: AgentTool, call: ToolCall, ctx: ToolContext, origin: Origin) -> tuple[ToolOutcome, int]:
        """Steps 1–5; returns the outcome and how long pacing waited before the action."""
        try:
            args = check_arguments(tool.name, tool.parameters, dict(call.arguments), raw=call.raw_arguments)
        except BadArguments as bad:
            return ToolOutcome.error(bad.code, str(bad)), 0
        if tool.risk is Risk.READ:
            read = await self.dispatcher.execute_read(tool, args, ctx)
            if self.screen_pace is not None and read.ok and "answer" in read.data:
                # The user answered (ask_user): a careful app's screen count starts again.
                self.screen_pace.cap.user_answered()
            return read, 0

        # 1. guards
        if self.read_only:
            return ToolOutcome.error("read_only", prompt("feedback/read_only.md")), 0
        # 2. lock screen
        if await ctx.surface.is_locked(tool.capability):
            return ToolOutcome.error("screen_locked", prompt("feedback/screen_locked.md")), 0
        # 3. irreversible check and consent. A capability whose port calls the gate has
        # every input judged there, as it is sent (one judgement per input); its tool's
        # target then only paces. Any other tool is judged here by what it declares.
        target = await tool.target(args, ctx) or ActionTarget()
        classified = classify_touch(target)
        with self.gate.scope(origin, ctx, tool.name) as scope:
            if not self.gate.covers(tool.capability):
                held = self.gate.judge(target, tool=tool.name)
                if held is not None:
                    return held.outcome(), 0
            outcome, wait_ms, paced = await self._paced_execute(tool, call, args, ctx, origin, target, classified)
        if scope.held is not None and outcome.code != scope.held.decision.verdict.value:
            # The tool caught the refusal and said something else: the refusal is the result.
            outcome = scope.held.outcome()

        # 5. post-action check: a consent never carries over another write
        if self.approval.gate is not None and not scope.released:
            self.approval.gate.note_write()
        outward = classified.risk in (RiskClass.OUTWARD, RiskClass.PAYMENT, RiskClass.PAY)
        if outward and outcome.ok:
            self.pacing.finished(target.app)
        if paced is not None:
            paced.dwell.after(outcome.effect)
            paced.cap.note(target.app, outcome.effect)
            if outward and outcome.ok:
                paced.cap.outward_done(target.app)
        return outcome, wait_ms

    async def _paced_execute(
        self,
        tool: AgentTool,
        call: ToolCall,
        args: dict[str, Any],
        ctx: ToolContext,
        origin: Origin,
        target: ActionTarget,
        classified: Classified,
    ) -> tuple[ToolOutcome, int, ScreenPace | None]:
        """Screen pace and outward pacing, then step 4 (execute)."""
        outward = classified.risk in (RiskClass.OUTWARD, RiskClass.PAYMENT, RiskClass.PAY)
        place = target.app
        wait_ms = 0
        # Screen pace: for an action on a screen (its target names a kind, or the tool says
        # it changes the screen); not for a composite (do_steps): its steps come back here
        # and dwell one by one.
        on_screen = bool(target.kind) or bool(getattr(tool, "changes_screen", False))
        # A tool that paces itself (the web's page dwell) is not paced a second time here.
        own = getattr(tool, "composite", False) or tool.paces_itself
        paced = self.screen_pace if on_screen and not own else None
        if paced is not None:
            if paced.cap.blocks(target.app, bool(getattr(tool, "page_capped", False))):
                return ToolOutcome.error("page_limit", prompt("feedback/page_limit.md")), 0, None
            paced.dwell.screen_read(len(target.screen_text))
            dwell = paced.dwell.before(target.app)
            if dwell > 0:
                waited_from = ctx.clock()
                try:
                    await ctx.wait_or_steer(dwell)
                except SkippedForNewMessage:
                    return skipped_outcome(), round((ctx.clock() - waited_from) * 1000), None
                wait_ms += round((ctx.clock() - waited_from) * 1000)
        if outward:
            delay = self.pacing.delay(place)
            if delay > 0:
                waited_from = ctx.clock()
                try:
                    await ctx.wait_or_steer(delay)
                except SkippedForNewMessage:
                    return skipped_outcome(), wait_ms + int((ctx.clock() - waited_from) * 1000), None
                wait_ms += int((ctx.clock() - waited_from) * 1000)

        if self.record_anchors and tool.replayable and origin in (Origin.MODEL, Origin.BATCH):
            await self._note_anchor(tool, call, args, ctx)

        # 4. execute
        outcome = await self.dispatcher.execute(call.id, tool, args, ctx, _MINTER.mint(call.id, tool.name))
        return outcome, wait_ms, paced

    async def _note_anchor(self, tool: AgentTool, call: ToolCall, args: dict[str, Any], ctx: ToolContext) -> None:
        try:
            seen = await tool.anchor(args, ctx)
        except Exception:  # a route is a bonus: reading its anchor never fails the action
            log.exception("reading the anchor of %s failed", tool.name)
            seen = None
        ctx.emit(
            RouteStepSeen(
                run_id=ctx.run_id,
                conversation_id=ctx.spec.conversation_id,
                step=ctx.step,
                call_id=call.id,
                name=tool.name,
                place=dict((seen or {}).get("place") or {}),
                anchor=dict((seen or {}).get("anchor") or {}),
                anchored=seen is not None,
            )
        )

    # 6. record
    def _record(
        self, call: ToolCall, ctx: ToolContext, outcome: ToolOutcome, started: float, wait_ms: int
    ) -> ToolOutcome:
        total_wait = wait_ms + outcome.wait_ms
        if total_wait != outcome.wait_ms:
            outcome = replace(outcome, wait_ms=total_wait)
        duration = int((ctx.clock() - started) * 1000)
        frame = ""
        if outcome.image is not None and ctx.save_frame is not None:
            frame = ctx.save_frame(outcome.image, ctx.step)
        obs_id = outcome.observations[-1].id if outcome.observations else ""
        ctx.emit(
            ToolFinished(
                run_id=ctx.run_id,
                conversation_id=ctx.spec.conversation_id,
                step=ctx.step,
                call_id=call.id,
                name=call.name,
                ok=outcome.ok,
                text=outcome.text,
                capability=tool.capability if (tool := self.registry.get(call.name)) else "",
                code=outcome.code,
                effect=outcome.effect,
                tree_blind=outcome.tree_blind,
                wait_ms=total_wait,
                duration_ms=max(0, duration - total_wait),
                observation_id=obs_id,
                frame=frame,
                display=dict(outcome.data.get("display") or {}),
                rows=list(outcome.data.get("rows") or []),
                read={k: outcome.data[k] for k in READ_KEYS if k in outcome.data},
            )
        )
        return outcome
