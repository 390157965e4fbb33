"""`screenrecord [--time-limit S] [--size WxH] [--bit-rate R] [--verbose] FILE.mp4`: one process.

As Android 14's screenrecord: it records the main display until the time limit (180 s
unless told; 0 is none), a signal (`kill -INT`, which is how mobilecli stops it, after
finding it with `pgrep -f FILE`) or its shell going away, and only then writes the MP4
with its index. It prints nothing unless --verbose.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import weakref
from typing import TYPE_CHECKING

from mika.sim.apps.frame import build_frame
from mika.sim.render.recording import Mp4Recorder
from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command

if TYPE_CHECKING:
    from mika.sim.world.phone_state import PhoneState

DEFAULT_TIME_LIMIT = 180
LOOK_EVERY = 0.1  # seconds between looks at the display for a changed picture
REPEAT_AFTER = 1.0  # a frame at least this often, as the virtual display repeats one
USAGE = """Usage: screenrecord [options] <filename>

Android screenrecord v1.3.  Records the device's display to a .mp4 file.

Options:
--size WIDTHxHEIGHT
    Set the video size, e.g. "1280x720".  Default is the device's main
    display resolution (if supported), 1280x720 if not.  For best results,
    use a size supported by the AVC encoder.
--bit-rate RATE
    Set the video bit rate, in bits per second.  Value may be specified as
    bits or megabits, e.g. '4000000' is equivalent to '4M'.  Default 20Mbps.
--time-limit TIME
    Set the maximum recording time, in seconds.  Default is 180. Set to 0
    to remove the limit.
--verbose
    Display interesting information on stdout.
--help
    Show this message.

Recording continues until Ctrl-C is hit or the time limit is reached.
"""
_pids = itertools.count(8101)


class ScreenRecord:
    def __init__(self, command_line: str) -> None:
        self.pid = next(_pids)
        self.command_line = command_line
        self.stopped = asyncio.Event()
        self.frames = 0  # encoded so far (a test waits on it rather than on the clock)

    def kill(self) -> None:
        self.stopped.set()  # SIGINT / SIGTERM / SIGHUP: all end the recording cleanly


_running: weakref.WeakKeyDictionary[PhoneState, dict[int, ScreenRecord]] = weakref.WeakKeyDictionary()


def running(phone: PhoneState) -> dict[int, ScreenRecord]:
    """The screenrecord processes alive on this phone, by pid (for ps / pgrep / kill)."""
    return _running.setdefault(phone, {})


def _even(n: int) -> int:
    return n - n % 2


@command("screenrecord")
async def screenrecord(ctx: Ctx) -> int:
    args = ctx.args[1:]
    limit, size, verbose, path = DEFAULT_TIME_LIMIT, None, False, None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--help":
            ctx.print(USAGE)
            return 0
        if a == "--verbose":
            verbose = True
        elif a in ("--time-limit", "--size", "--bit-rate", "--display-id") and i + 1 < len(args):
            value = args[i + 1]
            if a == "--time-limit":
                if not value.isdigit():
                    ctx.error(f"Invalid time limit '{value}'")
                    return 2
                limit = int(value)
            elif a == "--size":
                w, _, h = value.partition("x")
                if not (w.isdigit() and h.isdigit()):
                    ctx.error(f"Invalid size '{value}', must be width x height")
                    return 2
                size = (_even(int(w)), _even(int(h)))
            i += 1
        elif a.startswith("-"):
            ctx.error(f"Unknown option {a}\n{USAGE}")
            return 2
        else:
            path = a
        i += 1
    if path is None:
        ctx.error("Must specify output file (see --help).")
        return 2
    world = ctx.phone.world
    display = world.displays[0]
    width, height = size or (_even(display.size[0]), _even(display.size[1]))
    recorder = await asyncio.to_thread(Mp4Recorder, width, height)
    proc = ScreenRecord(" ".join(ctx.args))
    table = running(ctx.phone)
    table[proc.pid] = proc
    if verbose:
        ctx.print(f"Main display is {display.size[0]}x{display.size[1]} @60.00fps (orientation=ROTATION_0)\n")
        ctx.print(f"Configuring recorder for {width}x{height} video/avc at 20.00Mbps\n")
        await ctx.out.flush()
    start = time.monotonic()
    deadline = start + limit if limit > 0 else None
    last_windows: object = None
    last_shown = -REPEAT_AFTER
    try:
        while not proc.stopped.is_set():
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                if verbose:
                    ctx.print("Time limit reached\n")
                break
            if ctx.stream is not None and ctx.stream.closed:
                break  # SIGHUP: the adb shell went away
            windows = build_frame(world, 0)
            if windows is not last_windows or now - start - last_shown >= REPEAT_AFTER:
                lit = display.lit(world.screen_on)
                at_ms = int((now - start) * 1000)
                await asyncio.to_thread(recorder.add, windows, display.size, lit, at_ms)
                last_windows, last_shown = windows, now - start
                proc.frames += 1
            try:
                await asyncio.wait_for(proc.stopped.wait(), timeout=LOOK_EVERY)
            except TimeoutError:
                pass
    finally:
        table.pop(proc.pid, None)
        data = await asyncio.to_thread(recorder.finish)
        ctx.phone.memfiles.put(path, data)
    if verbose:
        ctx.print(f"Wrote {recorder.frames} frames to {path}\n")
    return 0
