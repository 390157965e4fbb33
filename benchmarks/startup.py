"""Start-up, timed as a user meets it: each figure is a fresh `mika` process, the clock
started before the interpreter (just before the process is spawned), in two states:

- bytecode: every module's bytecode already compiled (a warmed, private pycache);
- source: Mika and its dependencies compiled from source at every start, the standard
  library from its bytecode (see benchmarks/_process_clock.py).

Rows:
- `mika --help`, `mika --version`: until the process exits;
- headless first model request: `mika --no-ui` on the simulated phone (`--device sim`,
  the adb server already running, as it usually is), until its first request reaches a
  loopback OpenAI-compatible server, which answers at once; again with no adb server
  running (the run starts it: a cold first start); and without a phone (`--device none`)
  for the share the phone takes. The run's exit is timed too.

The old code cannot run beside the new one in the same tree; `--baseline-tree DIR` (a
plain export of an older commit: `git archive COMMIT | tar -x -C DIR`) runs every row on
that tree too (first on sys.path), in the same run, for the baseline column. Without it
the baseline is the old eager start-up emulated here (--help) or issue 16's figure.

    uv run python benchmarks/startup.py [--rounds N] [--baseline-tree DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from _process_clock import STATES, PycacheStates

ROOT = Path(__file__).resolve().parents[1]
MIKA = [sys.executable, "-c", "from mika_tui.launcher import main; main()"]  # the console script's entry
# References measured in the same run, so a loaded machine shows as such: the bare
# interpreter, and the old start-up (every subcommand's module imported before --help).
BARE = [sys.executable, "-c", "pass"]
EAGER = [
    sys.executable,
    "-c",
    "from mika import cli\nfor n in getattr(cli, 'SUBCOMMANDS', ()): cli.load_subcommand(n)\n"
    "from mika_tui.launcher import main; main()",
]

# A one-chunk answer in the OpenAI chat-completions streaming format, then usage, then [DONE].
_SSE = [
    {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m",
     "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Done."}, "finish_reason": None}]},
    {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m",
     "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [],
     "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}},
]  # fmt: skip
SSE_BODY = ("".join(f"data: {json.dumps(c)}\n\n" for c in _SSE) + "data: [DONE]\n\n").encode()


class _Provider:
    """A loopback provider that notes when each request arrives."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        self.arrived = threading.Event()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                provider.arrivals.append(time.perf_counter())
                provider.arrived.set()
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(SSE_BODY)))
                self.end_headers()
                self.wfile.write(SSE_BODY)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Bench:
    def __init__(self, work: Path, adb_port: int, tree: Path | None = None) -> None:
        self.work = work
        self.provider = _Provider()
        cfg_home = work / "cfg"
        (cfg_home / "mika").mkdir(parents=True)
        (cfg_home / "mika" / "config.toml").write_text(
            f'[providers.local]\nkind = "openai-chat"\nbase_url = "http://127.0.0.1:{self.provider.port}/v1"\n'
            'api_key_env = "MIKA_BENCH_KEY"\n[roles]\nmain = "local/m"\n'
        )
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
        self.env.update(
            XDG_CONFIG_HOME=str(cfg_home),
            MIKA_STATE_DIR=str(work / "state"),
            ANDROID_ADB_SERVER_PORT=str(adb_port),
            ADB_MDNS="0",
            MIKA_BENCH_KEY="sk-bench",
        )
        if tree is not None:  # the baseline's code, ahead of the working tree's
            self.env["PYTHONPATH"] = str(tree)
        self.pycache = PycacheStates(work, self.env)

    def state_env(self, state: str) -> dict[str, str]:
        return self.pycache.env_for(state)

    def exit_time(self, args: list[str], state: str, argv: list[str] = MIKA) -> float:
        env = self.state_env(state)
        t0 = time.perf_counter()
        r = subprocess.run(
            [*argv, *args], env=env, capture_output=True, timeout=120, stdin=subprocess.DEVNULL, cwd=self.work
        )
        took = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"mika {' '.join(args)} failed ({r.returncode}): {r.stderr.decode()[-2000:]}")
        return took

    def first_request(self, device: str, state: str) -> tuple[float, float]:
        env = self.state_env(state)
        self.provider.arrived.clear()
        self.provider.arrivals.clear()
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [*MIKA, "--no-ui", "--device", device, "What is on the screen?"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            cwd=self.work,  # `-c` puts the working directory first on sys.path: not this tree
        )
        out, err = proc.communicate(timeout=120)
        t_exit = time.perf_counter()
        if proc.returncode != 0 or not self.provider.arrivals:
            sys.exit(f"the headless run failed ({proc.returncode}): {err.decode()[-2000:]}")
        if b"Done." not in out:
            sys.exit(f"the headless run did not print the answer: {out!r}")
        return self.provider.arrivals[0] - t0, t_exit - t0


