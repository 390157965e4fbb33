"""request_confirmation: ask the user's consent for one payment step, or for one change
of a risky setting.

Only offered while asking (not autonomous) and a person is present. A payment step needs
the amount exactly as shown on the screen; without one it is refused and the user is never
asked. A setting change needs none: the person is asked about the setting the gate held
back (mika.action.input_gate). A consent releases only the next matching action
(ConfirmationGate).
"""

from __future__ import annotations

import secrets
from typing import Any

from mika.action.amounts import amounts_in
from mika.action.approval import ApprovalPolicy
from mika.action.approval_summary import ScreenSummary, compare
from mika.action.confirmation import Consent, setting_consent
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
            "amount": {
                "type": "string",
                "description": "The amount due exactly as shown, with its currency, e.g. ¥23.50 "
                "(none for a setting change).",
            },
            "app": {"type": "string", "description": "Package of the app where the step happens."},
        },
        "required": ["what"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        policy = ctx.service(ApprovalPolicy)
        if policy is None or policy.gate is None or not policy.can_ask:
            return ToolOutcome.error("approval_unavailable", "Nobody can approve payments in this run.")
        held = policy.seen
        if held is not None and held.kind == "setting":
            return await self._ask_setting(policy, held, ctx)
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
        # The person sees what the screen showed at the held-back payment step, not the
        # model's words; where they differ, the request says so.
        seen = held or ScreenSummary()
        summary = compare(seen, what=str(args["what"]), amount=amount, app=app)
        ctx.inbox.expect(qid)
        ctx.emit(
            ConfirmationAsked(
                run_id=ctx.run_id,
                conversation_id=ctx.spec.conversation_id,
                step=ctx.step,
                question_id=qid,
                what=args["what"],
                amount=amount,
                app=app,
                screen_item=seen.item,
                screen_amount=seen.amount,
                screen_app=seen.app,
                screen_button=seen.button,
                mismatch=summary.mismatches,
            )
        )
        reply = await ctx.inbox.wait_reply(qid)
        policy.seen = None  # asked once; the next held-back step brings its own screen
        decision = "allowed" if reply.allowed else "refused"
        # A consent is for what the person saw: the screen's amount, item and app.
        granted_amount, granted_what, granted_app = seen.amount or amount, seen.item or args["what"], seen.app or app
        ctx.emit(
            ApprovalEvent(
                run_id=ctx.run_id,
                conversation_id=ctx.spec.conversation_id,
                step=ctx.step,
                decision=decision,
                tool=self.name,
                app=granted_app,
                amount=granted_amount,
                what=args["what"],
                reason="payment",
                item=seen.item,
                button=seen.button,
            )
        )
        if not reply.allowed:
            return ToolOutcome(text="The user did not allow this payment step. Do not do it.", ok=False, code="refused")
        # A held-back step whose screen showed no amount (a menu's Checkout): the person was
        # told so; the consent then names that button instead of an amount on the screen.
        no_amount = held is not None and not held.amount and bool(held.button)
        policy.gate.grant(
            Consent(
                app=granted_app,
                kind="",
                amount=granted_amount,
                what=granted_what,
                step=ctx.step,
                amount_on_screen=not no_amount,
                button=held.button if no_amount and held is not None else "",
            )
        )
        return ToolOutcome(
            text=f"The user allowed this once: {granted_what} for {granted_amount}. Do that one step now; the consent "
            "covers only the next matching action.",
            code="allowed",
        )

    async def _ask_setting(self, policy: ApprovalPolicy, held: ScreenSummary, ctx: ToolContext) -> ToolOutcome:
        """The held-back step changes a risky setting: the person is asked about that
        setting (what the port read from the command, not the model's words); no amount."""
        assert policy.gate is not None
        qid = "c-" + secrets.token_hex(4)
        ctx.inbox.expect(qid)
        ctx.emit(
            ConfirmationAsked(
                run_id=ctx.run_id,
                conversation_id=ctx.spec.conversation_id,
                step=ctx.step,
                question_id=qid,
                what=held.item,
                amount="",
                app=held.app,
                screen_item=held.item,
                screen_app=held.app,
                screen_button=held.button,
                kind="setting",
            )
        )
        reply = await ctx.inbox.wait_reply(qid)
        policy.seen = None
        ctx.emit(
            ApprovalEvent(
                run_id=ctx.run_id,
                conversation_id=ctx.spec.conversation_id,
                step=ctx.step,
                decision="allowed" if reply.allowed else "refused",
                tool=self.name,
                app=held.app,
                amount="",
                what=held.item,
                reason="setting",
                item=held.item,
                button=held.button,
            )
        )
        if not reply.allowed:
            return ToolOutcome(
                text="The user did not allow this setting change. Do not make it.", ok=False, code="refused"
            )
        policy.gate.grant(setting_consent(held.button, held.item, ctx.step))
        return ToolOutcome(
            text=f"The user allowed this setting change once: {held.item}. Make that one change now; the consent "
            "covers only the next change of this setting.",
            code="allowed",
        )
