"""sh builtins and tiny tools: echo, true, false, sleep, exit, pwd, id, whoami, grep."""

from __future__ import annotations

import asyncio
import re

from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command, lookup


@command("echo")
async def echo(ctx: Ctx) -> int:
    args = ctx.args[1:]
    newline = True
    if args and args[0] == "-n":
        newline = False
        args = args[1:]
    ctx.print(" ".join(args) + ("\n" if newline else ""))
    return 0


@command("true")
async def true_(ctx: Ctx) -> int:
    return 0


@command("false")
async def false_(ctx: Ctx) -> int:
    return 1


@command("exit")
async def exit_(ctx: Ctx) -> int:
    if len(ctx.args) > 1 and ctx.args[1].lstrip("-").isdigit():
        return int(ctx.args[1]) & 0xFF
    return int(ctx.env.get("?", "0"))


@command("sleep")
async def sleep(ctx: Ctx) -> int:
    if len(ctx.args) < 2:
        ctx.error("sleep: Needs 1 argument")
        return 1
    try:
        seconds = float(ctx.args[1].rstrip("s"))
    except ValueError:
        ctx.error(f"sleep: not a number: '{ctx.args[1]}'")
        return 1
    await asyncio.sleep(min(seconds, 60.0))
    ctx.phone.world.clock.advance(seconds)
    return 0


@command("pwd")
async def pwd(ctx: Ctx) -> int:
    ctx.print("/\n")
    return 0


@command("whoami")
async def whoami(ctx: Ctx) -> int:
    ctx.print("shell\n")
    return 0


@command("id")
async def id_(ctx: Ctx) -> int:
    # toybox id: -u / -g print the number, with -n the name (scripts check `id -u` for root).
    flags = "".join(a[1:] for a in ctx.args[1:] if a.startswith("-"))
    if "u" in flags or "g" in flags:
        ctx.print("shell\n" if "n" in flags else "2000\n")
        return 0
    ctx.print(
        "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),"
        "1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),"
        "3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid) context=u:r:shell:s0\n"
    )
    return 0


@command("grep")
async def grep(ctx: Ctx) -> int:
    """The subset scripts pipe into: -i, -v, -E, -c, -q, -F, several -e."""
    args = ctx.args[1:]
    flags: set[str] = set()
    patterns: list[str] = []
    files: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-e" and i + 1 < len(args):
            patterns.append(args[i + 1])
            i += 2
            continue
        if a.startswith("-") and len(a) > 1 and not patterns and not files:
            flags.update(a[1:])
        elif not patterns and "e" not in flags:
            patterns.append(a)
        else:
            files.append(a)
        i += 1
    if not patterns:
        ctx.error("usage: grep [-civqEF] PATTERN [FILE...]")
        return 2
    re_flags = re.IGNORECASE if "i" in flags else 0
    if "F" in flags:
        regexes = [re.compile(re.escape(p), re_flags) for p in patterns]
    else:
        # Basic regex: `\|` is alternation; -E treats `|` that way natively.
        regexes = [re.compile(p if "E" in flags else p.replace(r"\|", "|"), re_flags) for p in patterns]
    data = b"" if files else await ctx.read_stdin()
    if files:
        parts = []
        for f in files:
            content = ctx.phone.files.read(f)
            if content is None:
                ctx.error(f"grep: {f}: No such file or directory")
                continue
            parts.append(content)
        data = b"".join(parts)
    text = data.decode("utf-8", errors="replace")
    hits = [line for line in text.splitlines() if any(r.search(line) for r in regexes) != ("v" in flags)]
    if "q" in flags:
        return 0 if hits else 1
    if "c" in flags:
        ctx.print(f"{len(hits)}\n")
    else:
        ctx.print("".join(h + "\n" for h in hits))
    return 0 if hits else 1


@command("export")
async def export(ctx: Ctx) -> int:
    # The shell keeps what `export` set for the lines after it (mika/sim/shell/interp.py).
    for arg in ctx.args[1:]:
        name, eq, value = arg.partition("=")
        if eq:
            ctx.env[name] = value
    return 0


@command("exec", "nohup")
async def exec_(ctx: Ctx) -> int:
    """`exec CMD` and `nohup CMD` run CMD in this shell (the sim has no process to
    replace, and no hangup to ignore)."""
    if len(ctx.args) < 2:
        return 0
    target = lookup(ctx.args[1])
    if target is None:
        ctx.error(f"{ctx.args[0]}: {ctx.args[1]}: inaccessible or not found")
        return 127
    ctx.args = ctx.args[1:]
    return await target(ctx)


def _line_count(ctx: Ctx, default: int = 10) -> tuple[int, list[str]]:
    args = ctx.args[1:]
    count = default
    files: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-n" and i + 1 < len(args):
            count = int(args[i + 1].lstrip("+"))
            i += 2
            continue
        if a.startswith("-") and a[1:].isdigit():
            count = int(a[1:])
        elif a.startswith("-n") and a[2:].isdigit():
            count = int(a[2:])
        else:
            files.append(a)
        i += 1
    return count, files


async def _input_lines(ctx: Ctx, files: list[str]) -> list[bytes] | None:
    if not files:
        return (await ctx.read_stdin()).splitlines(keepends=True)
    data = ctx.phone.files.read(files[0])
    if data is None:
        ctx.error(f"{ctx.name}: {files[0]}: No such file or directory")
        return None
    return data.splitlines(keepends=True)


@command("head")
async def head(ctx: Ctx) -> int:
    count, files = _line_count(ctx)
    lines = await _input_lines(ctx, files)
    if lines is None:
        return 1
    ctx.out.write(b"".join(lines[:count]))
    return 0


@command("tail")
async def tail(ctx: Ctx) -> int:
    count, files = _line_count(ctx)
    lines = await _input_lines(ctx, files)
    if lines is None:
        return 1
    ctx.out.write(b"".join(lines[-count:] if count else []))
    return 0