def _measure(
    benches: list[Bench], adb: str, adb_port: int, rounds: int
) -> list[list[tuple[str, str, list[float], str, str]]]:
    """The rows of each bench; every measure's rounds alternate between the benches, so a
    change in the machine's load falls on both alike."""
    for bench in benches:
        bench.pycache.warm([*MIKA, "--no-ui", "--device", "sim", "warm the caches"])
        bench.pycache.warm([*EAGER, "--help"])

    def cold_sim(bench: Bench, state: str) -> tuple[float, float]:
        # No adb server yet: the run starts one (the cold first start).
        subprocess.run([adb, "-P", str(adb_port), "kill-server"], capture_output=True, timeout=30)
        return bench.first_request("sim", state)

    measures = {
        "bare": lambda b, st: b.exit_time([], st, BARE),
        "eager": lambda b, st: b.exit_time(["--help"], st, EAGER),
        "help": lambda b, st: b.exit_time(["--help"], st),
        "version": lambda b, st: b.exit_time(["--version"], st),
        "sim": lambda b, st: b.first_request("sim", st),
        "none": lambda b, st: b.first_request("none", st),
        "cold": cold_sim,
    }
    out: list[list[tuple[str, str, list[float], str, str]]] = [[] for _ in benches]
    for state in STATES:
        got: dict[str, list[list]] = {}
        for key, fn in measures.items():
            got[key] = [[] for _ in benches]
            for _ in range(rounds):
                for i, bench in enumerate(benches):
                    got[key][i].append(fn(bench, state))
            if key == "cold":
                subprocess.run([adb, "-P", str(adb_port), "start-server"], check=True, capture_output=True, timeout=60)
        for i in range(len(benches)):
            g = {k: v[i] for k, v in got.items()}
            out[i] += [
                ("python -c pass (reference)", state, g["bare"], "", ""),
                ("old: every command imported, --help", state, g["eager"], "330", ""),
                ("mika --help (exit)", state, g["help"], f"{statistics.median(g['eager']) * 1000:.0f}", "120"),
                ("mika --version (exit)", state, g["version"], "", "120"),
                ("headless, sim: first model request", state, [a for a, _ in g["sim"]], "", "600"),
                ("headless, sim: process exit", state, [b for _, b in g["sim"]], "", ""),
                ("headless, sim, adb server cold: 1st request", state, [a for a, _ in g["cold"]], "", ""),
                ("headless, no phone: first model request", state, [a for a, _ in g["none"]], "", ""),
                ("headless, no phone: process exit", state, [b for _, b in g["none"]], "", ""),
            ]
    return out


def _start_adb(port: int) -> str:
    sys.path.insert(0, str(ROOT))
    from mika.sim.launch import bundled_adb

    adb = bundled_adb()
    env = {**os.environ, "ADB_MDNS": "0"}
    subprocess.run([adb, "-P", str(port), "start-server"], check=True, capture_output=True, timeout=60, env=env)
    return adb


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline-tree", type=Path, default=None, help="an export of the old code")
    args = ap.parse_args()
    rounds, tree = args.rounds, args.baseline_tree
    adb_port = _free_port()
    adb = _start_adb(adb_port)
    work = Path(tempfile.mkdtemp(prefix="mika-startup-"))
    try:
        benches = [Bench(work / "new", adb_port)] + ([Bench(work / "old", adb_port, tree)] if tree else [])
        measured = _measure(benches, adb, adb_port, rounds)
        rows, old = measured[0], (measured[1] if tree else None)
    finally:
        subprocess.run([adb, "-P", str(adb_port), "kill-server"], capture_output=True, timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"start-up, ms from process spawn; {rounds} rounds each; load average {os.getloadavg()[0]:.1f}; "
        "baseline: the --baseline-tree's figure, paired round by round, else the old eager start-up "
        "emulated in this run (--help) or issue 16's figure"
    )
    print(f"{'measure':<46}{'state':>10}{'median':>9}{'min':>9}{'max':>9}{'baseline':>10}{'target':>8}{'ok':>5}")
    for i, (name, state, vals, base, target) in enumerate(rows):
        med = statistics.median(vals) * 1000
        if old is not None:
            base = f"{statistics.median(old[i][2]) * 1000:.0f}"
        ok = ("yes" if med <= float(target) else "NO") if target else ""
        print(
            f"{name:<46}{state:>10}{med:>9.0f}{min(vals) * 1000:>9.0f}{max(vals) * 1000:>9.0f}"
            f"{base:>10}{target:>8}{ok:>5}"
        )


if __name__ == "__main__":
    main()
