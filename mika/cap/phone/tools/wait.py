"""phone_wait: wait, in code, until the screen shows what is expected (UntilWait)."""

from __future__ import annotations

from typing import Any

from mika.cap.phone.fenced import listing_observation
from mika.cap.phone.tools.base import PhoneTool
from mika.observe.observation import Observation
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome
from mika.uistate import UntilWait, WaitSpecError

WAIT_PROPERTIES = {
    "expect": {"type": "string", "description": "Text that should appear."},
    "expect_gone": {"type": "string", "description": "Text that should disappear."},
    "expect_app": {"type": "string", "description": "Package that should come to the front."},
    "wait_stable": {"type": "boolean", "description": "Wait until the screen stops changing."},
    "timeout_s": {"type": "number", "description": "Default 8, at most 20."},
}


def until_wait(args: dict[str, Any]) -> UntilWait:
    return UntilWait(
        expect=args.get("expect") or None,
        expect_gone=args.get("expect_gone") or None,
        expect_app=args.get("expect_app") or None,
        wait_stable=bool(args.get("wait_stable")),
        timeout_s=float(args.get("timeout_s") or 8.0),
    )


class PhoneWait(PhoneTool):
    name = "phone_wait"
    sandbox_callable = True
    risk = Risk.READ
    control = True
    yields_to_steer = True
    batchable = True
    parameters = {"type": "object", "properties": dict(WAIT_PROPERTIES)}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            wait = until_wait(args)
        except WaitSpecError as exc:
            return ToolOutcome.error("bad_arguments", str(exc))
        session = self.session(ctx)
        result = await wait.run(session.reader.read, ctx.inbox.steer_signal, sleep=ctx.sleep)
        text = (
            f"Condition met after {result.waited_ms} ms."
            if result.met
            else f"Stopped waiting after {result.waited_ms} ms: {result.stopped}."
        )
        observations: tuple[Observation, ...] = ()
        if result.screen is not None:
            session.reader.mark_shown(result.screen)
            # The screen the wait ended on is read like any other: what the answer quotes
            # from it (a price in search results) is evidence, and a base for deltas.
            obs, shown = listing_observation(result.screen, ctx.step, session.reader)
            text += "\n" + shown
            observations = (obs,)
        return ToolOutcome(
            text=text,
            observations=observations,
            ok=result.met,
            code="done" if result.met else f"wait_{result.stopped}",
            wait_ms=result.waited_ms,
            data={"wait": result.as_dict()},
        )
