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
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._sim_bench import bench_phone


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


async def _bench(serial: str, client, backend: str, rounds: int) -> list[str]:
    from mika.cap.phone import PhoneCapability
    from mika.cap.phone.adb.port import AdbPort
    from mika.uistate import build_screen, estimate_tokens, parse_hierarchy

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
    rows: list[str] = []
    with bench_phone("default") as phone:  # it points adbutils.adb, uiautomator2's global client, here too
        phone.client.device(phone.serial).shell("am start -n com.android.settings/.Settings")
        for backend in ("dump", "u2"):
            rows += asyncio.run(_bench(phone.serial, phone.client, backend, rounds))
    print(f"Phone observation on the simulated phone (Settings), {rounds} rounds, ms per call")
    print(f"{'step':<34} {'mean':>8} {'median':>8} {'p95':>8}  sizes")
    print("-" * 100)
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
