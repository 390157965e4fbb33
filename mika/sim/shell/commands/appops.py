"""`appops get|set PACKAGE OP [MODE]` with each package's modes kept in the world.

Formats as Android 10–14 print them: `get` of an op that was never set (or was set back
to `default`) prints "No operations."; a set one prints "PLAY_AUDIO: ignore". `set`
prints nothing. An unknown package or op is an error on stderr, exit 255 (the shell
command's -1).
"""

from __future__ import annotations

from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command
from mika.sim.world.packages import is_installed

MODES = ("allow", "ignore", "deny", "default", "foreground")
# The ops the simulated phone knows; enough for what a run touches.
OPS = (
    "PLAY_AUDIO",
    "TAKE_AUDIO_FOCUS",
    "SYSTEM_ALERT_WINDOW",
    "RUN_IN_BACKGROUND",
    "POST_NOTIFICATION",
    "MOCK_LOCATION",  # mobilecli allows it for the shell before it mocks the location
)
PUBLIC_PREFIX = "android:"


def _op_name(op: str) -> str:
    """AppOpsService takes an op by its public name too ("android:mock_location"); for the
    sim's ops that is "android:" and the debug name in lower case."""
    if op.startswith(PUBLIC_PREFIX) and op[len(PUBLIC_PREFIX) :].islower():
        return op[len(PUBLIC_PREFIX) :].upper()
    return op


USAGE = (
    "AppOps service (appops) commands:\n"
    "  set [--user <USER_ID>] <PACKAGE | UID> <OP> <MODE>\n"
    "  get [--user <USER_ID>] <PACKAGE | UID> [<OP>]\n"
)


def _known_package(ctx: Ctx, package: str) -> bool:
    return is_installed(ctx.phone.world, package)


@command("appops")
async def appops(ctx: Ctx) -> int:
    args = list(ctx.args[1:])
    if "--user" in args:  # only user 0 exists here
        i = args.index("--user")
        del args[i : i + 2]
    if not args or args[0] not in ("get", "set"):
        ctx.print(USAGE)
        return 0 if not args else 255
    sub, rest = args[0], args[1:]
    if not rest:
        ctx.error("Error: No UID or package specified")
        return 255
    package = rest[0]
    if not _known_package(ctx, package):
        ctx.error(f"Error: No UID for {package} in user 0")
        return 255
    op = _op_name(rest[1]) if len(rest) > 1 else None
    if op is not None and op not in OPS:
        ctx.error(f"Error: Unknown operation string: {rest[1]}")
        return 255
    world = ctx.phone.world
    if sub == "set":
        if op is None or len(rest) < 3:
            ctx.error("Error: Mode not specified")
            return 255
        mode = rest[2]
        if mode not in MODES:
            ctx.error(f"Error: Mode {mode} is not valid")
            return 255
        world.set_appop(package, op, mode)
        return 0
    ops = world.appops.get(package, {})
    shown = [(name, ops[name][0]) for name in OPS if name in ops and (op is None or name == op)]
    if not shown:
        ctx.print("No operations.\n")
        return 0
    for name, mode in shown:
        ctx.print(f"{name}: {mode}\n")
    return 0
