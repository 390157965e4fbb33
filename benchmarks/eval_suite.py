"""`mika eval` with reference solutions: wall time and tokens per task, serial and with
--parallel 2, through a private adb server (the adb bundled with adbutils, own port).

    uv run python benchmarks/eval_suite.py [--suite all|FILE] [--parallel 2]

Each task run is two processes (its simulated phone, `mika sim --port 0`, and the
headless run, `mika run`); the table splits a task's wall time into the phone's start and
preparation (phone s) and the headless run's process (run s). Tasks without a reference
solution are left out (they are not run). Default suite: the mixed subset of tests/eval.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._sim_bench import free_port
from mika.sim.launch import bundled_adb

MIXED = Path(__file__).resolve().parent.parent / "tests" / "eval" / "tasks_mixed.json"


def _eval(suite: str, parallel: int, work: Path, env: dict[str, str]) -> tuple[float, dict]:
    report = work / f"p{parallel}"
    config = work / "config.toml"
    config.write_text("", encoding="utf-8")
    argv = [sys.executable, "-c", "import sys; from mika.cli import main; main(sys.argv[1:])"]
    argv += ["--config", str(config), "eval", "--suite", suite, "--model", "reference"]
    argv += ["--parallel", str(parallel), "--report", str(report), "--json"]
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"mika eval failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, json.loads(done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default=str(MIXED))
    ap.add_argument("--parallel", type=int, default=2)
    args = ap.parse_args()
    port = free_port()  # only the adb server here: each task's phone is a `mika sim` process
    env = dict(os.environ, ANDROID_ADB_SERVER_PORT=str(port), ADB_MDNS="0")
    env.pop("ADB_SERVER_SOCKET", None)
    adb = bundled_adb()
    subprocess.run([adb, "-P", str(port), "start-server"], check=True, capture_output=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            serial_wall, serial = _eval(args.suite, 1, Path(tmp), env)
            par_wall, par = _eval(args.suite, args.parallel, Path(tmp), env)
    finally:
        subprocess.run([adb, "-P", str(port), "kill-server"], check=False, capture_output=True)
    cores = os.cpu_count()
    print(f"mika eval --model reference on {args.suite} ({cores} cores; load: {os.getloadavg()[0]:.1f})")
    print(
        f"{'task':38} {'pass':>5} {'steps':>5} {'tokens in':>10} {'out':>5} {'wall s':>7} "
        f"{'phone s':>7} {'run s':>6} {'1st fb s':>8} | {'wall s (par)':>12}"
    )
    par_rows = {(r["task"], r["repeat"]): r for r in par["rows"]}
    for r in serial["rows"]:
        if r["category"] == "no_solution":
            continue
        p = par_rows[(r["task"], r["repeat"])]
        ff = "-" if r["first_feedback_s"] is None else f"{r['first_feedback_s']:.2f}"
        print(
            f"{r['task'][:38]:38} {'yes' if r['passed'] else 'NO':>5} {r['steps']:>5} "
            f"{r['tokens']['input']:>10} {r['tokens']['output']:>5} {r['wall_s']:>7.1f} "
            f"{r['phone_s']:>7.1f} {r['run_s']:>6.1f} {ff:>8} | {p['wall_s']:>12.1f}"
        )
    s1, s2 = serial["summary"], par["summary"]
    print(f"serial:      {serial_wall:6.1f} s for {s1['scored']} tasks, pass rate {s1['pass_rate']}")
    print(
        f"parallel {args.parallel}:  {par_wall:6.1f} s for {s2['scored']} tasks, pass rate {s2['pass_rate']} "
        f"(speed-up {serial_wall / par_wall:.2f}x)"
    )


if __name__ == "__main__":
    main()
