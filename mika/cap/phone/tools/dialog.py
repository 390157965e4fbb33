"""phone_dialog: read the dialog in front; press one of its buttons only by its exact text."""

from __future__ import annotations

from typing import Any

from mika.cap.phone.fenced import screen_observation
from mika.cap.phone.obstacles import ButtonChoiceError, Dialog, match_button, press_label, read_dialog
from mika.cap.phone.tools.base import PhoneTool, current_screen, screen_text
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import Screen


def describe(dialog: Dialog) -> str:
    lines = [f"window {dialog.window} · {dialog.package}", f"title: {dialog.title!r}"]
    if dialog.message and dialog.message != dialog.title:
        lines.append(f"message: {dialog.message!r}")
    lines.append("buttons: " + ", ".join(f"{b.label!r} (element {b.number})" for b in dialog.buttons))
    return "\n".join(lines)


def _press(args: dict[str, Any]) -> str | None:
    value = args.get("press")
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadArguments('phone_dialog: press must be the text of a button, e.g. "Later".')
    return value


class PhoneDialog(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_dialog"
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "press": {
                "type": "string",
                "description": "Optional: the exact text of the button to press. Without it the dialog is only read.",
            }
        },
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget | None:
        # For pacing only: the press itself is judged by the gated port on the dialog as it
        # is when the tap is sent (its button with the dialog's question: "OK" on "Confirm
        # payment ¥99" is the payment), so a dialog swapped after any earlier look is
        # judged as what it now is.
        wanted = _press(args)
        if wanted is None:
            return None
        screen = await current_screen(self.session(ctx))
        dialog = read_dialog(screen)
        if dialog is None:
            return None
        try:
            button = match_button(dialog, wanted)
        except ButtonChoiceError:
            return None  # nothing will be pressed; run() says why
        return ActionTarget(
            label=press_label(dialog, button),
            app=dialog.package or screen.foreground_package,
            kind="tap",
            screen_text=" | ".join(t for t in (dialog.all_text, screen_text(screen)) if t),
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        wanted = _press(args)
        session = self.session(ctx)
        # Always a fresh look: the press must land on the dialog the check saw, not an older read.
        screen = await session.reader.read()
        session.reader.mark_shown(screen)
        dialog = read_dialog(screen)
        if dialog is None:
            return self._none(screen, ctx, wanted)
        if wanted is None:
            obs = screen_observation(
                screen, ctx.step, describe(dialog), head=f"The dialog in front (screen v{screen.version}):"
            )
            return ToolOutcome(text=obs.text, observations=(obs,), data={"dialog": _data(dialog)})
        try:
            button = match_button(dialog, wanted)
        except ButtonChoiceError as exc:
            obs = screen_observation(screen, ctx.step, describe(dialog), head=str(exc))
            return ToolOutcome(
                text=obs.text, ok=False, code=exc.code, observations=(obs,), data={"dialog": _data(dialog)}
            )
        x, y = button.centre
        await session.port.tap(session.display, x, y)
        obs = screen_observation(screen, ctx.step, repr(button.label), head="Pressed the dialog's button:")
        return ToolOutcome(text=obs.text, observations=(obs,), data={"point": [x, y], "dialog": _data(dialog)})

    def _none(self, screen: Screen, ctx: ToolContext, wanted: str | None) -> ToolOutcome:
        text = f"No dialog is in front on screen v{screen.version} ({screen.foreground_package})."
        if wanted is not None:
            return ToolOutcome(text=text + " Nothing was pressed.", ok=False, code="no_dialog", data={"dialog": None})
        return ToolOutcome(text=text, data={"dialog": None})


def _data(dialog: Dialog) -> dict[str, Any]:
    return {
        "package": dialog.package,
        "window": dialog.window,
        "title": dialog.title,
        "message": dialog.message,
        "buttons": [{"text": b.label, "element": b.number, "id": b.node.resource_id} for b in dialog.buttons],
    }
