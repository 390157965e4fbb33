"""File commands over the phone's in-memory file system (toybox wording)."""

from __future__ import annotations

import hashlib
import time

from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command, lookup


def _split_flags(args: list[str]) -> tuple[set[str], list[str]]:
    flags: set[str] = set()
    rest: list[str] = []
    for a in args:
        if a.startswith("-") and len(a) > 1 and not rest:
            flags.update(a[1:])
        else:
            rest.append(a)
    return flags, rest


@command("cat")
async def cat(ctx: Ctx) -> int:
    _, paths = _split_flags(ctx.args[1:])
    if not paths:
        ctx.out.write(await ctx.read_stdin())
        return 0
    code = 0
    for p in paths:
        data = ctx.phone.virtual_file(p)
        if data is None:
            data = ctx.phone.files.read(p)
        if data is None:
            what = "Is a directory" if ctx.phone.files.is_dir(p) else "No such file or directory"
            ctx.error(f"cat: {p}: {what}")
            code = 1
            continue
        ctx.out.write(data)
    return code


def _long(name: str, mode: int, size: int, mtime: int) -> str:
    kind = "d" if mode & 0o170000 == 0o040000 else "-"
    bits = "".join(ch if mode & (1 << (8 - i)) else "-" for i, ch in enumerate("rwxrwxrwx"))
    stamp = time.strftime("%Y-%m-%d %H:%M", time.gmtime(mtime))
    return f"{kind}{bits} 1 shell shell {size:>8} {stamp} {name}\n"


@command("ls")
async def ls(ctx: Ctx) -> int:
    flags, paths = _split_flags(ctx.args[1:])
    files = ctx.phone.files
    code = 0
    for p in paths or ["/"]:
        st = files.stat(p)
        if st is None:
            ctx.error(f"ls: {p}: No such file or directory")
            code = 1
            continue
        entries = files.list(p) if files.is_dir(p) and "d" not in flags else [(p, st)]
        if "a" not in flags:
            entries = [(n, s) for n, s in entries if not n.startswith(".")]
        for name, s in entries:
            ctx.print(_long(name, s.mode, s.size, s.mtime) if "l" in flags else name + "\n")
    return code


@command("rm")
async def rm(ctx: Ctx) -> int:
    flags, paths = _split_flags(ctx.args[1:])
    code = 0
    for p in paths:
        problem = ctx.phone.files.remove(p, recursive="r" in flags or "R" in flags)
        if problem and not ("f" in flags and "No such file" in problem):
            ctx.error(problem)
            code = 1
    return code


@command("mkdir")
async def mkdir(ctx: Ctx) -> int:
    flags, paths = _split_flags(ctx.args[1:])
    code = 0
    for p in paths:
        problem = ctx.phone.files.mkdir(p, parents="p" in flags)
        if problem:
            ctx.error(problem)
            code = 1
    return code


@command("touch")
async def touch(ctx: Ctx) -> int:
    _, paths = _split_flags(ctx.args[1:])
    for p in paths:
        if not ctx.phone.files.exists(p):
            ctx.phone.files.put(p, b"")
    return 0


@command("md5sum", "md5")
async def md5sum(ctx: Ctx) -> int:
    _, paths = _split_flags(ctx.args[1:])
    if not paths:
        ctx.print(f"{hashlib.md5(await ctx.read_stdin()).hexdigest()}  -\n")
        return 0
    code = 0
    for p in paths:
        data = ctx.phone.files.read(p)
        if data is None:
            ctx.error(f"md5sum: {p}: No such file or directory")
            code = 1
            continue
        ctx.print(f"{hashlib.md5(data).hexdigest()}  {p}\n")
    return code


@command("toybox")
async def toybox(ctx: Ctx) -> int:
    if len(ctx.args) < 2:
        ctx.print("acpi base64 basename cat chmod cp date df du echo grep id ls md5sum mkdir rm sleep touch\n")
        return 0
    sub = lookup(ctx.args[1])
    if sub is None:
        ctx.error(f"toybox: Unknown command {ctx.args[1]}")
        return 1
    ctx.args = ctx.args[1:]
    return await sub(ctx)


def _target(ctx: Ctx, src: str, dest: str) -> str:
    # `mv a dir/` and `cp a dir` put the file inside the directory, as toybox does.
    if ctx.phone.files.is_dir(dest):
        return dest.rstrip("/") + "/" + src.rstrip("/").rsplit("/", 1)[-1]
    return dest


def _copy_file(ctx: Ctx, src: str, dest: str) -> bool:
    st = ctx.phone.files.stat(src)
    data = ctx.phone.files.read(src)
    if st is None or data is None:
        return False
    ctx.phone.files.write(dest, data, st.mode, st.mtime)
    return True


@command("mv")
async def mv(ctx: Ctx) -> int:
    """Files only (-f, -n accepted): clients push a file beside its place and move it
    in, so a half-pushed file is never run (mobilecli does this with its helper dex)."""
    flags, paths = _split_flags(ctx.args[1:])
    if len(paths) < 2:
        ctx.error("mv: Needs 2 arguments")
        return 1
    *sources, dest = paths
    code = 0
    for src in sources:
        to = _target(ctx, src, dest)
        if not ctx.phone.files.exists(src):
            ctx.error(f"mv: {src}: No such file or directory")
            code = 1
            continue
        if ctx.phone.files.is_dir(src):
            ctx.error(f"mv: {src}: Is a directory")
            code = 1
            continue
        if "n" in flags and ctx.phone.files.exists(to):
            continue
        _copy_file(ctx, src, to)
        ctx.phone.files.remove(src)
    return code


@command("cp")
async def cp(ctx: Ctx) -> int:
    _, paths = _split_flags(ctx.args[1:])
    if len(paths) < 2:
        ctx.error("cp: Needs 2 arguments")
        return 1
    *sources, dest = paths
    code = 0
    for src in sources:
        if ctx.phone.files.is_dir(src):
            ctx.error(f"cp: Skipped dir '{src}'")
            code = 1
        elif not _copy_file(ctx, src, _target(ctx, src, dest)):
            ctx.error(f"cp: {src}: No such file or directory")
            code = 1
    return code
