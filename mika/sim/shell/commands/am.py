"""`am` (start, force-stop, broadcast, stack list|remove, display move-stack) and `monkey`."""

from __future__ import annotations

import base64
import random
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

from mika.sim.apps import engine
from mika.sim.shell.commands import u2_keyboard
from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command
from mika.sim.world.world import World

MAIN = "android.intent.action.MAIN"
LAUNCHER_CAT = "android.intent.category.LAUNCHER"
ADB_IME = "com.android.adbkeyboard/.AdbIME"


@dataclass
class Intent:
    action: str | None = None
    data: str | None = None
    mime: str | None = None
    category: str | None = None
    component: str | None = None
    package: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    display: int = 0
    wait: bool = False
    stop_first: bool = False

    def describe(self, flags: str = "0x10000000") -> str:
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.category:
            parts.append(f"cat=[{self.category}]")
        if self.data:
            parts.append(f"dat={self.data}")
        if self.mime:
            parts.append(f"typ={self.mime}")
        parts.append(f"flg={flags}")
        if self.package and not self.component:
            parts.append(f"pkg={self.package}")
        if self.component:
            parts.append(f"cmp={self.component}")
        if self.extras:
            parts.append("(has extras)")
        return "Intent { " + " ".join(parts) + " }"


class IntentArgError(ValueError):
    pass


def _typed(kind: str, raw: str) -> Any:
    if kind in ("--ei", "--el"):
        return int(raw)
    if kind == "--ef" or kind == "--ed":
        return float(raw)
    if kind == "--ez":
        return raw.lower() in ("true", "t", "1")
    if kind in ("--eia", "--ela", "--eial", "--elal"):  # arrays and ArrayLists of ints/longs
        return [int(x) for x in raw.split(",") if x]
    if kind in ("--esa", "--esal"):
        return list(raw.split(","))
    return raw


def parse_intent(args: list[str]) -> Intent:
    it = Intent()
    i = 0
    while i < len(args):
        a = args[i]

        # Called only within this iteration, so binding the loop's `i` and `a` late is right.
        def nxt(n: int = 1) -> list[str]:
            if i + n >= len(args):  # noqa: B023
                raise IntentArgError(f"Error: No argument supplied for {a!r}")  # noqa: B023
            return args[i + 1 : i + 1 + n]  # noqa: B023

        if a == "-a":
            it.action = nxt()[0]
            i += 2
        elif a == "-d":
            it.data = nxt()[0]
            i += 2
        elif a == "-t":
            it.mime = nxt()[0]
            i += 2
        elif a == "-c":
            it.category = nxt()[0]
            i += 2
        elif a == "-n":
            it.component = nxt()[0]
            i += 2
        elif a == "-p":
            it.package = nxt()[0]
            i += 2
        elif a in (
            "-f",
            "--user",
            "--windowingMode",
            "--activityType",
            "-P",
            "--start-profiler",
            "-R",
            "--receiver-permission",
        ):
            nxt()
            i += 2
        elif a == "--display":
            it.display = int(nxt()[0])
            i += 2
        elif a == "-W":
            it.wait = True
            i += 1
        elif a == "-S":
            it.stop_first = True
            i += 1
        elif a in (
            "--es",
            "--ei",
            "--el",
            "--ef",
            "--ed",
            "--ez",
            "--eia",
            "--ela",
            "--eial",
            "--elal",
            "--esa",
            "--esal",
            "--eu",
        ):
            key, raw = nxt(2)
            try:
                it.extras[key] = _typed(a, raw)
            except ValueError:
                raise IntentArgError(f"Error: bad value for {a} {key}: {raw!r}") from None
            i += 3
        elif a == "--esn":
            it.extras[nxt()[0]] = None
            i += 2
        elif a.startswith("-"):
            i += 1  # flags such as --activity-clear-top, -D, --debug-log-resolution
        else:
            # The trailing bare argument, as real am reads it: with ':' a URI, with '/' a
            # component, otherwise the package the intent is limited to.
            if "/" in a and "://" not in a and ":" not in a.split("/")[0] and not a.startswith("/"):
                it.component = a
            elif ":" in a or "/" in a:
                it.data = a
            else:
                it.package = a
            i += 1
    return it


