"""Observation time on the simulated phone, per hierarchy backend: the dump itself, the
parse, numbering + listing, and the phone capability's whole read (dump, parse,
foreground activity, numbering, version), through a real adb server.

    uv run python benchmarks/phone_observation.py [ROUNDS]

Backends: `dump` (plain `uiautomator dump` + `cat`, what works on every phone) and `u2`
(uiautomator2's on-device server, which the simulated phone serves too). Prints
milliseconds per call (mean, median, p95) and the sizes of XML and listing.
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable


def _free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not 5554 <= port <= 5585:
            return port


async def _measure(fn: Callable[[], Awaitable[object]], rounds: int) -> list[float]:
    await fn()  # warm up: the u2 server start, fonts, the first frame
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - t0) * 1000)
    return sorted(times)


def _row(name: str, times: list[float], size: str = "") -> str:
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    return f"{name:<34} {statistics.mean(times):>8.1f} {statistics.median(times):>8.1f} {p95:>8.1f}  {size}"


async def _bench(serial: str, port: int, backend: str, rounds: int) -> list[str]:
    import adbutils

    from mika.cap.phone import PhoneCapability
    from mika.cap.phone.adb.port import AdbPort
    from mika.uistate import build_screen, estimate_tokens, parse_hierarchy

    client = adbutils.AdbClient(host="127.0.0.1", port=port)
    adb_port = AdbPort(serial, client, backend=backend)
    cap = PhoneCapability(adb_port)
    info = await adb_port.info()
    xml = await adb_port.dump_hierarchy(0)
    tree = parse_hierarchy(xml)
    listing = build_screen(tree, size=info.size).listing()

    async def dump() -> str:
        return await adb_port.dump_hierarchy(0)

    async def parse() -> object:
        return parse_hierarchy(xml)

    async def number_and_list() -> str:
        return build_screen(tree, size=info.size).listing()

    async def read() -> object:
        return await cap.reader.read()

    sizes = f"xml {len(xml)} chars ≈{estimate_tokens(xml)} tok · listing ≈{estimate_tokens(listing)} tok"
    rows = [
        _row(f"{backend}: dump", await _measure(dump, rounds), sizes),
        _row(f"{backend}: parse", await _measure(parse, rounds)),
        _row(f"{backend}: number + listing", await _measure(number_and_list, rounds)),
        _row(f"{backend}: whole read (+ foreground)", await _measure(read, rounds)),
    ]
    await cap.close()
    return rows


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    port = _free_port()
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    os.environ["ADB_MDNS"] = "0"

    import adbutils

    adbutils.adb = adbutils.AdbClient(host="127.0.0.1", port=port)  # uiautomator2 uses the global client

    from mika.cap.phone.adb.server import bundled_adb
    from mika.sim.launch import AdbServerAddress, start_sim

    adb = bundled_adb()
    subprocess.run([adb, "-P", str(port), "start-server"], check=True, capture_output=True, timeout=30)
    rows: list[str] = []
    try:
        with start_sim(scenario="default", adb_address=AdbServerAddress("127.0.0.1", port)) as sim:
            adbutils.AdbClient(host="127.0.0.1", port=port).device(sim.serial).shell(
                "am start -n com.android.settings/.Settings"
            )
            for backend in ("dump", "u2"):
                rows += asyncio.run(_bench(sim.serial, port, backend, rounds))
    finally:
        subprocess.run([adb, "-P", str(port), "kill-server"], capture_output=True, timeout=30)
    print(f"Phone observation on the simulated phone (Settings), {rounds} rounds, ms per call")
    print(f"{'step':<34} {'mean':>8} {'median':>8} {'p95':>8}  sizes")
    print("-" * 100)
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
