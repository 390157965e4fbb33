"""The first answer, timed as an MCP client or a script meets it: each figure is a fresh
process, the clock started just before it is spawned (bytecode compiled, in a private
pycache: benchmarks/_process_clock.py).

Rows:
- `mika mcp` over stdio: the client writes `initialize` at once (it waits in the pipe) and
  the clock stops when the answer's line arrives; then `notifications/initialized` and
  `tools/list`, stopped at its answer. With the simulated phone (`--device sim`, the adb
  server already running) and without a phone (`--device none`). The model is an
  OpenAI-compatible provider on loopback (the config a user has), never asked here.
- `mika --no-ui`: until its first model request reaches the loopback provider
  (benchmarks/startup.py's measure), with the simulated phone and without one.
- `mika mcp --http` without a phone: the client posts `initialize` to /mcp from the moment
  the process is spawned (a refused connection is tried again at once) and the clock stops
  at the answer. No target: shown for the record.

`--baseline-tree DIR` (a plain export of an older commit: `git archive COMMIT | tar -x -C
DIR`) runs every row on that tree too, round by round beside the working tree's.

    uv run python benchmarks/first_answer.py [--rounds N] [--baseline-tree DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from startup import MIKA, Bench, _free_port, _start_adb

TARGET_MS = 600

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


def _line(message: dict) -> bytes:
    return (json.dumps(message) + "\n").encode()


def _answer(proc: subprocess.Popen[bytes], want_id: int) -> tuple[dict, float]:
    """The answer to request `want_id` and when it arrived (notifications are skipped)."""
    assert proc.stdout is not None
    while True:
        raw = proc.stdout.readline()
        if not raw:
            err = proc.stderr.read().decode() if proc.stderr else ""
            sys.exit(f"mika mcp closed stdout before answering {want_id}: {err[-2000:]}")
        message = json.loads(raw)
        if message.get("id") == want_id:
            return message, time.perf_counter()


def mcp_first_answers(bench: Bench, device: str, state: str) -> tuple[float, float]:
    env = bench.state_env(state)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*MIKA, "mcp", "--device", device],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=bench.work,
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(_line(INITIALIZE))
        proc.stdin.flush()
        init, t_init = _answer(proc, 1)
        if "result" not in init:
            sys.exit(f"initialize failed: {init}")
        proc.stdin.write(_line(INITIALIZED) + _line(TOOLS_LIST))
        proc.stdin.flush()
        listed, t_list = _answer(proc, 2)
        tools = listed.get("result", {}).get("tools")
        if not tools:
            sys.exit(f"tools/list failed: {listed}")
        if device != "none" and not any(t["name"] == "phone_tap" for t in tools):
            sys.exit(f"tools/list has no phone tools with --device {device}: {[t['name'] for t in tools]}")
    finally:
        proc.stdin.close()  # the client goes away: the server ends
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    return t_init - t0, t_list - t0


def mcp_http_first_answer(bench: Bench, state: str) -> tuple[float]:
    env = bench.state_env(state)
    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*MIKA, "mcp", "--http", f"127.0.0.1:{port}", "--device", "none"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=bench.work,
    )
    try:
        while True:
            request = urllib.request.Request(url, data=_line(INITIALIZE), headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=60) as answer:
                    body = answer.read()
                    took = time.perf_counter() - t0
                    break
            except (ConnectionError, urllib.error.URLError):
                if proc.poll() is not None or time.perf_counter() - t0 > 60:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    sys.exit(f"mika mcp --http never answered initialize: {err[-2000:]}")
                time.sleep(0.002)
        if b'"result"' not in body:
            sys.exit(f"initialize over HTTP failed: {body[:500]!r}")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
    return (took,)


ROWS = (
    ("mcp, sim: first initialize answer", "mcp_sim", 0),
    ("mcp, sim: first tools/list answer", "mcp_sim", 1),
    ("mcp, no phone: first initialize answer", "mcp_none", 0),
    ("mcp, no phone: first tools/list answer", "mcp_none", 1),
    ("mika --no-ui, sim: first model request", "run_sim", 0),
    ("mika --no-ui, no phone: first model request", "run_none", 0),
    ("mcp --http, no phone: first initialize answer", "mcp_http", 0),
)
UNTARGETED = {"mcp_http"}


def _measure(benches: list[Bench], rounds: int) -> list[dict[str, list[tuple[float, ...]]]]:
    for bench in benches:
        bench.pycache.warm([*MIKA, "--no-ui", "--device", "sim", "warm the caches"])
        mcp_first_answers(bench, "sim", "bytecode")  # the MCP face's own modules, compiled
    measures = {
        "mcp_sim": lambda b: mcp_first_answers(b, "sim", "bytecode"),
        "mcp_none": lambda b: mcp_first_answers(b, "none", "bytecode"),
        "run_sim": lambda b: b.first_request("sim", "bytecode"),
        "run_none": lambda b: b.first_request("none", "bytecode"),
        "mcp_http": lambda b: mcp_http_first_answer(b, "bytecode"),
    }
    got: list[dict[str, list[tuple[float, ...]]]] = [{k: [] for k in measures} for _ in benches]
    for key, fn in measures.items():
        for _ in range(rounds):  # round by round, so a change in load falls on both trees alike
            for i, bench in enumerate(benches):
                got[i][key].append(fn(bench))
    return got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline-tree", type=Path, default=None, help="an export of the old code")
    args = ap.parse_args()
    adb_port = _free_port()
    adb = _start_adb(adb_port)
    work = Path(tempfile.mkdtemp(prefix="mika-first-answer-"))
    try:
        benches = [Bench(work / "new", adb_port)]
        if args.baseline_tree is not None:
            benches.append(Bench(work / "old", adb_port, args.baseline_tree.resolve()))
        got = _measure(benches, args.rounds)
    finally:
        subprocess.run([adb, "-P", str(adb_port), "kill-server"], capture_output=True, timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"first answers, ms from process spawn (bytecode compiled); median of {args.rounds} fresh processes; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    base = "baseline" if len(benches) > 1 else ""
    print(f"{'measure':<46}{'median':>9}{'min':>9}{'max':>9}{base:>10}{'target':>8}{'ok':>5}")
    for name, key, part in ROWS:
        vals = [v[part] * 1000 for v in got[0][key]]
        med = statistics.median(vals)
        old = f"{statistics.median(v[part] * 1000 for v in got[1][key]):.0f}" if len(benches) > 1 else ""
        target, ok = ("", "") if key in UNTARGETED else (str(TARGET_MS), "yes" if med <= TARGET_MS else "NO")
        print(f"{name:<46}{med:>9.0f}{min(vals):>9.0f}{max(vals):>9.0f}{old:>10}{target:>8}{ok:>5}")


if __name__ == "__main__":
    main()
