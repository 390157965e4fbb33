"""getprop, wm size / wm density, settings get|put|delete|list."""

from __future__ import annotations

from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command
from mika.sim.world import rotation


@command("getprop")
async def getprop(ctx: Ctx) -> int:
    props = ctx.phone.world.props
    if len(ctx.args) == 1:
        for key in sorted(props):
            ctx.print(f"[{key}]: [{props[key]}]\n")
        return 0
    default = ctx.args[2] if len(ctx.args) > 2 else ""
    ctx.print(props.get(ctx.args[1], default) + "\n")
    return 0


def _user_rotation(ctx: Ctx, args: list[str]) -> int:
    """`wm user-rotation [free|lock [ROTATION]]` (Android 12+): what auto-rotate and the
    locked rotation are, or set them; the rotation itself is mika/sim/world/rotation.py's."""
    world = ctx.phone.world
    system = world.extra_settings["system"]
    if not args:
        locked = system.get("accelerometer_rotation", "0") == "0"
        ctx.print(f"lock {system.get('user_rotation', '0')}\n" if locked else "free\n")
        return 0
    if args[0] == "free":
        rotation.thaw(world)
        return 0
    if args[0] == "lock" and (len(args) == 1 or args[1] in ("0", "1", "2", "3")):
        rotation.freeze(world, int(args[1]) if len(args) > 1 else None)
        return 0
    ctx.error(f"Error: Unknown rotation mode: {args[0]}" if args[0] != "lock" else f"Error: bad rotation {args[1]}")
    return 255


@command("wm")
async def wm(ctx: Ctx) -> int:
    args = ctx.args[1:]
    if not args:
        ctx.print(
            "Window manager (window) commands:\n  help\n  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n  density [reset|DENSITY] [-d DISPLAY_ID]\n"
        )
        return 0
    sub, rest = args[0], args[1:]
    if sub == "user-rotation":
        return _user_rotation(ctx, rest)
    display_id = 0
    if "-d" in rest:
        i = rest.index("-d")
        if i + 1 >= len(rest) or not rest[i + 1].isdigit():
            ctx.error("Error: -d needs a display id")
            return 255
        display_id = int(rest[i + 1])
        rest = rest[:i] + rest[i + 2 :]
    display = ctx.phone.world.displays.get(display_id)
    if display is None:
        ctx.error(f"Error: Unable to get display {display_id}")
        return 255
    if sub == "size":
        if rest and rest[0] == "reset":
            display.override_size = None
            ctx.phone.world.changed()
        elif rest:
            w, _, h = rest[0].partition("x")
            if not (w.isdigit() and h.isdigit()):
                ctx.error(f"Error: bad size {rest[0]}")
                return 255
            display.override_size = (int(w), int(h))
            ctx.phone.world.changed()
        else:
            ctx.print(f"Physical size: {display.width}x{display.height}\n")
            if display.override_size:
                ow, oh = display.override_size
                ctx.print(f"Override size: {ow}x{oh}\n")
        return 0
    if sub == "density":
        if rest and rest[0] == "reset":
            display.override_density = None
        elif rest:
            if not rest[0].isdigit():
                ctx.error(f"Error: bad density {rest[0]}")
                return 255
            display.override_density = int(rest[0])
            ctx.phone.world.changed()
        else:
            ctx.print(f"Physical density: {display.density}\n")
            if display.override_density:
                ctx.print(f"Override density: {display.override_density}\n")
        return 0
    ctx.error(f"Error: unknown command '{sub}'")
    return 255


_NAMESPACES = ("system", "secure", "global")


@command("settings")
async def settings(ctx: Ctx) -> int:
    args = ctx.args[1:]
    if args[:1] == ["--user"] and len(args) >= 2:
        args = args[2:]
    if len(args) < 2 or args[0] not in ("get", "put", "delete", "list"):
        ctx.print(
            "Settings provider (settings) commands:\n"
            "  get [--user <USER_ID> | current] NAMESPACE KEY\n"
            "  put [--user <USER_ID> | current] NAMESPACE KEY VALUE\n"
            "  delete [--user <USER_ID> | current] NAMESPACE KEY\n"
            "  list [--user <USER_ID> | current] NAMESPACE\n"
        )
        return 0 if not args else 1
    verb, namespace, rest = args[0], args[1], args[2:]
    if rest[:1] == ["--user"]:
        rest = rest[2:]
    if namespace not in _NAMESPACES:
        ctx.error(f"Invalid namespace '{namespace}'")
        return 1
    world = ctx.phone.world
    table = world.settings_table(namespace)
    if verb == "list":
        for key in sorted(table):
            ctx.print(f"{key}={table[key]}\n")
        return 0
    if not rest:
        ctx.error("Bad arguments")
        return 1
    key = rest[0]
    if verb == "get":
        ctx.print(f"{table.get(key, 'null')}\n")
    elif verb == "put":
        if len(rest) < 2:
            ctx.error("Bad arguments")
            return 1
        world.put_setting(namespace, key, rest[1])
    else:
        existed = world.delete_setting(namespace, key)
        ctx.print(f"Deleted {1 if existed else 0} rows\n")
    return 0


def _content_uri_namespace(uri: str) -> str | None:
    prefix = "content://settings/"
    if uri.startswith(prefix) and uri[len(prefix) :].rstrip("/") in _NAMESPACES:
        return uri[len(prefix) :].rstrip("/")
    return None


@command("content")
async def content(ctx: Ctx) -> int:
    """`content insert|query|delete --uri content://settings/NS …`: the settings provider
    reached as a content provider (clients set user_rotation this way). Only the settings
    provider exists here; any other URI is unknown, as for a provider not installed."""
    args = ctx.args[1:]
    if not args or args[0] not in ("insert", "query", "delete", "update"):
        ctx.print("usage: adb shell content [subcommand] [options]\n")
        return 0 if not args else 1
    verb = args[0]
    uri = ""
    binds: dict[str, str] = {}
    where = ""
    i = 1
    while i < len(args):
        a, value = args[i], args[i + 1] if i + 1 < len(args) else ""
        if a == "--uri":
            uri = value
        elif a == "--bind":
            # NAME:TYPE:VALUE, TYPE one of b s i l f d n (ContentCommand's binds).
            name, _, rest = value.partition(":")
            _, _, raw = rest.partition(":")
            binds[name] = raw
        elif a == "--where":
            where = value
        i += 2
    namespace = _content_uri_namespace(uri)
    if namespace is None:
        ctx.error(f"[ERROR] Unsupported argument: {uri}" if not uri else f"Error while accessing provider:{uri}")
        return 1
    world = ctx.phone.world
    key = binds.get("name", "")
    if not key and where.startswith("name="):
        key = where[5:].strip("'\"")
    if verb in ("insert", "update"):
        if not key or "value" not in binds:
            ctx.error("[ERROR] Bindings are required")
            return 1
        world.put_setting(namespace, key, binds["value"])
        return 0
    if verb == "delete":
        world.delete_setting(namespace, key)
        return 0
    table = world.settings_table(namespace)
    rows = [(key, table[key])] if key else sorted(table.items())
    if key and key not in table:
        rows = []
    if not rows:
        ctx.print("No result found.\n")
    for n, (name, value) in enumerate(rows):
        ctx.print(f"Row: {n} name={name}, value={value}\n")
    return 0
