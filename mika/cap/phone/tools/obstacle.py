"""handle_obstacle: clear splash ads, update prompts, rating requests and permission
prompts by their one safe button, and nothing else (recognition: `mika.cap.phone.obstacles`)."""

from __future__ import annotations

from typing import Any

from mika.cap.phone.fenced import screen_observation
from mika.cap.phone.obstacles import ALLOW_WHILE_USING, DENY, Obstacle, recognise, still_safe
from mika.cap.phone.tools.base import PhoneTool, current_screen, screen_text
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import Screen

MAX_OBSTACLES = 5  # a splash, an update, a rating and a permission come one after another
COUNTDOWN_S = 6.0  # the longest a skip button's countdown is waited for
POLL_S = 0.3
SETTLE_S = 2.0  # after a press, how long the next screen may take to show something else


def _permission(args: dict[str, Any]) -> str:
    value = args.get("permission") or DENY
    if value not in (DENY, ALLOW_WHILE_USING):
        raise BadArguments(
            f"handle_obstacle: permission must be {DENY!r} (default) or {ALLOW_WHILE_USING!r} "
            f"(only when the task needs that permission), got {value!r}."
        )
    return str(value)


class HandleObstacle(PhoneTool):
    name = "handle_obstacle"
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "permission": {
                "type": "string",
                "enum": [DENY, ALLOW_WHILE_USING],
                "description": "For a permission prompt: deny (default), or allow_while_using when the task needs it.",
            }
        },
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget | None:
        # For pacing only: each press is judged by the gated port as it is sent.
        screen = await current_screen(self.session(ctx))
        found = recognise(screen, _permission(args))
        if found.safe is None:
            return None
        return ActionTarget(
            label=found.safe.label, app=screen.foreground_package, kind="tap", screen_text=screen_text(screen)
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        permission = _permission(args)
        session = self.session(ctx)
        screen = await session.reader.read()
        done: list[str] = []
        waited_ms = 0
        last: Obstacle | None = None
        for _ in range(MAX_OBSTACLES):
            found = recognise(screen, permission)
            last = found
            if found.waiting:
                screen, found, ms = await self._countdown(ctx, screen, found, permission)
                waited_ms += ms
                last = found
            if found.safe is None or found.waiting or not still_safe(found, screen_text(screen)):
                break
            x, y = found.safe.centre
            await session.port.tap(session.display, x, y)
            done.append(f"{found.kind}: pressed {found.safe.label!r}")
            before = screen.content_key()
            screen = await self._next(ctx, before)
            if screen.content_key() == before:
                done[-1] += " (nothing changed after it; not pressed again)"
                last = None
                break
        session.reader.mark_shown(screen)
        return self._outcome(ctx, screen, done, last, waited_ms)

    async def _countdown(
        self, ctx: ToolContext, screen: Screen, found: Obstacle, permission: str
    ) -> tuple[Screen, Obstacle, int]:
        """Reads until the skip button can be pressed, for at most COUNTDOWN_S."""
        start = ctx.clock()
        while found.waiting and ctx.clock() - start < COUNTDOWN_S:
            await ctx.sleep(POLL_S)
            screen = await self.session(ctx).reader.read()
            found = recognise(screen, permission)
        return screen, found, int((ctx.clock() - start) * 1000)

    async def _next(self, ctx: ToolContext, before: str) -> Screen:
        """The screen after a press, once it shows something else (or SETTLE_S passed)."""
        start = ctx.clock()
        screen = await self.session(ctx).reader.read()
        while screen.content_key() == before and ctx.clock() - start < SETTLE_S:
            await ctx.sleep(POLL_S)
            screen = await self.session(ctx).reader.read()
        return screen

    def _outcome(
        self, ctx: ToolContext, screen: Screen, done: list[str], last: Obstacle | None, waited_ms: int
    ) -> ToolOutcome:
        left = ""
        if last is not None and last.recognised and (last.safe is None or last.waiting):
            why = "its skip button did not become tappable within 6 s" if last.waiting else last.why
            left = f"Left alone: {last.seen}, because {why}."
        elif last is not None and not last.recognised and last.dialog is not None:
            left = f"Left alone: {last.seen}, because {last.why}."
        lines = [f"- {d}" for d in done]
        if left:
            lines.append(left)
        data = {"dismissed": done, "left": left, "waited_ms": waited_ms}
        if not done:
            head = (
                "Nothing was pressed."
                if left
                else "No splash ad, update, rating or permission prompt is in front; nothing was pressed."
            )
            obs = screen_observation(screen, ctx.step, "\n".join(lines) or "-", head=head)
            return ToolOutcome(
                text=obs.text, ok=False, code="not_handled" if left else "no_obstacle", observations=(obs,), data=data
            )
        obs = screen_observation(
            screen,
            ctx.step,
            "\n".join(lines),
            head=f"Cleared {len(done)} obstacle(s); now on {screen.foreground_package}:",
        )
        return ToolOutcome(text=obs.text, observations=(obs,), data=data, wait_ms=waited_ms)
