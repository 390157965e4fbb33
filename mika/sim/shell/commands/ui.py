"""`uiautomator dump` and `screencap`, from the same frame the display shows."""

from __future__ import annotations

import hashlib

from mika.sim.apps.frame import build_frame
from mika.sim.render.screen import png_bytes, raw_bytes, render
from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command
from mika.sim.world.hierarchy import dump_plain
from mika.sim.world.world import World

PHYSICAL_ID_BASE = 4619827259835644672


def screenshot(world: World, display_id: int, fmt: str) -> bytes:
    """PNG or raw bytes of a display; cached per frame since pixels change only with it."""
    windows = build_frame(world, display_id)
    display = world.displays[display_id]
    lit = display.lit(world.screen_on)  # a powered-off display captures black
    key = (id(windows), lit, fmt)
    cache = world.shot_cache
    hit = cache.get(display_id)
    if hit and hit[0] == key:
        return hit[1]
    image = render(windows, display.size, lit)
    data = png_bytes(image) if fmt == "png" else raw_bytes(image)
    cache[display_id] = (key, data)
    return data


def corrupt(data: bytes) -> bytes:
    """A capture mangled on the way (like a PowerShell redirect): not a valid PNG any more."""
    digest = hashlib.md5(data).digest()
    return b"\xff\xfe" + data[: len(data) // 3].replace(b"\n", b"\r\n") + digest


@command("uiautomator")
async def uiautomator(ctx: Ctx) -> int:
    args = ctx.args[1:]
    world = ctx.phone.world
    if not args or args[0] != "dump":
        ctx.print(
            "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
            "help: displays help message\n\n"
            "dump: creates an XML dump of current UI hierarchy\n"
            "    dump [--verbose][file]\n      [--compressed]: dumps compressed layout information.\n"
            "      [file]: the location where the dumped XML should be stored, default is\n"
            "      /sdcard/window_dump.xml\n\nevents: prints out accessibility events until terminated\n"
        )
        return 0 if not args else 1
    target = "/sdcard/window_dump.xml"
    for a in args[1:]:
        if not a.startswith("--"):
            target = a
    if world.take_fault("null_root"):
        ctx.error("ERROR: null root node returned by UiTestAutomationBridge.")
        return 0
    if world.take_fault("idle_timeout"):
        ctx.error("ERROR: could not get idle state.")
        return 0
    xml = dump_plain(build_frame(world, 0), world.displays[0].rotation, compressed="--compressed" in args)
    world.note_dump()
    if world.take_fault("bad_xml"):
        xml = xml[: len(xml) * 2 // 3]  # cut mid-element, as a dump killed half way
    if target in ("/dev/tty", "/dev/stdout", "/proc/self/fd/1"):
        ctx.print(xml)
        ctx.print(f"UI hierchary dumped to: {target}\n")
        return 0
    ctx.phone.memfiles.put(target, xml.encode("utf-8"))
    ctx.print(f"UI hierchary dumped to: {target}\n")
    return 0


@command("screencap")
async def screencap(ctx: Ctx) -> int:
    args = ctx.args[1:]
    world = ctx.phone.world
    png = False
    display_id = 0
    target = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-p":
            png = True
        elif a == "-d" and i + 1 < len(args):
            try:
                display_id = int(args[i + 1])
            except ValueError:
                ctx.error(f"Invalid display id: {args[i + 1]}")
                return 1
            i += 1
        elif a == "-h":
            ctx.print(
                "usage: screencap [-hp] [-d display-id] [FILENAME]\n   -h: this message\n   -p: save the file as a png.\n   -d: specify the display ID to capture (default: 0)\n"
            )
            return 0
        elif not a.startswith("-"):
            target = a
        i += 1
    # -d takes the SurfaceFlinger (physical) id that `dumpsys SurfaceFlinger --display-id` lists,
    # and, as on many phones, the logical id too.
    if display_id >= PHYSICAL_ID_BASE:
        display_id -= PHYSICAL_ID_BASE
    if display_id not in world.displays:
        ctx.error(f"Display Id '{args[args.index('-d') + 1] if '-d' in args else display_id}' is not valid.")
        return 1
    if target is not None and target.endswith(".png"):
        png = True
    data = screenshot(world, display_id, "png" if png else "raw")
    if world.take_fault("bad_png"):
        data = corrupt(data)
    if target is None:
        ctx.out.write(data)
    else:
        ctx.phone.memfiles.put(target, data)
    return 0
