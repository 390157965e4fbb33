"""Launch to first paint, timed from just before the interpreter is spawned (the child
reports instants on the same monotonic clock), with and without bytecode (see
benchmarks/_process_clock.py), headless Textual driver at 120×40.

Two launches:
- "bench app": the app on fixed deps; the sim's picture is rendered once by this parent
  and handed in as PNG bytes, so the child does not pay for rendering it;
- "real, --device sim": `build_deps` as `mika` does it — the real lenient assembly, a
  scripted model, the simulated phone started in-process (attached in the background) on
  this benchmark's private adb server, frames grabbed over adb. "device chosen" is when
  build_deps returns (the phone is picked there); the first frame is also shown from then.

Targets (issue 16): first paint ≤ 500 ms, first phone frame ≤ 1000 ms after the device is
chosen. `--baseline-tree DIR` (an export of older code: `git archive COMMIT | tar -x -C
DIR`) runs the real launch on that code too, round by round with the new one; else the
issue's figure (6–14 s on a cold first start) is the baseline.

    uv run python benchmarks/tui_first_paint.py [--rounds N] [--baseline-tree DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _process_clock import STATES, PycacheStates

ROOT = Path(__file__).resolve().parents[1]
COLD = "BENCH_ADB_COLD"  # a marker in a launch's settings, not read by the child

BENCH_CHILD = r"""
import asyncio, sys, time
sys.path.insert(0, {root!r})
from benchmarks._tui_bench_app import make_app
png = open({png!r}, "rb").read()
app = make_app(frames=[png])
t_chosen = time.perf_counter()
async def main():
    async with app.run_test(size=(120, 40)):
        t_paint = time.perf_counter()  # run_test hands over once the first screen is up
        from mika_tui.widgets.preview import PhonePreview
        await app.screen.query_one(PhonePreview).wait_frames(1)
        print(t_chosen, t_paint, time.perf_counter())
asyncio.run(main())
"""

REAL_CHILD = r"""
import asyncio, sys, time
from mika.config.settings import load_settings
from mika_tui.launch import build_deps
from mika_tui.app import MikaApp
deps, cleanup = build_deps(load_settings(None), device="sim", model={model!r}, graphics="halfcell")
t_chosen = time.perf_counter()
app = MikaApp(deps)
app.animation_level = "none"
async def main():
    async with app.run_test(size=(120, 40)):
        t_paint = time.perf_counter()  # run_test hands over once the first screen is up
        from mika_tui.widgets.preview import PhonePreview
        await app.screen.query_one(PhonePreview).wait_frames(1)
        print(t_chosen, t_paint, time.perf_counter())
try:
    asyncio.run(main())
finally:
    cleanup()
"""


def _sim_png(path: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks._tui_bench_app import sim_png

    path.write_bytes(sim_png())


def _launch(code: str, env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        stdin=subprocess.DEVNULL,
        cwd=cwd,  # not this tree: `-c` puts the working directory first on sys.path
    )
    if out.returncode != 0:
        sys.exit(out.stderr[-3000:])
    chosen, paint, frame = (float(x) for x in out.stdout.split()[-3:])
    return (chosen - t0) * 1000, (paint - t0) * 1000, (frame - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline-tree", type=Path, default=None, help="an export of the old code")
    args = ap.parse_args()
    rounds, tree = args.rounds, args.baseline_tree
    sys.path.insert(0, str(ROOT))
    from startup import _free_port

    from mika.sim.launch import bundled_adb

    work = Path(tempfile.mkdtemp(prefix="mika-first-paint-"))
    adb, adb_port = bundled_adb(), _free_port()
    subprocess.run([adb, "-P", str(adb_port), "start-server"], check=True, capture_output=True, timeout=60)
    try:
        png = work / "sim.png"
        _sim_png(png)
        script = work / "script.json"
        script.write_text('["ok"]')
        (work / "cfg").mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
        env.update(
            XDG_CONFIG_HOME=str(work / "cfg"),
            MIKA_STATE_DIR=str(work / "state"),
            ANDROID_ADB_SERVER_PORT=str(adb_port),
            ADB_MDNS="0",
        )
        bench = BENCH_CHILD.format(root=str(ROOT), png=str(png))
        real = REAL_CHILD.format(model=f"script:{script}")
        old = {"PYTHONPATH": str(tree)}
        launches = [("bench app", bench, work / "new", {}), ("real, --device sim", real, work / "new", {})]
        if tree is not None:
            launches.append(("real, baseline tree", real, work / "old", old))
        # With no adb server running (the app starts one): the cold first start.
        launches.append(("real, adb cold", real, work / "new", {COLD: "1"}))
        if tree is not None:
            launches.append(("real, adb cold, baseline", real, work / "old", {**old, COLD: "1"}))
        caches: dict[Path, PycacheStates] = {}
        warmed: set[tuple[Path, str]] = set()
        for _, code, where, extra in launches:
            where.mkdir(exist_ok=True)
            child_env = {**env, **{k: v for k, v in extra.items() if k != COLD}}
            caches[where] = caches.get(where) or PycacheStates(where, child_env)
            if (where, code) not in warmed:
                warmed.add((where, code))
                caches[where].warm([sys.executable, "-c", code])
        rows = []
        for state in STATES:
            runs: list[list] = [[] for _ in launches]
            for _ in range(rounds):  # round by round, so the machine's load falls on all alike
                for i, (_, code, where, extra) in enumerate(launches):
                    if extra.get(COLD):
                        subprocess.run([adb, "-P", str(adb_port), "kill-server"], capture_output=True, timeout=30)
                    runs[i].append(_launch(code, caches[where].env_for(state), where))
                    if extra.get(COLD):  # the warm launches find it running again
                        subprocess.run([adb, "-P", str(adb_port), "start-server"], capture_output=True, timeout=60)
            rows += [(launch[0], state, r) for launch, r in zip(launches, runs, strict=True)]
    finally:
        subprocess.run([adb, "-P", str(adb_port), "kill-server"], capture_output=True, timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"TUI launch, ms from process spawn; {rounds} launches each; load average {os.getloadavg()[0]:.1f}; "
        "baseline: issue 16 (6-14 s cold first start)"
    )
    head = f"{'launch':<26}{'state':>10}{'measure':>34}{'median':>9}{'min':>9}{'max':>9}{'target':>8}{'ok':>5}"
    print(head)
    for launch, state, runs in rows:
        chosen = [r[0] for r in runs]
        paint = [r[1] - r[0] for r in runs]
        frame = [r[2] - r[0] for r in runs]
        for name, vals, target in (
            ("device chosen (from spawn)", chosen, None),
            ("first paint after chosen", paint, 500),
            ("first phone frame after chosen", frame, 1000),
            ("first phone frame (from spawn)", [r[2] for r in runs], None),
        ):
            med = statistics.median(vals)
            ok = ("yes" if med <= target else "NO") if target else ""
            print(
                f"{launch:<26}{state:>10}{name:>34}{med:>9.0f}{min(vals):>9.0f}{max(vals):>9.0f}"
                f"{target or '':>8}{ok:>5}"
            )


if __name__ == "__main__":
    main()
