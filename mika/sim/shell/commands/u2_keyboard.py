"""The AdbKeyboard that uiautomator2's helper APK (com.github.uiautomator) brings, as far
as the broadcasts go that uiautomator2's InputMethodMixIn sends it.

Like com.android.adbkeyboard (am.py), it is an input method whose code the sim can't run:
what it does with each broadcast is written here. Its receiver only exists while it is
the current input method, so otherwise a broadcast finds nobody (result 0) and
uiautomator2 falls back to set_text; when it is, it answers RESULT_OK (-1), which is what
uiautomator2 waits for. The APK must have been installed (mika/sim/shell/commands/install.py)
for `ime set` to pick it.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from mika.sim.apps import engine
from mika.sim.world.world import World

IME_ID = "com.github.uiautomator/.AdbKeyboard"
RESULT_OK = -1


def receive(world: World, action: str | None, extras: dict[str, Any]) -> int | None:
    """The broadcast's result code when the keyboard took it, else None."""
    if world.ime_id != IME_ID or not (action or "").startswith("ADB_KEYBOARD_"):
        return None
    display = world.focused_display
    top = world.top_activity(display)
    if action == "ADB_KEYBOARD_INPUT_TEXT":
        try:
            text = base64.b64decode(str(extras.get("text", "")), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
        engine.type_text(world, display, text)
    elif action == "ADB_KEYBOARD_CLEAR_TEXT":
        if top is not None and top.focus:
            top.fields[top.focus] = ""
            world.changed()
    elif action == "ADB_KEYBOARD_HIDE":
        world.ime_visible = False
        world.changed()
    elif action in ("ADB_KEYBOARD_EDITOR_CODE", "ADB_KEYBOARD_SMART_ENTER"):
        # An editor action (search, go, send, done…) is what the field's Enter does here.
        engine.key(world, display, "ENTER")
    else:
        return None
    return RESULT_OK
