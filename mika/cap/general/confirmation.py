"""request_confirmation: ask the user's consent for one payment step.

Only offered while asking (not autonomous) and a person is present. It needs the amount
exactly as shown on the screen; without one it is refused and the user is never asked.
A consent releases only the next matching action (ConfirmationGate).
"""

from __future__ import annotations

import secrets
from typing import Any

from mika.action.approval import ApprovalPolicy
from mika.action.confirmation import Consent
from mika.action.risk import amounts_in
from mika.record.events import ApprovalEvent, ConfirmationAsked
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, Risk, ToolOutcome


class RequestConfirmation(AgentTool):
    name = "request_confirmation"
    capability = "general"
    risk = Risk.READ
    needs_user = True
    control = True
    parameters = {
        "type": "object",
        "properties": {
            "what": {"type": "string", "description": "What is being bought, as the screen names it."},
            "amount": {"type": "string", "description": "The amount due exactly as shown, with its currency, e.g. ¥23.50."},
            "app": {"type": "string", "description": "Package of the app where the step happens."},
        },
        "required": ["what", "amount"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        policy: ApprovalPolicy | None = ctx.services.get("approval")
        if policy is None or policy.gate is None or not policy.can_ask:
            return ToolOutcome.error("approval_unavailable", "Nobody can approve payments in this run.")
        amounts = amounts_in(str(args.get("amount", "")))
        if not amounts:
            return ToolOutcome.error(
                "amount_required",
                "request_confirmation needs the amount due exactly as shown on the screen, with its currency "
                "(for example ¥23.50). The user was not asked.",
            )
        amount = amounts[0]
        qid = "c-" + secrets.token_hex(4)
        app = str(args.get("app", ""))
        ctx.inbox.expect(qid)
        ctx.emit(ConfirmationAsked(run_id=ctx.run_id, conversation_id=ctx.spec.conversation_id, step=ctx.step,
                                   question_id=qid, what=args["what"], amount=amount, app=app))
        reply = await ctx.inbox.wait_reply(qid)
        decision = "allowed" if reply.allowed else "refused"
        ctx.emit(ApprovalEvent(run_id=ctx.run_id, conversation_id=ctx.spec.conversation_id, step=ctx.step,
                               decision=decision, tool=self.name, app=app, amount=amount, what=args["what"],
                               reason="payment"))
        if not reply.allowed:
            return ToolOutcome(text="The user did not allow this payment step. Do not do it.", ok=False, code="refused")
        policy.gate.grant(Consent(app=app, kind="", amount=amount, what=args["what"], step=ctx.step))
        return ToolOutcome(
            text=f"The user allowed this once: {args['what']} for {amount}. Do that one step now; the consent covers "
                 "only the next matching action.",
            code="allowed",
        )
