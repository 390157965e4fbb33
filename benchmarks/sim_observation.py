"""Cost of one observation on the simulated phone: `uiautomator dump` + `screencap -p`,
through a real adb server (the adb bundled with adbutils, on a private port), and the
same work in-process (the world's own cost, without the wire).

    uv run python benchmarks/sim_observation.py [ROUNDS]

Prints a table of milliseconds per call. For scale: on real phones `uiautomator dump`
typically takes 1–3 s and `exec-out screencap -p` 0.3–1.5 s (figures commonly reported
for mid-range devices; not measured here).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._sim_bench import bench_phone


def _measure(fn: Callable[[], object], rounds: int) -> tuple[list[float], int]:
    fn()  # warm up (font load, first frame)
    times = []
    size = 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1000)
        size = out if isinstance(out, int) else len(out) if isinstance(out, (bytes, str)) else 0
    return times, size


def _row(name: str, times: list[float], size: int) -> str:
    times = sorted(times)
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    return f"{name:<44} {statistics.mean(times):>8.1f} {statistics.median(times):>8.1f} {p95:>8.1f} {size:>10}"


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    from mika.sim.phone import make_device

    rows = []
    with bench_phone("default") as bench:
        dev = bench.client.device(bench.serial)
        dev.shell("am start -n com.android.contacts/.activities.PeopleActivity")

        def dump() -> str:
            return dev.shell("uiautomator dump /dev/tty")

        def shot() -> bytes:
            return dev.shell("screencap -p", encoding=None)

        def both_changed() -> int:
            # a fresh frame each time (scrolling), so nothing comes from the frame cache
            dev.shell("input swipe 540 1800 540 1500 100")
            return len(dump()) + len(shot())

        rows.append(_row("adb: uiautomator dump /dev/tty", *_measure(dump, rounds)))
        rows.append(_row("adb: screencap -p (same frame, cached)", *_measure(shot, rounds)))
        rows.append(_row("adb: swipe + dump + screencap (new frame)", *_measure(both_changed, rounds)))
        rows.append(_row("adb: echo (wire round trip only)", *_measure(lambda: dev.shell("echo ok"), rounds)))

    phone = make_device("bench")

    class _Sink:
        closed = False

        def __init__(self) -> None:
            self.out = bytearray()

        async def read(self) -> bytes:
            return b""

        async def write(self, data: bytes) -> None:
            self.out += data

    def run(command: str) -> bytes:
        sink = _Sink()
        asyncio.run(phone.run_shell(command, sink))
        return bytes(sink.out)

    run("am start -n com.android.contacts/.activities.PeopleActivity")

    def local_new_frame() -> int:
        run("input swipe 540 1800 540 1500 100")
        return len(run("uiautomator dump /dev/tty")) + len(run("screencap -p"))

    rows.append(_row("in-process: swipe + dump + screencap", *_measure(local_new_frame, rounds)))
    print(f"{'operation (' + str(rounds) + ' rounds)':<44} {'mean ms':>8} {'p50 ms':>8} {'p95 ms':>8} {'bytes':>10}")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
