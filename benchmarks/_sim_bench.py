"""A simulated phone behind a real adb server on a free port, for benchmarks: the setup
they share (a test has tests/adb_env.py; a benchmark runs outside pytest)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BenchPhone:
    serial: str
    client: Any  # adbutils.AdbClient on the benchmark's own adb server
    world: Any  # the simulated phone's World, to look at or set up


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not 5554 <= port <= 5585:  # the emulator range adb scans
            return port


@contextlib.contextmanager
def bench_phone(scenario: str | None = None, serial: str = "mika-sim-bench") -> Iterator[BenchPhone]:
    """Starts an adb server of its own (never the user's) and one simulated phone on it."""
    port = free_port()
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    os.environ["ADB_MDNS"] = "0"

    import adbutils

    from mika.sim.launch import AdbServerAddress, bundled_adb, start_sim
    from mika.sim.phone import make_device

    adb = bundled_adb()
    subprocess.run([adb, "-P", str(port), "start-server"], check=True, capture_output=True, timeout=30)
    try:
        device = make_device(serial, scenario=scenario)
        with start_sim(device=device, adb_address=AdbServerAddress("127.0.0.1", port)) as sim:
            yield BenchPhone(sim.serial, adbutils.AdbClient(host="127.0.0.1", port=port), sim.device.world)
    finally:
        subprocess.run([adb, "-P", str(port), "kill-server"], capture_output=True, timeout=30)
