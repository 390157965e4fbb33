"""`ToolDispatcher`: runs a tool call — writes only with an ActionPass.

It finds nothing by itself: the ActionExecutor hands it the tool, the arguments and, for
writes, the pass it minted. Around each call it asks the SurfaceLayer to prepare and to
finish (effects, fresh listing), records observations in the evidence ledger, and turns
faults into tool results.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from mika.observe.evidence import EvidenceLedger
from mika.resources import prompt
from mika.tool.action_pass import ActionPass
from mika.tool.context import SkippedForNewMessage, ToolContext
from mika.tool.declaration import AgentTool, Risk
from mika.tool.errors import ToolFault
from mika.tool.outcome import EndRun, ToolOutcome
from mika.tool.race import Interrupted, race

log = logging.getLogger(__name__)


def skipped_text() -> str:
    return prompt("feedback/skipped_for_new_message.md")


class NotARead(PermissionError):
    pass


def skipped_outcome() -> ToolOutcome:
    return ToolOutcome(text=skipped_text(), ok=False, code="skipped_for_new_message")


class ToolDispatcher:
    def __init__(self, evidence: EvidenceLedger) -> None:
        self.evidence = evidence

    async def execute(
        self, call_id: str, tool: AgentTool, args: dict[str, Any], ctx: ToolContext, action_pass: ActionPass
    ) -> ToolOutcome:
        if not isinstance(action_pass, ActionPass):
            raise PermissionError("execute needs an ActionPass from the ActionExecutor")
        action_pass.spend(call_id, tool.name)
        return await self._run(tool, args, ctx)

    async def execute_read(self, tool: AgentTool, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        if tool.risk is not Risk.READ:
            raise NotARead(f"{tool.name} is not a read-only tool; it must go through the ActionExecutor")
        return await self._run(tool, args, ctx)

    async def _run(self, tool: AgentTool, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            token = await ctx.surface.before(tool.capability, tool.name, args)
            if tool.yields_to_steer:
                outcome = await self._yielding(tool, args, ctx)
            else:
                outcome = await tool.run(args, ctx)
            if tool.needs_user:
                # Declared, not named: whoever answered may have used the phone meanwhile.
                forget = getattr(ctx.surface, "user_had_device", None)
                if forget is not None:
                    forget()
            if outcome.code != "skipped_for_new_message":
                outcome = await ctx.surface.after(tool.capability, tool.name, args, token, outcome)
        except SkippedForNewMessage:
            return skipped_outcome()
        except ToolFault as fault:
            end = EndRun(fault.end_subtype, str(fault)) if fault.ends_run else None
            return ToolOutcome(text=str(fault), ok=False, code=fault.code, end_run=end)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug in a tool must not end the run with a traceback
            log.exception("tool %s failed", tool.name)
            return ToolOutcome(text=f"{tool.name} failed: {type(exc).__name__}: {exc}", ok=False, code="internal_error")
        for obs in outcome.observations:
            self.evidence.add(obs)
        return outcome

    async def _yielding(self, tool: AgentTool, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        signal = ctx.inbox.steer_signal
        if signal.is_set():
            return skipped_outcome()
        try:
            return await race(tool.run(args, ctx), signal)
        except Interrupted:
            return skipped_outcome()
