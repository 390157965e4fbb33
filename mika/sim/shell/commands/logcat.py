"""`logcat`: the log buffers of the simulated phone, in logcat's own formats.

The main buffer holds a few lines from boot and one `ActivityTaskManager: START` line
for each activity that came to the front (read from the world as it changes, so a client
following the log sees what a real phone logs when an app opens). The crash buffer holds
the runtime's FATAL EXCEPTION report of each app that crashed (the `crash=` fault; apps
of the sim don't crash on their own). `-d` dumps and exits; without it logcat follows
until the host closes the stream, as on a phone.
"""

from __future__ import annotations

import asyncio
import time

from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command
from mika.sim.world.world import AppCrash

_BOOT = (
    (612, "I", "Zygote", "Process: zygote64 socket opened, supported ABIS: arm64-v8a"),
    (1234, "I", "SystemServer", "Entered the Android system server!"),
    (1234, "I", "ActivityManager", "System now ready"),
    (1234, "I", "WindowManager", "Screen frozen for +212ms due to boot"),
)


# Which -b names hold the activity lines, and which the crash reports; the default
# buffers (no -b) are main, system and crash.
_MAIN = ("main", "all", "default", "system")
_CRASH = ("crash", "all", "default")


def _stamp(epoch: float, year: bool) -> str:
    t = time.gmtime(epoch)
    millis = int(epoch * 1000) % 1000
    date = time.strftime("%Y-%m-%d" if year else "%m-%d", t)
    return f"{date} {time.strftime('%H:%M:%S', t)}.{millis:03d}"


def _line(epoch: float, pid: int, level: str, tag: str, message: str, fmt: set[str]) -> str:
    if "brief" in fmt:
        return f"{level}/{tag}({pid:>5}): {message}\n"
    # threadtime, logcat's default: date time PID TID level tag: message.
    return f"{_stamp(epoch, 'year' in fmt)} {pid:>5} {pid:>5} {level} {tag}: {message}\n"


def _crash_lines(crash: AppCrash) -> list[tuple[float, int, str, str, str]]:
    """What RuntimeInit's KillApplicationHandler logs for an uncaught exception."""
    cls = crash.package + crash.activity
    report = (
        "FATAL EXCEPTION: main",
        f"Process: {crash.package}, PID: {crash.pid}",
        f"java.lang.RuntimeException: Unable to start activity ComponentInfo{{{crash.package}/{cls}}}: "
        "java.lang.IllegalStateException: simulated crash (fault crash=)",
        "\tat android.app.ActivityThread.performLaunchActivity(ActivityThread.java:3782)",
        "\tat android.app.ActivityThread.handleLaunchActivity(ActivityThread.java:3922)",
        "\tat android.os.Looper.loop(Looper.java:317)",
        "\tat android.app.ActivityThread.main(ActivityThread.java:8705)",
        "Caused by: java.lang.IllegalStateException: simulated crash (fault crash=)",
        f"\tat {cls}.onCreate({crash.activity.lstrip('.')}.java:42)",
        "\tat android.app.Activity.performCreate(Activity.java:8595)",
    )
    return [(crash.time, crash.pid, "E", "AndroidRuntime", line) for line in report]


def _focus_line(ctx: Ctx) -> tuple[int, str, str, str] | None:
    act = ctx.phone.world.top_activity(0)
    if act is None:
        return None
    component = f"{act.package}/.{act.screen}"
    return (1234, "I", "ActivityTaskManager", f"START u0 {{flg=0x10000000 cmp={component}}} from uid 2000")


@command("logcat")
async def logcat(ctx: Ctx) -> int:
    args = ctx.args[1:]
    dump = False
    buffers: list[str] = []
    fmt: set[str] = set()
    tail: int | None = None
    i = 0
    while i < len(args):
        a = args[i]
        value = args[i + 1] if i + 1 < len(args) else ""
        if a == "-d":
            dump = True
        elif a == "-c":
            return 0
        elif a == "-b":
            buffers.append(value)
            i += 1
        elif a == "-v":
            fmt.update(value.split(","))
            i += 1
        elif a in ("-T", "-t"):
            if not value.isdigit():
                ctx.error(f"logcat: -{a[1]} takes a count")
                return 1
            tail = int(value)
            dump = dump or a == "-t"
            i += 1
        i += 1
    world = ctx.phone.world
    start = world.clock.now() - 60.0
    entries: list[tuple[float, int, str, str, str]] = []
    if not buffers or any(b in _MAIN for b in buffers):
        entries = [(start + n, *boot) for n, boot in enumerate(_BOOT)]
        focus = _focus_line(ctx)
        if focus is not None:
            entries.append((world.clock.now(), *focus))
    if not buffers or any(b in _CRASH for b in buffers):
        entries += [line for crash in world.crashes for line in _crash_lines(crash)]
        entries.sort(key=lambda e: e[0])
    if tail is not None:
        entries = entries[-tail:] if tail else []
    for entry in entries:
        ctx.print(_line(*entry, fmt))
    if dump:
        return 0
    await ctx.out.flush()
    seen = world.version
    last = _focus_line(ctx)
    crashes = len(world.crashes)
    stream = ctx.stream
    while stream is not None and not stream.closed:
        # Wake on world changes (or every half second, to notice the host leaving).
        before = seen

        def moved(before: int = before) -> bool:
            return world.version != before

        changed = await asyncio.to_thread(world.wait_until, moved, 0.5)
        if not changed:
            continue
        seen = world.version
        now = _focus_line(ctx)
        if now is not None and now != last and (not buffers or any(b in _MAIN for b in buffers)):
            ctx.print(_line(world.clock.now(), *now, fmt))
        for crash in world.crashes[crashes:] if not buffers or any(b in _CRASH for b in buffers) else []:
            for entry in _crash_lines(crash):
                ctx.print(_line(*entry, fmt))
        crashes = len(world.crashes)
        await ctx.out.flush()
        last = now
    return 0
