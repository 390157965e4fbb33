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
    serial: str  # what adb calls the phone ("127.0.0.1:PORT")
    client: Any  # adbutils.AdbClient on the benchmark's own adb server
    world: Any  # the simulated phone's World, to look at or set up
    port: int  # the adb server's port, for raw smart-socket requests or a client of our own
    adb: str  # the adb binary serving it, for `adb -P port ...` subprocesses


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not 5554 <= port <= 5585:  # the emulator range adb scans
            return port


@contextlib.contextmanager
def bench_phone(scenario: str | None = None, serial: str = "mika-sim-bench") -> Iterator[BenchPhone]:
    """Starts an adb server of its own (never the user's) on a free port and one simulated
    phone in `scenario` (None: "default") on it; on the way out the phone is detached and
    the server killed.

    Points the whole process at that server, for the rest of the process: sets
    ANDROID_ADB_SERVER_PORT (and ADB_MDNS=0) in os.environ, so adb subprocesses started
    without an `env=` and any adbutils.AdbClient() made without a port reach it, and
    replaces adbutils.adb, the global client uiautomator2 uses (`uiautomator2.connect`).
    """
    port = free_port()
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    os.environ["ADB_MDNS"] = "0"

    import adbutils

    from mika.sim.launch import AdbServerAddress, bundled_adb, start_sim
    from mika.sim.phone import make_device

    adbutils.adb = adbutils.AdbClient(host="127.0.0.1", port=port)
    adb = bundled_adb()
    subprocess.run([adb, "-P", str(port), "start-server"], check=True, capture_output=True, timeout=30)
    try:
        device = make_device(serial, scenario=scenario)
        with start_sim(device=device, adb_address=AdbServerAddress("127.0.0.1", port)) as sim:
            client = adbutils.AdbClient(host="127.0.0.1", port=port)
            yield BenchPhone(sim.serial, client, sim.device.world, port, adb)
    finally:
        subprocess.run([adb, "-P", str(port), "kill-server"], capture_output=True, timeout=30)
