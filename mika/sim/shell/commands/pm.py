"""`pm list packages|path`, `cmd package …`, `ime list|set|enable`; installing and
uninstalling are install.py's."""

from __future__ import annotations

from mika.sim.shell.commands import install
from mika.sim.shell.commands.dumpsys import print_get_displays
from mika.sim.shell.commands.install import apk_path
from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command, lookup
from mika.sim.world.packages import installed_packages

# What `pm list features` names on a plain Android 14 phone (a subset: clients look for
# leanback / television to tell a TV apart, and for touchscreen).
_FEATURES = (
    "android.hardware.bluetooth",
    "android.hardware.camera",
    "android.hardware.faketouch",
    "android.hardware.screen.landscape",
    "android.hardware.screen.portrait",
    "android.hardware.telephony",
    "android.hardware.touchscreen",
    "android.hardware.touchscreen.multitouch",
    "android.hardware.wifi",
    "android.software.app_widgets",
    "android.software.home_screen",
    "android.software.input_methods",
    "android.software.webview",
)


def _packages(ctx: Ctx) -> list[tuple[str, bool]]:
    """(package, is_system)"""
    return installed_packages(ctx.phone.world)


def _users(ctx: Ctx) -> list[dict[str, object]]:
    """The phone's users: the owner, plus a dual-apps space / work profile when the scenario has one."""
    return list(ctx.phone.world.data.get("users") or [{"id": 0, "name": "Owner", "flags": "c13"}])


def _in_user(ctx: Ctx, pkg: str, system: bool, user: int) -> bool:
    # The other user holds the system packages and the apps cloned into it, nothing else.
    if user == 0 or system:
        return True
    return int((ctx.phone.world.data.get("dual_apps") or {}).get(pkg, -1)) == user


async def _pm(ctx: Ctx, args: list[str]) -> int:
    if not args:
        ctx.print(
            "Package manager (package) commands:\n  list packages [-f] [-d] [-e] [-s] [-3] [--user USER_ID] [FILTER]\n  path [--user USER_ID] PACKAGE\n  resolve-activity [--brief] [--user USER_ID] INTENT\n"
        )
        return 0
    sub, rest = args[0], args[1:]
    if sub in install.SUBCOMMANDS:
        return await install.run(ctx, sub, rest)
    if sub == "list" and rest[:1] == ["users"]:
        ctx.print("Users:\n")
        for u in _users(ctx):
            ctx.print(f"\tUserInfo{{{u['id']}:{u['name']}:{u['flags']}}} running\n")
        return 0
    if sub == "list" and rest[:1] == ["features"]:
        for name in _FEATURES:
            ctx.print(f"feature:{name}\n")
        ctx.print("feature:reqGlEsVersion=0x30002\n")
        return 0
    if sub == "list" and rest[:1] == ["packages"]:
        flags: set[str] = set()
        filt = ""
        user = 0
        i = 1
        while i < len(rest):
            a = rest[i]
            if a == "--user":
                raw = rest[i + 1] if i + 1 < len(rest) else ""
                if raw in ("current", "all"):
                    raw = "0"
                if not raw.isdigit() or int(raw) not in {int(str(u["id"])) for u in _users(ctx)}:
                    ctx.error(f"Error: user {raw} doesn't exist")
                    return 255
                user = int(raw)
                i += 2
                continue
            if a.startswith("-"):
                flags.add(a)
            else:
                filt = a
            i += 1
        for pkg, system in _packages(ctx):
            if ("-3" in flags and system) or ("-s" in flags and not system):
                continue
            if filt and filt not in pkg:
                continue
            if not _in_user(ctx, pkg, system, user):
                continue
            prefix = f"package:{apk_path(pkg, system)}=" if "-f" in flags else "package:"
            ctx.print(f"{prefix}{pkg}\n")
        return 0
    if sub == "path":
        names = [a for a in rest if not a.startswith("-") and not a.isdigit()]
        known = dict(_packages(ctx))
        if not names or names[-1] not in known:
            return 1
        ctx.print(f"package:{apk_path(names[-1], known[names[-1]])}\n")
        return 0
    if sub == "resolve-activity":
        brief = "--brief" in rest
        world = ctx.phone.world
        if any(flag in rest for flag in ("-a", "-d", "-t", "-n")):
            return _resolve_intent(ctx, [a for a in rest if a not in ("--brief", "--components")], brief)
        names = [a for a in rest if not a.startswith("-")]
        if "-c" in rest:
            names = [n for n in names if not n.startswith("android.intent.category")]
        app = world.apps.get(names[-1]) if names else None
        if app is None or (not app.launcher and app.package != "com.android.launcher3"):
            ctx.print("No activity found\n")
            return 0
        comp = app.activity_component(app.main)
        if brief:
            ctx.print(f"priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n{comp}\n")
        else:
            ctx.print(
                f"  ActivityInfo:\n    name={app.package}{app.screens[app.main].activity}\n    packageName={app.package}\n    enabled=true exported=true directBootAware=false\n"
            )
        return 0
    if sub == "query-activities":
        world = ctx.phone.world
        apps = [a for a in sorted(world.apps.values(), key=lambda a: a.package) if a.launcher]
        if "-c" in rest and "android.intent.category.HOME" in rest:
            apps = [world.apps["com.android.launcher3"]]
        ctx.print(f"{len(apps)} activities found:\n")
        for i, app in enumerate(apps):
            comp = app.activity_component(app.main)
            if "--brief" in rest:
                ctx.print(
                    f"  Activity #{i}:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    {comp}\n"
                )
            else:
                ctx.print(
                    f"  Activity #{i}:\n    ActivityInfo:\n      name={app.package}{app.screens[app.main].activity}\n      packageName={app.package}\n"
                )
        return 0
    if sub in ("clear",) and rest:
        ctx.print("Success\n")
        return 0
    ctx.error(f"Unknown command: {sub}")
    return 1


