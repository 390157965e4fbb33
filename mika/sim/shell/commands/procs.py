"""`ps`, `pidof`, `kill`, `pkill`, `pgrep` over the simulated processes, and `app_process`
(which serves uiautomator2 on tcp:9008, or runs the scrcpy server (mika/sim/scrcpy), while
its shell stream stays open, or mobilecli's DeviceServer (mika/sim/devicekit), which
outlives it)."""

from __future__ import annotations

import asyncio
import re

from mika.sim.devicekit import server as devicekit
from mika.sim.scrcpy import server as scrcpy
from mika.sim.shell.commands import screenrecord
from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command

_SYSTEM = [
    ("root", 1, 0, "init"),
    ("root", 412, 1, "ueventd"),
    ("logd", 530, 1, "logd"),
    ("system", 1648, 612, "system_server"),
    ("u0_a86", 2202, 612, "com.android.systemui"),
    ("shell", 4120, 1, "adbd"),
    ("root", 612, 1, "zygote64"),
]
U2_MAIN = "com.wetest.uia2.Main"


def processes(ctx: Ctx) -> list[tuple[str, int, int, str]]:
    world = ctx.phone.world
    out = list(_SYSTEM)
    running = {t.package for d in world.displays.values() for t in d.tasks}
    for pkg in sorted(running):
        uid = world.apps[pkg].uid
        out.append((f"u0_a{uid - 10000}", 3000 + uid % 1000, 612, pkg))
    if ctx.phone.u2_servers:
        out.append(("shell", 5008, 4120, "uiautomator"))
    for pid in sorted(scrcpy.running(ctx.phone)):
        out.append(("shell", pid, 4120, scrcpy.PROCESS_NAME))
    for pid in sorted(devicekit.running(ctx.phone)):
        # nohup … &: the shell that started it is gone, so init adopted it.
        out.append(("shell", pid, 1, "app_process"))
    for pid in sorted(screenrecord.running(ctx.phone)):
        out.append(("shell", pid, 4120, "screenrecord"))
    return out


def command_line(ctx: Ctx, pid: int, name: str) -> str:
    """What `pgrep -f` / `pkill -f` match: /proc/PID/cmdline, joined by spaces."""
    proc = devicekit.running(ctx.phone).get(pid) or screenrecord.running(ctx.phone).get(pid)
    return proc.command_line if proc is not None else name


@command("ps")
async def ps(ctx: Ctx) -> int:
    names = [a for a in ctx.args[1:] if not a.startswith("-")]
    ctx.print("USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n")
    for user, pid, ppid, name in processes(ctx):
        if names and name not in names:
            continue
        ctx.print(f"{user:<12}{pid:>6}{ppid:>6} {12345678:>9} {54321:>6} 0                   0 S {name}\n")
    return 0


@command("pidof")
async def pidof(ctx: Ctx) -> int:
    pids = [str(pid) for _, pid, _, name in processes(ctx) if name in ctx.args[1:]]
    if not pids:
        return 1
    ctx.print(" ".join(pids) + "\n")
    return 0


@command("kill")
async def kill(ctx: Ctx) -> int:
    targets = [a for a in ctx.args[1:] if not a.startswith("-")]
    code = 0
    by_pid = {str(pid): name for _, pid, _, name in processes(ctx)}
    for t in targets:
        name = by_pid.get(t)
        if name is None:
            ctx.error(f"kill: {t}: No such process")
            code = 1
        elif name == "uiautomator":
            ctx.phone.u2_kill = True  # the serving app_process notices and exits
        elif name == scrcpy.PROCESS_NAME and int(t) in scrcpy.running(ctx.phone):
            scrcpy.running(ctx.phone)[int(t)].kill()
        elif int(t) in devicekit.running(ctx.phone):
            devicekit.running(ctx.phone)[int(t)].kill()
        elif int(t) in screenrecord.running(ctx.phone):
            screenrecord.running(ctx.phone)[int(t)].kill()
        elif name in ctx.phone.world.apps:
            ctx.phone.world.force_stop(name)
        else:
            ctx.error(f"kill: {t}: Operation not permitted")
            code = 1
    return code


@command("app_process", "app_process64")
async def app_process(ctx: Ctx) -> int:
    args = ctx.args[1:]
    classpath = ctx.env.get("CLASSPATH", "")
    main = next((a for a in args[1:] if not a.startswith("-") and "." in a), "")
    if not main:
        ctx.error("Usage: app_process [java-options] cmd-dir start-class-name [options]")
        return 1
    known = (U2_MAIN, scrcpy.MAIN_CLASS, devicekit.MAIN_CLASS)
    if main not in known or not any(ctx.phone.files.stat(p) for p in classpath.split(":") if p):
        ctx.error(f'Exception in thread "main" java.lang.ClassNotFoundException: {main}')
        return 1
    if main == scrcpy.MAIN_CLASS:
        return await scrcpy.main(ctx.phone, args[args.index(main) + 1 :], out=ctx.out, err=ctx.err, classpath=classpath)
    if main == devicekit.MAIN_CLASS:
        return await devicekit.main(ctx.phone, args[args.index(main) + 1 :], err=ctx.err, classpath=classpath)
    phone = ctx.phone
    phone.u2_servers += 1
    phone.u2_kill = False
    ctx.print("[server] INFO: [UiAutomator2Server] Starting Server\n")
    await ctx.out.flush()
    try:
        stream = ctx.stream
        while stream is not None and not stream.closed and not phone.u2_kill:
            reader = asyncio.ensure_future(stream.read())
            done, _ = await asyncio.wait({reader}, timeout=0.5)
            if not done:
                reader.cancel()
                continue
            if reader.result() == b"":
                if stream.closed:
                    break
                # A v2 shell whose host closed only stdin: the server runs on, as
                # app_process ignores its stdin, until the stream itself closes.
                # (A poll, like the one above: the kill flag has no event to wait on.)
                await asyncio.sleep(0.5)
    finally:
        phone.u2_servers -= 1
    return 0


def _matching(ctx: Ctx) -> list[str] | int:
    """The pids `pgrep`/`pkill [-f] [-SIGNAL] PATTERN` select, or its exit code for bad
    arguments. -f matches the whole command line (the name, for most of the sim's
    processes). Clients write `[D]eviceServer` so that on a phone the pattern can't match
    the pkill's own command line; here pgrep and pkill aren't listed processes at all."""
    tool = ctx.args[0]
    args = [a for a in ctx.args[1:] if not a.startswith("-")]
    full = "-f" in ctx.args[1:]
    if not args:
        ctx.error(f"{tool}: no matching criteria specified")
        return 2
    try:
        pattern = re.compile(args[0])
    except re.error:
        ctx.error(f"{tool}: invalid pattern: {args[0]}")
        return 2
    return [
        str(pid) for _, pid, _, name in processes(ctx) if pattern.search(command_line(ctx, pid, name) if full else name)
    ]


@command("pkill")
async def pkill(ctx: Ctx) -> int:
    """Exit 1 when nothing matched, as procps does."""
    hits = _matching(ctx)
    if isinstance(hits, int):
        return hits
    if not hits:
        return 1
    ctx.args = ["kill", *hits]
    return await kill(ctx)


@command("pgrep")
async def pgrep(ctx: Ctx) -> int:
    """The matching pids, one a line; exit 1 when none, as procps does."""
    hits = _matching(ctx)
    if isinstance(hits, int):
        return hits
    for pid in hits:
        ctx.print(pid + "\n")
    return 0 if hits else 1
