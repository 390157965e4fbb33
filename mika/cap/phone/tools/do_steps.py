"""do_steps: several known phone actions in one call, each checked (BatchRunner)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from mika.action.origin import Origin
from mika.agent.batch import BatchRunner, BatchSpecError, BatchStep, Performed, parse_steps, summary
from mika.cap.phone.fenced import unseen_steps
from mika.cap.phone.tools.base import PhoneTool
from mika.cap.phone.tools.wait import until_wait
from mika.model.messages import ToolCall
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, ToolOutcome
from mika.uistate import WaitSpecError

STEP_SCHEMA = {
    "type": "object",
    "properties": {
        "tool": {"type": "string", "description": "A phone tool, e.g. phone_tap."},
        "args": {"type": "object", "description": "Its arguments, as for a single call."},
        "wait": {
            "type": "object",
            "description": "Optional: expect / expect_gone / expect_app / wait_stable / timeout_s.",
        },
        "optional": {
            "type": "boolean",
            "description": "True if this step may change nothing (e.g. closing a popup that may not be there); "
            "default false: a step with no visible effect or an unmet wait stops the batch.",
        },
    },
    "required": ["tool"],
}


class DoSteps(PhoneTool):
    name = "do_steps"
    group = "screens"
    changes_screen = True
    # The action entry's dwell is per step, not for the batch itself (mika.action.pace).
    composite = True
    parameters = {
        "type": "object",
        "properties": {"steps": {"type": "array", "items": STEP_SCHEMA, "description": "1 to 20 steps, in order."}},
        "required": ["steps"],
    }

    def __init__(self, tools: Mapping[str, AgentTool]) -> None:
        self._tools = tools

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        if ctx.perform is None:
            return ToolOutcome.error(
                "unavailable", "do_steps can't run here: there is no action entry to send steps through."
            )
        try:
            steps = parse_steps(
                args.get("steps"),
                known=lambda n: n in self._tools,
                batchable=lambda n: n != self.name and bool(getattr(self._tools.get(n), "batchable", False)),
            )
            for step in steps:
                if step.wait:
                    until_wait(step.wait)
        except (BatchSpecError, WaitSpecError) as exc:
            return ToolOutcome.error("bad_arguments", str(exc))
        session = self.session(ctx)
        start = session.reader.current or await session.reader.read()
        baseline = {"package": start.foreground_package, "dialog": start.has_dialog}
        batch_id = secrets.token_hex(3)
        # The model reads only what the whole batch hands back: no step's listing is a delta's base.
        perform = unseen_steps(ctx.perform, session.reader)

        async def run_step(index: int, step: BatchStep) -> Performed:
            call = ToolCall(f"batch-{batch_id}-{index}", step.tool, dict(step.args))
            out = await perform(call, ctx, Origin.BATCH)
            return out.ok, out.code, out.text, out.wait_ms, dict(out.data)

        async def wait(spec: dict[str, Any]) -> dict[str, Any]:
            result = await until_wait(spec).run(session.reader.read, ctx.inbox.steer_signal, sleep=ctx.sleep)
            if result.screen is not None:
                session.reader.mark_shown(result.screen)
            return result.as_dict()

        async def interrupted(step: BatchStep, data: dict[str, Any]) -> str | None:
            if data.get("chooser") and not data.get("profile"):
                return "chooser"  # the phone asks which copy of an app installed twice to open
            screen = session.reader.current
            if screen is None:
                return None
            if getattr(self._tools.get(step.tool), "opens_app", False) or (step.wait or {}).get("expect_app"):
                baseline["package"] = screen.foreground_package
                baseline["dialog"] = screen.has_dialog
                return None
            if screen.has_dialog and not baseline["dialog"]:
                return "dialog"
            if screen.foreground_package != baseline["package"]:
                kinds = {w.package: w.kind for w in screen.windows}
                return "foreign_window" if kinds.get(screen.foreground_package) not in ("app", None) else "app_changed"
            return None

        runner = BatchRunner(run_step, steer_signal=ctx.inbox.steer_signal, wait=wait, interrupted=interrupted)
        result = await runner.run(steps)
        waited = sum(r.wait_ms for r in result.steps)
        code = (
            "done"
            if result.stopped is None
            else (
                "skipped_for_new_message"
                if result.stopped == "skipped_for_new_message"
                else f"stopped_{result.stopped}"
            )
        )
        ok = result.completed or result.stopped == "skipped_for_new_message"
        last = result.steps[-1] if result.steps else None
        return ToolOutcome(
            text=summary(result),
            ok=ok,
            code=code,
            wait_ms=waited,
            data={
                "steps": [r.as_dict() for r in result.steps],
                "stopped": result.stopped,
                "stopped_at": last.index if last and result.stopped else None,
                "skipped": list(result.skipped),
            },
        )