def _resolve_intent(ctx: Ctx, args: list[str], brief: bool) -> int:
    """`resolve-activity` of a whole intent (-a/-d/-t/-n, a trailing package): the activity
    `am start` would open for it, as real `cmd package` prints it."""
    from mika.sim.shell.commands.am import IntentArgError, parse_intent, resolve_component, resolve_intent_target

    world = ctx.phone.world
    try:
        it = parse_intent(args)
    except IntentArgError as exc:
        ctx.error(str(exc))
        return 1
    target = resolve_component(world, it.component) if it.component else resolve_intent_target(world, it)
    if target is None:
        ctx.print("No activity found\n")
        return 0
    pkg, screen = target
    comp = world.apps[pkg].activity_component(screen)
    if brief:
        ctx.print(f"priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n{comp}\n")
    else:
        ctx.print(
            f"  ActivityInfo:\n    name={comp.replace('/', '')}\n    packageName={pkg}\n    enabled=true exported=true\n"
        )
    return 0


@command("pm")
async def pm(ctx: Ctx) -> int:
    return await _pm(ctx, ctx.args[1:])


async def _ime(ctx: Ctx, args: list[str]) -> int:
    world = ctx.phone.world
    available = ["com.android.inputmethod.latin/.LatinIME", "com.android.adbkeyboard/.AdbIME"]
    available += [ime for app in world.apps.values() for ime in app.input_methods]  # installed APKs'
    if not args or args[0] == "help":
        ctx.print(
            "Input method manager (input_method) commands:\n  list [-a] [-s]\n  enable ID\n  disable ID\n  set ID\n  reset\n"
        )
        return 0
    sub, rest = args[0], args[1:]
    if sub == "list":
        ids = available if "-a" in rest else world.imes
        for ime in ids:
            if "-s" in rest:
                ctx.print(ime + "\n")
            else:
                pkg, _, cls = ime.partition("/")
                ctx.print(
                    f"{ime}:\n  mId={ime} mSettingsActivity=null mIsVrOnly=false mSupportsSwitchingToNextInputMethod=false\n  mIsDefaultResId=0x0\n  Service:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    ServiceInfo:\n      name={pkg}{cls}\n      packageName={pkg}\n"
                )
        return 0
    if sub in ("enable", "disable", "set") and rest:
        ime = rest[-1]
        if ime not in available:
            ctx.error(f"Unknown input method {ime} cannot be {'selected' if sub == 'set' else sub + 'd'} for user #0")
            return 1
        if sub == "enable":
            state = "already enabled" if ime in world.imes else "now enabled"
            if ime not in world.imes:
                world.imes.append(ime)
            ctx.print(f"Input method {ime}: {state} for user #0\n")
        elif sub == "disable":
            if ime in world.imes:
                world.imes.remove(ime)
            ctx.print(f"Input method {ime}: now disabled for user #0\n")
        else:
            if ime not in world.imes:
                world.imes.append(ime)
            world.ime_id = ime
            world.extra_settings["secure"]["default_input_method"] = ime
            ctx.print(f"Input method {ime} selected for user #0\n")
        world.changed()
        return 0
    if sub == "reset":
        world.ime_id = available[0]
        world.imes = [available[0]]
        ctx.print(f"Reset current and enabled IMEs for user #0\n  Selected: {available[0]}\n")
        return 0
    ctx.error(f"Unknown command: {sub}")
    return 1


@command("ime")
async def ime(ctx: Ctx) -> int:
    return await _ime(ctx, ctx.args[1:])


@command("cmd")
async def cmd(ctx: Ctx) -> int:
    args = ctx.args[1:]
    if not args:
        ctx.error(
            "cmd: No service specified; use -l to list all running services. Use -w to start and wait for a service."
        )
        return 255
    service, rest = args[0], args[1:]
    if service == "package":
        return await _pm(ctx, rest)
    if service == "input_method":
        return await _ime(ctx, rest)
    if service == "display" and rest[:1] == ["get-displays"]:
        print_get_displays(ctx)
        return 0
    if service == "locale" and rest[:1] == ["set-app-locales"]:
        # LocaleManagerShellCommand prints nothing on success; the sim's apps have one locale.
        if len(rest) < 2 or rest[1] not in ctx.phone.world.apps:
            ctx.error(f"Unknown package {rest[1] if len(rest) > 1 else ''}")
            return 255
        return 0
    if service in ("activity", "window", "input", "settings"):
        target = lookup({"activity": "am", "window": "wm"}.get(service, service))
        if target is not None:
            ctx.args = [service, *rest]
            return await target(ctx)
    ctx.error(f"cmd: Can't find service: {service}")
    return 255


@command("run-as")
async def run_as(ctx: Ctx) -> int:
    """No app on the simulated phone is debuggable, so run-as refuses each one as a
    release build does; clients probe with `run-as PKG true` and fall back."""
    if len(ctx.args) < 2:
        ctx.error("usage: run-as <package-name> [--user <uid>] <command> [<args>]")
        return 1
    pkg = ctx.args[1]
    if pkg not in ctx.phone.world.apps:
        ctx.error(f"run-as: unknown package: {pkg}")
        return 1
    ctx.error(f"run-as: package not debuggable: {pkg}")
    return 1