def short_extras(extras: dict[str, Any]) -> dict[str, Any]:
    """App files read extras by their last name part: android.intent.extra.alarm.HOUR -> HOUR."""
    out: dict[str, Any] = {}
    for k, v in extras.items():
        out[k.rsplit(".", 1)[-1]] = v
        out[k] = v
    return out


def resolve_component(world: World, component: str) -> tuple[str, str] | None:
    pkg, _, cls = component.partition("/")
    app = world.apps.get(pkg)
    if app is None:
        return None
    if cls.startswith("."):
        full = cls
    elif cls.startswith(pkg + "."):
        full = cls[len(pkg) :]
    else:
        full = cls
    for screen in app.screens.values():
        if screen.activity == full or screen.activity == cls:
            return pkg, screen.name
    return None


def _resolve(world: World, it: Intent) -> tuple[str, dict[str, Any]] | None:
    """The app and intent rule that take `it`; a package limits the search to that app
    (real am then fails rather than hand the intent to another app)."""
    if not it.package:
        return engine.resolve_intent(world, it.action, it.data, it.mime, it.category)
    app = world.apps.get(it.package)
    if app is None:
        return None
    # resolve_intent reads only `.apps`: a view of the world holding just that app.
    only_app = cast(World, SimpleNamespace(apps={app.package: app}))
    return engine.resolve_intent(only_app, it.action, it.data, it.mime, it.category)


def resolve_intent_target(world: World, it: Intent) -> tuple[str, str] | None:
    """(package, screen) an intent without a component opens, as `start` resolves it."""
    if it.action in (None, MAIN) and it.package and not it.data:
        app = world.apps.get(it.package)
        return (app.package, app.main) if app is not None else None
    found = _resolve(world, it)
    if found is None:
        return None
    pkg, rule = found
    return pkg, rule.get("screen", world.apps[pkg].main)


def start(ctx: Ctx, it: Intent) -> int:
    world = ctx.phone.world
    if it.display not in world.displays:
        ctx.print(f"Starting: {it.describe()}\n")
        ctx.error(f"Error: Display {it.display} does not exist")
        return 1
    target: tuple[str, str] | None = None
    rule = None
    if it.component:
        target = resolve_component(world, it.component)
        if target is None:
            pkg, _, cls = it.component.partition("/")
            full = pkg + cls if cls.startswith(".") else cls
            ctx.print(f"Starting: {it.describe()}\n")
            ctx.error("Error type 3")
            ctx.error(f"Error: Activity class {{{pkg}/{full}}} does not exist.")
            return 1
    elif it.action in (None, MAIN) and it.package:
        app = world.apps.get(it.package)
        if app is None:
            ctx.print(f"Starting: {it.describe()}\n")
            ctx.error(f"Error: Activity not started, unable to resolve {it.describe()}")
            return 1
        target = (app.package, app.main)
    else:
        found = _resolve(world, it)
        if found is None:
            ctx.print(f"Starting: {it.describe()}\n")
            ctx.error(f"Error: Activity not started, unable to resolve {it.describe()}")
            return 1
        pkg, rule = found
        app = world.apps[pkg]
        target = (pkg, rule.get("screen", app.main))
    pkg, screen = target
    ctx.print(f"Starting: {it.describe()}\n")
    if world.locked:
        # Activities start behind the keyguard; the user still sees the lock screen.
        pass
    if it.stop_first:
        world.force_stop(pkg)
    cold = world.displays[it.display].task_for(pkg) is None
    if rule is not None:
        engine.start_intent(world, it.display, pkg, rule, short_extras(it.extras), it.data)
    elif it.component:
        world.launch(pkg, it.display, screen=screen)
    else:
        world.launch(pkg, it.display)
    top = world.top_activity(it.display)
    # the keyboard comes up only for a screen that starts with a focused field
    world.ime_visible = bool(top and top.focus)
    if it.wait:
        top = world.top_activity(it.display)
        comp = world.apps[top.package].activity_component(top.screen) if top else f"{pkg}/?"
        total = 280 if cold else 95
        ctx.print(
            f"Status: ok\nLaunchState: {'COLD' if cold else 'WARM'}\nActivity: {comp}\n"
            f"TotalTime: {total}\nWaitTime: {total + 4}\nComplete\n"
        )
    return 0


