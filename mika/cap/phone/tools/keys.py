"""Keys: phone_back and phone_press_key."""

from __future__ import annotations

from typing import Any

from mika.cap.phone.tools.base import ACTIVATING_KEYS, PhoneTool, focus_target_now
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
        # Enter, DPAD_CENTER, Space press what has the focus: the check sees that element
        # (a focused Pay button is a payment step) and the screen.
        key = str(args.get("key", "")).upper().removeprefix("KEYCODE_")
        if key not in ACTIVATING_KEYS:
            return None
        return await focus_target_now(self.session(ctx), "key")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        key = str(args["key"]).upper().removeprefix("KEYCODE_")
        if key not in KEYS:
            raise BadArguments(f"phone_press_key: key must be one of {KEYS}")
        session = self.session(ctx)
        await session.port.key(session.display, key)
        return ToolOutcome(text=f"Pressed {key}.")
