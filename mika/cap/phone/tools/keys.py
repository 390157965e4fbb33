"""Keys: phone_back and phone_press_key."""

from __future__ import annotations

from typing import Any

from mika.cap.phone.tools.base import PhoneTool, target_for
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.tool.errors import BadArguments

KEYS = [
    "HOME",
    "BACK",
    "ENTER",
    "DEL",
    "TAB",
    "SEARCH",
    "MENU",
    "APP_SWITCH",
    "VOLUME_UP",
    "VOLUME_DOWN",
    "DPAD_UP",
    "DPAD_DOWN",
    "DPAD_LEFT",
    "DPAD_RIGHT",
    "DPAD_CENTER",
    "ESCAPE",
    "MOVE_HOME",
    "MOVE_END",
    "PAGE_UP",
    "PAGE_DOWN",
    "SPACE",
]


class PhoneBack(PhoneTool):
    page_capped = True  # stopped by a careful app's screen cap (mika.action.pace)
    name = "phone_back"
    replayable = True  # seed §9: a verified run may record it, by its anchor
    sandbox_callable = True
    batchable = True
    changes_screen = True
    parameters = {"type": "object", "properties": {}}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        await session.port.key(session.display, "BACK")
        return ToolOutcome(text="Pressed Back.")


class PhonePressKey(PhoneTool):
    page_capped = True  # stopped by a careful app's screen cap (mika.action.pace)
    name = "phone_press_key"
    replayable = True  # seed §9: a verified run may record it, by its anchor
    sandbox_callable = True
    sandbox_name = "key"
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {"key": {"type": "string", "enum": KEYS, "description": "Android key name."}},
        "required": ["key"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget | None:
        # For pacing only. What a key presses (Enter on a focused Pay button) is judged by
        # the gated port on the screen as it is when the key is sent.
        return await target_for({}, self.session(ctx), "key")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        key = str(args["key"]).upper().removeprefix("KEYCODE_")
        if key not in KEYS:
            raise BadArguments(f"phone_press_key: key must be one of {KEYS}")
        session = self.session(ctx)
        await session.port.key(session.display, key)
        return ToolOutcome(text=f"Pressed {key}.")
