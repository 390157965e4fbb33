"""ask_user: put a question to the user and wait for the answer."""

from __future__ import annotations

import secrets
from typing import Any

from mika.observe.observation import Observation, ObsKind, Trust
from mika.record.events import QuestionAsked, TakeoverEvent
from mika.runtypes.inbox import InputKind
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, Risk, ToolOutcome


class AskUser(AgentTool):
    name = "ask_user"
    capability = "general"
    risk = Risk.READ
    needs_user = True
    control = True
    parameters = {
        "type": "object",
        "properties": {
            "question": {"type": "string", "description": "The question, in the user's language."},
            "options": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Up to 6 short answers the user can pick; they may also type their own.",
            },
        },
        "required": ["question"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        qid = "q-" + secrets.token_hex(4)
        options = tuple(str(o) for o in (args.get("options") or [])[:6])
        ctx.inbox.expect(qid)
        ctx.emit(
            QuestionAsked(
                run_id=ctx.run_id,
                conversation_id=ctx.spec.conversation_id,
                step=ctx.step,
                question_id=qid,
                question=args["question"],
                options=options,
            )
        )
        reply = await ctx.inbox.wait_reply(qid)
        answer = reply.text.strip()
        obs = Observation.build(ObsKind.USER_SAID, "user", answer, trust=Trust.TRUSTED, title="answer", step=ctx.step)
        return ToolOutcome(text=f"The user answered: {answer}", observations=(obs,), data={"answer": answer})


TAKEOVER_REASONS = ["login", "captcha", "payment", "other"]


class HandToUser(AgentTool):
    name = "hand_to_user"
    capability = "general"
    group = "screens"
    risk = Risk.READ
    needs_user = True
    control = True
    parameters = {
        "type": "object",
        "properties": {
            "reason": {"type": "string", "enum": TAKEOVER_REASONS},
            "message": {"type": "string", "description": "What the user should do, in their language."},
        },
        "required": ["reason", "message"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        qid = "h-" + secrets.token_hex(4)
        base = {
            "run_id": ctx.run_id,
            "conversation_id": ctx.spec.conversation_id,
            "step": ctx.step,
            "question_id": qid,
            "reason": args["reason"],
            "message": args["message"],
        }
        ctx.inbox.expect(qid)
        ctx.emit(TakeoverEvent(state="asked", **base))
        reply = await ctx.inbox.wait_reply(qid)
        done = reply.kind is InputKind.HAND_BACK and reply.done
        ctx.emit(TakeoverEvent(state="done" if done else "skipped", **base))
        if done:
            return ToolOutcome(
                text="The user says they are done. The screen may have changed: read it again before going on.",
                code="handed_back",
                data={"done": True},
            )
        return ToolOutcome(
            text="The user skipped this. Do not try it yourself; go on with what you can, or end and say what is left.",
            ok=False,
            code="takeover_skipped",
            data={"done": False},
        )
