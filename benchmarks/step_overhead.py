"""What a step costs besides the model: Mika's time per step against the bare device calls.

A 40-step scripted run on the simulated phone (real TaskRun, real phone capability, a
real adb server on a free port): open Clock, then tap Timer and Alarm in turn. The
scripted model answers at once, so everything between one reply and the next request is
Mika's: the lock check, finding the target, the input, settling, judging the effect,
the listing, recording, building the next request.

In the same run, on the same phone and connection, the bare calls such a step needs —
one dump and one input (`AdbPort.dump_hierarchy` + `AdbPort.tap`) — are timed directly,
and their median is the yardstick. The run is made twice: with the old settle (a fixed
0.25 s poll, two equal reads, a fresh read for every lock check — exactly what a paced
run still does) and with the new one (evidence-based; since issue 32 no read is reused
by the clock, the lock check reads the screen the input lands on), so the baseline sits beside the figure.

    uv run python benchmarks/step_overhead.py [--steps 40] [--backend dump|u2] [--rounds 1]

Targets (issue 16, target 1): median ≤ 120 ms and ≤ 1.3× the bare calls.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._sim_bench import bench_phone
from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply
from tests.phone.driver import current_listing, number_for

TARGET_MS = 120.0
TARGET_RATIO = 1.3


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Script:
    """Launch Clock, then tap Timer / Alarm in turn by the numbers of the latest listing;
    times the gap between each reply and the next request (all of it Mika's)."""

    def __init__(self, steps: int) -> None:
        self.left = steps
        self.results: list[str] = []
        self.entered: list[float] = []
        self.left_at: list[float] = []
        self.model = FunctionModel(self.reply)

    def reply(self, request) -> Reply | str:
        self.entered.append(time.perf_counter())
        for part in request.messages[-1].parts if request.messages else ():
            if isinstance(part, ToolResult):
                self.results.append(part.text)
        try:
            if not self.results:
                return Reply.call("phone_launch_app", app="时钟")
            if self.left <= 0:
                return "done"
            self.left -= 1
            listing = current_listing(self.results)  # a delta is read over its base
            label = "Timer" if self.left % 2 else "Alarm"
            return Reply.call("phone_tap", element=number_for(listing, label, role="button"))
        finally:
            self.left_at.append(time.perf_counter())

    def step_gaps_ms(self) -> list[float]:
        # Gap i: from the reply that asked for tap i to the request that brings its result.
        # The first (launch) is left out: it opens an app, not a step like the others.
        return [(self.entered[i + 1] - self.left_at[i]) * 1000 for i in range(1, len(self.entered) - 1)]


async def _mika_run(serial: str, client, backend: str, steps: int, old: bool, tmp: Path) -> dict:
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.cap.phone import PhoneCapability
    from mika.cap.phone.adb.port import AdbPort
    from mika.cap.phone.surface import PACED_POLL_S
    from mika.run.task_run import RunOptions, TaskRun
    from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec

    port = AdbPort(serial, client, backend=backend)
    cap = PhoneCapability(port)
    if old:
        # The old constants: the paced settle is the old one (0.25 s poll, two equal reads).
        cap.surface.paced = True
        cap.surface.poll_s = PACED_POLL_S
    dumps = [0]
    device_s = [0.0]  # time inside the port's device calls, to split a step into device / Mika
    inner = port.dump_hierarchy

    async def counted(display: int) -> str:
        dumps[0] += 1
        return await inner(display)

    port.dump_hierarchy = counted  # type: ignore[method-assign]
    for name in ("dump_hierarchy", "foreground", "tap", "shell", "info"):
        setattr(port, name, _timed(getattr(port, name), device_s))
    script = Script(steps)
    spec = RunSpec(goal="tap through Clock", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    caps = capabilities_for(spec, RunEnvironment(extra=[cap]))
    run = TaskRun(spec, script.model, caps, RunOptions(pacing=False, state_dir=tmp))
    dumps_at: list[int] = []
    device_at: list[float] = []
    reply = script.reply

    def counting_reply(request):
        dumps_at.append(dumps[0])
        device_at.append(device_s[0])
        return reply(request)

    script.model.fn = counting_reply
    await run.run()
    effects = [line for r in script.results for line in r.splitlines() if line.startswith("Effect:")]
    if len(effects) != steps + 1 or any("no_effect" in e for e in effects):
        raise SystemExit(f"the scripted run went wrong ({len(effects)} effects for {steps + 1} steps): {effects[-3:]}")
    per_step_dumps = [dumps_at[i + 1] - dumps_at[i] for i in range(1, len(dumps_at) - 1)]
    device_ms = [(device_at[i + 1] - device_at[i]) * 1000 for i in range(1, len(device_at) - 1)]
    return {
        "gaps": script.step_gaps_ms(),
        "dumps": per_step_dumps,
        "device": device_ms,
    }


def _timed(fn, total: list[float]):
    async def timed(*a, **k):
        t0 = time.perf_counter()
        try:
            return await fn(*a, **k)
        finally:
            total[0] += time.perf_counter() - t0

    return timed


async def _bare(serial: str, client, backend: str, steps: int) -> list[float]:
    """One dump + one tap per step, straight through the port Mika uses."""
    from mika.cap.phone.adb.port import AdbPort
    from mika.uistate import build_screen, parse_hierarchy

    port = AdbPort(serial, client, backend=backend)
    screen = build_screen(parse_hierarchy(await port.dump_hierarchy(0)))
    points = {}
    for e in screen.elements:
        if e.label in ("Timer", "Alarm"):
            points[e.label] = e.centre
    if len(points) != 2:
        raise SystemExit(f"Clock is not showing Timer and Alarm: {sorted(points)}")
    out = []
    for i in range(steps):
        x, y = points["Timer" if i % 2 else "Alarm"]
        t0 = time.perf_counter()
        await port.tap(0, x, y)
        await port.dump_hierarchy(0)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--backend", choices=("dump", "u2"), default="dump")
    parser.add_argument("--rounds", type=int, default=1, help="runs per settle (old, new) — steps pooled")
    args = parser.parse_args()
    pooled: dict[str, dict[str, list]] = {
        k: {"gaps": [], "dumps": [], "bare": [], "device": []} for k in ("old", "new")
    }
    with bench_phone() as sim:
        client = sim.client
        dev = client.device(sim.serial)
        for _ in range(args.rounds):
            for mode in ("old", "new"):  # paired: the same phone, one after the other
                dev.shell("simctl reset")
                with tempfile.TemporaryDirectory() as tmp:
                    got = asyncio.run(_mika_run(sim.serial, client, args.backend, args.steps, mode == "old", Path(tmp)))
                pooled[mode]["gaps"] += got["gaps"]
                pooled[mode]["dumps"] += got["dumps"]
                pooled[mode]["device"] += got["device"]
                # The bare calls right after, Clock still open on the same phone.
                pooled[mode]["bare"] += asyncio.run(_bare(sim.serial, client, args.backend, args.steps))

    print(
        f"{args.rounds} run(s) × {args.steps} steps per settle, backend {args.backend}, scripted model answering at once"
    )
    print("device ms: inside the port's calls (dump, foreground, tap, …) in a step; Mika-only: the rest of the step")
    head = (
        f"{'settle':<6} {'Mika median ms':>14} {'p90 ms':>7} {'bare dump+tap ms':>16} {'ratio':>6}"
        f" {'dumps/step':>10} {'device ms':>9} {'Mika-only ms':>12}"
    )
    print(head)
    print("-" * len(head))
    rows = {}
    for mode in ("old", "new"):
        p = pooled[mode]
        med, p90, bare = statistics.median(p["gaps"]), _pct(p["gaps"], 0.9), statistics.median(p["bare"])
        own = [g - d for g, d in zip(p["gaps"], p["device"], strict=True)]
        rows[mode] = (med, bare)
        print(
            f"{mode:<6} {med:>14.1f} {p90:>7.1f} {bare:>16.1f} {med / bare:>5.2f}×"
            f" {statistics.mean(p['dumps']):>10.2f}"
            f" {statistics.median(p['device']):>9.1f} {statistics.median(own):>12.1f}"
        )
    (old_med, _), (new_med, new_bare) = rows["old"], rows["new"]
    print(f"\nnew / old median: {new_med / old_med:.2f}  (old {old_med:.0f} ms → new {new_med:.0f} ms)")
    ok_ms = new_med <= TARGET_MS
    ok_ratio = new_med / new_bare <= TARGET_RATIO
    print(
        f"target: median ≤ {TARGET_MS:.0f} ms {'met' if ok_ms else 'NOT met'}; "
        f"≤ {TARGET_RATIO}× the bare calls {'met' if ok_ratio else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
