"""`input`: tap, swipe, text, keyevent, draganddrop, motionevent — on a display (-d)."""

from __future__ import annotations

from mika.sim.apps import engine
from mika.sim.keycodes import key_char, key_name
from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command
from mika.sim.world.props import sdk_int

_SOURCES = {
    "keyboard",
    "mouse",
    "joystick",
    "touchnavigation",
    "touchpad",
    "trackball",
    "stylus",
    "dpad",
    "gesture",
    "touchscreen",
    "gamepad",
    "rotaryencoder",
}

USAGE = """Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are:
      dpad
      keyboard
      mouse
      touchpad
      gamepad
      touchnavigation
      joystick
      touchscreen
      stylus
      trackball

-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard)
"""


# Android 9's `input` (cmds/input Input.java): no -d, no motionevent/keycombination; any
# bad or unknown command prints this error and the usage to stderr and still exits 0.
OLD_SDK = 29
OLD_USAGE = """Usage: input [<source>] <command> [<arg>...]

The sources are:
      mouse
      keyboard
      joystick
      touchnavigation
      touchpad
      trackball
      stylus
      dpad
      gesture
      touchscreen
      gamepad

The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
"""
_OLD_COMMANDS = {"text", "keyevent", "tap", "swipe", "draganddrop", "press", "roll"}


def _old_refuses(ctx: Ctx, args: list[str]) -> bool:
    """True when Android 9 would not run this: it wrote the error and usage already."""
    command = args[0] if args else ""
    if command in _OLD_COMMANDS:
        return False
    if command:
        ctx.error(f"Error: Invalid arguments for command: {command}")
    ctx.error(OLD_USAGE.rstrip("\n"))
    return True


def _nums(ctx: Ctx, args: list[str], n: int) -> list[int] | None:
    if len(args) < n:
        ctx.print(USAGE)
        return None
    try:
        return [int(float(a)) for a in args[:n]]
    except ValueError:
        ctx.error(f"Error: Invalid arguments for command: {ctx.extra.get('sub')}")
        ctx.print(USAGE)
        return None


@command("input")
async def input_(ctx: Ctx) -> int:
    args = ctx.args[1:]
    world = ctx.phone.world
    if args and args[0] in _SOURCES:
        args = args[1:]
    if sdk_int(world.props) < OLD_SDK and _old_refuses(ctx, args):
        return 0
    display_id = 0
    if len(args) >= 2 and args[0] == "-d":
        if not args[1].lstrip("-").isdigit():
            ctx.print(USAGE)
            return 1
        display_id = max(0, int(args[1]))
        args = args[2:]
        if display_id not in world.displays:
            ctx.error(f"Error: Invalid display id: {display_id}")
            return 1
    if not args:
        ctx.print(USAGE)
        return 1
    sub, rest = args[0], args[1:]
    ctx.extra["sub"] = sub
    if sub == "tap":
        xy = _nums(ctx, rest, 2)
        if xy is None:
            return 1
        engine.tap(world, display_id, *xy)
    elif sub in ("swipe", "draganddrop"):
        nums = _nums(ctx, rest, 4)
        if nums is None:
            return 1
        duration = int(rest[4]) if len(rest) > 4 and rest[4].isdigit() else 300
        engine.swipe(world, display_id, nums[0], nums[1], nums[2], nums[3], duration)
    elif sub == "text":
        if not rest:
            ctx.print(USAGE)
            return 1
        # Real `input text` types only its first argument (quote a phrase), turns %s into
        # spaces, and can't type what no key makes.
        text = rest[0].replace("%s", " ")
        if any(not 32 <= ord(ch) < 127 for ch in text):
            # What a real phone says: its key map has no key for CJK or emoji.
            ctx.error(
                "Exception occurred while executing 'text':\n"
                "java.lang.NullPointerException: Attempt to get length of null array\n"
                "\tat com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:408)\n"
                "\tat com.android.server.input.InputShellCommand.runText(InputShellCommand.java:389)"
            )
            return 255
        engine.type_text(world, display_id, text)
    elif sub == "keyevent":
        codes = [a for a in rest if not a.startswith("--")]
        if not codes:
            ctx.print(USAGE)
            return 1
        for code in codes:
            name = key_name(code)
            if name is None:
                ctx.error(f"Error: Unknown keycode: {code}")
                return 1
            ch = key_char(name)
            if ch is not None:
                engine.type_text(world, display_id, ch)
            else:
                engine.key(world, display_id, name)
    elif sub == "motionevent":
        if len(rest) < 3 or rest[0].upper() not in ("DOWN", "UP", "MOVE", "CANCEL"):
            ctx.print(USAGE)
            return 1
        nums = _nums(ctx, rest[1:], 2)
        if nums is None:
            return 1
        _motion(ctx, display_id, rest[0].upper(), *nums)
    elif sub in ("press", "roll", "keycombination"):
        pass
    else:
        ctx.error(f"Error: Unknown command: {sub}")
        ctx.print(USAGE)
        return 1
    return 0


def _motion(ctx: Ctx, display_id: int, action: str, x: int, y: int) -> None:
    """DOWN … UP becomes a tap, a long press or a swipe by where and when it ended."""
    world = ctx.phone.world
    state = world.touches
    key = f"input:{display_id}"
    now = world.clock.now()
    if action == "DOWN":
        state[key] = (x, y, now)
    elif action == "UP" and key in state:
        x0, y0, t0 = state.pop(key)
        engine.swipe(world, display_id, x0, y0, x, y, int((now - t0) * 1000))
    elif action == "CANCEL":
        state.pop(key, None)
