"""`logcat`: the log buffers of the simulated phone, in logcat's own formats.

The main buffer holds a few lines from boot and one `ActivityTaskManager: START` line
for each activity that came to the front (read from the world as it changes, so a client
following the log sees what a real phone logs when an app opens). The crash buffer is
empty: nothing crashes on the simulated phone. `-d` dumps and exits; without it logcat
follows until the host closes the stream, as on a phone.
"""

from __future__ import annotations

import asyncio
import time

from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command

_BOOT = (
    (612, "I", "Zygote", "Process: zygote64 socket opened, supported ABIS: arm64-v8a"),
    (1234, "I", "SystemServer", "Entered the Android system server!"),
    (1234, "I", "ActivityManager", "System now ready"),
    (1234, "I", "WindowManager", "Screen frozen for +212ms due to boot"),
)


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
    if not buffers or any(b in ("main", "all", "default", "system") for b in buffers):
        entries = [(start + n, *boot) for n, boot in enumerate(_BOOT)]
        focus = _focus_line(ctx)
        if focus is not None:
            entries.append((world.clock.now(), *focus))
    if tail is not None:
        entries = entries[-tail:] if tail else []
    for entry in entries:
        ctx.print(_line(*entry, fmt))
    if dump:
        return 0
    await ctx.out.flush()
    seen = world.version
    last = _focus_line(ctx)
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
        if now is not None and now != last:
            ctx.print(_line(world.clock.now(), *now, fmt))
            await ctx.out.flush()
        last = now
    return 0
