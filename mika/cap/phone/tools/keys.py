"""Keys: phone_back and phone_press_key."""

from __future__ import annotations

from typing import Any

from mika.cap.phone.tools.base import PhoneTool
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.tool.errors import BadArguments

KEYS = ["HOME", "BACK", "ENTER", "DEL", "TAB", "SEARCH", "MENU", "APP_SWITCH", "VOLUME_UP", "VOLUME_DOWN",
        "DPAD_UP", "DPAD_DOWN", "DPAD_LEFT", "DPAD_RIGHT", "DPAD_CENTER", "ESCAPE", "MOVE_HOME", "MOVE_END",
        "PAGE_UP", "PAGE_DOWN", "SPACE"]


class PhoneBack(PhoneTool):
    name = "phone_back"
    batchable = True
    replayable = True
    changes_screen = True
    parameters = {"type": "object", "properties": {}}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        await session.port.key(session.display, "BACK")
        return ToolOutcome(text="Pressed Back.")


class PhonePressKey(PhoneTool):
    name = "phone_press_key"
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {"key": {"type": "string", "enum": KEYS, "description": "Android key name."}},
        "required": ["key"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget | None:
        # Enter in a chat field sends: the check sees the focused field and the screen.
        if str(args.get("key", "")).upper() != "ENTER":
            return None
        from mika.cap.phone.tools.base import current_screen, screen_text

        session = self.session(ctx)
        screen = await current_screen(session)
        return ActionTarget(label="", app=screen.foreground_package, kind="key", screen_text=screen_text(screen))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        key = str(args["key"]).upper().removeprefix("KEYCODE_")
        if key not in KEYS:
            raise BadArguments(f"phone_press_key: key must be one of {KEYS}")
        session = self.session(ctx)
        await session.port.key(session.display, key)
        return ToolOutcome(text=f"Pressed {key}.")