@command("am")
async def am(ctx: Ctx) -> int:
    args = ctx.args[1:]
    world = ctx.phone.world
    if not args:
        ctx.print(
            "Activity manager (activity) commands:\n  start [-W] [-n COMPONENT] [-a ACTION] [-d DATA] [-t TYPE] [--display ID] ...\n  force-stop PACKAGE\n  broadcast [-a ACTION] ...\n  stack list\n  stack remove ROOT_TASK_ID\n  display move-stack TASK_ID DISPLAY_ID\n"
        )
        return 0
    sub, rest = args[0], args[1:]
    if sub in ("start", "start-activity"):
        try:
            it = parse_intent(rest)
        except IntentArgError as e:
            ctx.error(str(e))
            return 1
        return start(ctx, it)
    if sub == "force-stop":
        pkgs = [a for a in rest if not a.startswith("-") and not a.isdigit()]
        if not pkgs:
            ctx.error("Error: no package given")
            return 1
        world.force_stop(pkgs[-1])
        return 0
    if sub == "broadcast":
        try:
            it = parse_intent(rest)
        except IntentArgError as e:
            ctx.error(str(e))
            return 1
        ctx.print(f"Broadcasting: {it.describe('0x400000')}\n")
        _broadcast(ctx, it)
        code = u2_keyboard.receive(world, it.action, it.extras)
        ctx.print(f"Broadcast completed: result={code or 0}\n")
        return 0
    if sub == "stack" and rest[:1] == ["list"]:
        for display in world.displays.values():
            w, h = display.size
            for task in reversed(display.tasks):
                short = world.apps[task.package].activity_component(task.top.screen)
                pkg, _, cls = short.partition("/")
                comp = f"{pkg}/{pkg}{cls}" if cls.startswith(".") else short
                visible = "true" if task is display.top_task else "false"
                # RootTaskInfo.toString (Android 12–16): the root line, its configuration
                # line, then one line per child task.
                ctx.print(
                    f"RootTask id={task.id} bounds=[0,0][{w},{h}] displayId={display.id} userId=0\n"
                    f" configuration={_configuration(display)}\n"
                    f"  taskId={task.id}: {comp} bounds=[0,0][{w},{h}] userId=0 visible={visible} "
                    f"topActivity=ComponentInfo{{{comp}}}\n"
                )
        return 0
    if sub == "stack" and rest[:1] == ["remove"]:
        # Android 10–14 `am stack remove <ROOT_TASK_ID>`: finishes the task, prints
        # nothing, and ignores an id that names no task (exit 0 either way).
        # (runRootTaskRemove → removeTask(id); a missing or bad id throws, which the
        # shell command prints as below with exit status 255.)
        if len(rest) < 2:
            return _shell_exception(
                ctx, "stack", 'java.lang.IllegalArgumentException: Argument expected after "remove"'
            )
        try:
            task_id = int(rest[1])
        except ValueError:
            return _shell_exception(ctx, "stack", f'java.lang.NumberFormatException: For input string: "{rest[1]}"')
        world.remove_task(task_id)
        return 0
    if sub == "display" and rest[:1] == ["move-stack"] and len(rest) >= 3:
        # runDisplayMoveStack → moveRootTaskToDisplay: silent; what it refuses it throws
        # (RootWindowContainer's messages), printed by the shell command, exit 255.
        try:
            task_id, display_id = int(rest[1]), int(rest[2])
        except ValueError:
            bad = rest[1] if not rest[1].lstrip("-").isdigit() else rest[2]
            return _shell_exception(ctx, "display", f'java.lang.NumberFormatException: For input string: "{bad}"')
        if display_id not in world.displays:
            return _shell_exception(
                ctx,
                "display",
                f"java.lang.IllegalArgumentException: moveRootTaskToDisplay: Unknown displayId={display_id}",
            )
        current = next((d for d in world.displays.values() if any(t.id == task_id for t in d.tasks)), None)
        if current is None:
            return _shell_exception(
                ctx,
                "display",
                f"java.lang.IllegalArgumentException: moveRootTaskToTaskDisplayArea: Unknown rootTaskId={task_id}",
            )
        if current.id == display_id:
            return _shell_exception(
                ctx,
                "display",
                f"java.lang.IllegalArgumentException: Trying to move rootTask=Task{{{task_id}}} to its current "
                f"taskDisplayArea=DefaultTaskDisplayArea@{display_id}",
            )
        world.move_task(task_id, display_id)
        return 0
    if sub in ("get-current-user",):
        ctx.print("0\n")
        return 0
    ctx.error(f"Error: Unknown command: {sub}")
    return 1


