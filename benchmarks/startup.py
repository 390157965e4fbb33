"""Start-up, timed as a user meets it: each figure is a fresh `mika` process, the clock
started before the interpreter (just before the process is spawned), in two states:

- bytecode: every module's bytecode already compiled (a warmed, private pycache);
- source: Mika and its dependencies compiled from source at every start, the standard
  library from its bytecode (see benchmarks/_process_clock.py).

Rows:
- `mika --help`, `mika --version`: until the process exits;
- headless first model request: `mika --no-ui` on the simulated phone (`--device sim`,
  the adb server already running, as it usually is), until its first request reaches a
  loopback OpenAI-compatible server, which answers at once; and without a phone
  (`--device none`) for the share the phone takes. The run's exit is timed too.

The old import path cannot be run beside the new one in the same tree, so the baseline
column is the issue's figure (issue 16) and the target the issue's goal.

    uv run python benchmarks/startup.py [--rounds N]
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
    "from mika import cli\nfor n in cli.SUBCOMMANDS: cli.load_subcommand(n)\n"
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
    def __init__(self, work: Path, adb_port: int) -> None:
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
        self.pycache = PycacheStates(work, self.env)

    def state_env(self, state: str) -> dict[str, str]:
        return self.pycache.env_for(state)

    def exit_time(self, args: list[str], state: str, argv: list[str] = MIKA) -> float:
        env = self.state_env(state)
        t0 = time.perf_counter()
        r = subprocess.run([*argv, *args], env=env, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
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
        )
        out, err = proc.communicate(timeout=120)
        t_exit = time.perf_counter()
        if proc.returncode != 0 or not self.provider.arrivals:
            sys.exit(f"the headless run failed ({proc.returncode}): {err.decode()[-2000:]}")
        if b"Done." not in out:
            sys.exit(f"the headless run did not print the answer: {out!r}")
        return self.provider.arrivals[0] - t0, t_exit - t0


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
    rounds = ap.parse_args().rounds
    adb_port = _free_port()
    adb = _start_adb(adb_port)
    work = Path(tempfile.mkdtemp(prefix="mika-startup-"))
    try:
        bench = Bench(work, adb_port)
        bench.pycache.warm([*MIKA, "--no-ui", "--device", "sim", "warm the caches"])
        bench.pycache.warm([*EAGER, "--help"])
        rows: list[tuple[str, str, list[float], str, str]] = []
        for state in STATES:
            bare = [bench.exit_time([], state, BARE) for _ in range(rounds)]
            eager = [bench.exit_time(["--help"], state, EAGER) for _ in range(rounds)]
            help_t = [bench.exit_time(["--help"], state) for _ in range(rounds)]
            version_t = [bench.exit_time(["--version"], state) for _ in range(rounds)]
            sim = [bench.first_request("sim", state) for _ in range(rounds)]
            none = [bench.first_request("none", state) for _ in range(rounds)]
            rows += [
                ("python -c pass (reference)", state, bare, "", ""),
                ("old: every command imported, --help", state, eager, "330", ""),
                ("mika --help (exit)", state, help_t, f"{statistics.median(eager) * 1000:.0f}", "120"),
                ("mika --version (exit)", state, version_t, "", "120"),
                ("headless, sim: first model request", state, [a for a, _ in sim], "", "600"),
                ("headless, sim: process exit", state, [b for _, b in sim], "", ""),
                ("headless, no phone: first model request", state, [a for a, _ in none], "", ""),
                ("headless, no phone: process exit", state, [b for _, b in none], "", ""),
            ]
    finally:
        subprocess.run([adb, "-P", str(adb_port), "kill-server"], capture_output=True, timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"start-up, ms from process spawn; {rounds} rounds each; load average {os.getloadavg()[0]:.1f}; "
        "baseline: the old start-up measured in this run (--help) or issue 16's figure"
    )
    print(f"{'measure':<42}{'state':>10}{'median':>9}{'min':>9}{'max':>9}{'baseline':>10}{'target':>8}{'ok':>5}")
    for name, state, vals, base, target in rows:
        med = statistics.median(vals) * 1000
        ok = ("yes" if med <= float(target) else "NO") if target else ""
        print(
            f"{name:<42}{state:>10}{med:>9.0f}{min(vals) * 1000:>9.0f}{max(vals) * 1000:>9.0f}"
            f"{base:>10}{target:>8}{ok:>5}"
        )


if __name__ == "__main__":
    main()
