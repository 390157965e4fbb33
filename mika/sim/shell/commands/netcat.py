"""`nc HOST PORT` (toybox netcat, client side only): what inside the phone reaches a port
`adb reverse` leads to the host. Its input goes out, then what comes back is printed
until the other end closes (or, with `-q SECS`, for that long after the input ended).
A port nothing in the phone listens on is refused, as connect() would be."""

from __future__ import annotations

import asyncio

from mika.sim.device import HostStream
from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command

_LOOPBACK = ("localhost", "127.0.0.1", "::1", "ip6-localhost")
_USAGE = "usage: nc [-46Ulnu] [-pqWw #] [-s addr] {host port|-l|-L command...}"


@command("nc", "netcat")
async def nc(ctx: Ctx) -> int:
    args = ctx.args[1:]
    quit_after: float | None = None
    unix = False
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-q" and i + 1 < len(args):
            quit_after = float(args[i + 1])
            i += 2
            continue
        if a == "-U":
            unix = True
        elif a.startswith("-"):
            ctx.error(f"nc: option {a} is not simulated\n{_USAGE}")
            return 1
        else:
            rest.append(a)
        i += 1
    if unix and len(rest) == 1 and rest[0].startswith("@"):
        target = f"localabstract:{rest[0][1:]}"  # toybox: a leading @ is the abstract namespace
    elif not unix and len(rest) == 2 and rest[1].isdigit():
        if rest[0] not in _LOOPBACK:
            ctx.error("nc: connect: Network is unreachable")
            return 1
        target = f"tcp:{int(rest[1])}"
    else:
        ctx.error(_USAGE)
        return 1
    connect = ctx.phone.reverse_targets.get(target)
    stream = await connect() if connect is not None else None
    if stream is None:
        ctx.error("nc: connect: Connection refused")
        return 1
    try:
        data = await ctx.read_stdin()
        if data:
            await stream.write(data)
        await _copy_back(ctx, stream, quit_after)
    finally:
        await stream.close()
    return 0


async def _copy_back(ctx: Ctx, stream: HostStream, quit_after: float | None) -> None:
    while True:
        try:
            chunk = await (stream.read() if quit_after is None else asyncio.wait_for(stream.read(), quit_after))
        except TimeoutError:
            return
        if not chunk:
            return
        ctx.out.write(chunk)
        await ctx.out.flush()  # a long conversation streams, as a pipe would