def _shell_exception(ctx: Ctx, cmd: str, exception: str) -> int:
    """What `cmd activity` prints when its command throws (BasicShellCommandHandler.exec):
    a blank line, "Exception occurred while executing 'CMD':", the stack trace; exit 255."""
    ctx.error(
        f"\nException occurred while executing '{cmd}':\n{exception}\n"
        "\tat com.android.server.am.ActivityManagerShellCommand.onCommand(ActivityManagerShellCommand.java:300)\n"
        "\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)\n"
    )
    return 255


def _configuration(display) -> str:
    """The root task's Configuration.toString, short: what a parser must step over."""
    w, h = display.size
    dpi = display.override_density or display.density
    sw = min(w, h) * 160 // dpi
    return (
        f"{{1.0 ?mcc?mnc [en_US] ldltr sw{sw}dp w{w * 160 // dpi}dp h{h * 160 // dpi}dp {dpi}dpi nrml long "
        f"{'port' if h >= w else 'land'} finger -keyb/v/h -nav/h winConfig={{ mBounds=Rect(0, 0 - {w}, {h}) "
        f"mAppBounds=Rect(0, 0 - {w}, {h}) mMaxBounds=Rect(0, 0 - {w}, {h}) mDisplayRotation=ROTATION_0 "
        f"mWindowingMode=fullscreen mActivityType=standard mAlwaysOnTop=undefined mRotation=ROTATION_0}} s.1}}"
    )


def _broadcast(ctx: Ctx, it: Intent) -> None:
    """The ADB Keyboard's broadcasts type into the focused field when it is the IME."""
    world = ctx.phone.world
    if world.ime_id != ADB_IME:
        return
    text = None
    if it.action == "ADB_INPUT_TEXT":
        text = it.extras.get("msg")
    elif it.action == "ADB_INPUT_B64":
        try:
            text = base64.b64decode(str(it.extras.get("msg", ""))).decode("utf-8")
        except ValueError:
            text = None
    elif it.action == "ADB_CLEAR_TEXT":
        top = world.top_activity(world.focused_display)
        if top and top.focus:
            top.fields[top.focus] = ""
            world.changed()
        return
    if text:
        engine.type_text(world, world.focused_display, str(text))


@command("monkey")
async def monkey(ctx: Ctx) -> int:
    args = ctx.args[1:]
    world = ctx.phone.world
    for a in args:
        ctx.print(f"  bash arg: {a}\n")
    pkg = None
    if "-p" in args:
        i = args.index("-p")
        pkg = args[i + 1] if i + 1 < len(args) else None
    count = args[-1] if args and args[-1].isdigit() else None
    if count is None:
        ctx.error("** Error: Count not specified")
        return 1
    app = world.apps.get(pkg or "")
    if pkg is None or app is None or (not app.launcher and pkg != "com.android.launcher3"):
        ctx.print("** No activities found to run, monkey aborted.\n")
        return 252
    world.launch(app.package, 0)
    world.ime_visible = False
    ms = random.Random(pkg).randint(20, 60)
    ctx.print(
        f"Events injected: {count}\n## Network stats: elapsed time={ms}ms (0ms mobile, 0ms wifi, {ms}ms not connected)\n"
    )
    return 0
