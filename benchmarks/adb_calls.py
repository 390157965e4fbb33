"""What one adb call costs on the simulated phone, per kind of call, three ways in one run:
through adbutils / uiautomator2 as they are (the baseline), through our own clients
(`mika/cap/phone/adb/shell_client.py`, `u2_transport.py`), and a raw socket round trip
(the floor: the wire with nothing on it).

    uv run python benchmarks/adb_calls.py [ROUNDS]

All through a real adb server (the adb bundled with adbutils, on a private port) to the
simulated phone. Prints median and p90 in milliseconds and the ratio baseline / ours.
The last rows are one screen read as the port does it (dump + foreground): the old way
(stock uiautomator2 dump, then `dumpsys window` through adbutils) beside `AdbPort`'s
(kept stream, foreground read alongside the dump).
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._sim_bench import bench_phone


def _times(fn: Callable[[], object], rounds: int) -> list[float]:
    fn()  # warm up
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _stats(times: list[float]) -> tuple[float, float]:
    s = sorted(times)
    return statistics.median(s), s[min(len(s) - 1, int(len(s) * 0.9))]


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    import uiautomator2

    from mika.cap.phone.adb.nodelay import NoDelayDevice
    from mika.cap.phone.adb.port import AdbPort
    from mika.cap.phone.adb.shell_client import ShellClient
    from mika.cap.phone.adb.u2_transport import KeptRpc

    with bench_phone("default") as phone:
        client, port = phone.client, phone.port
        dev = client.device(phone.serial)
        wire = ShellClient("127.0.0.1", port, phone.serial)
        stock_u2 = uiautomator2.connect(NoDelayDevice(client, serial=phone.serial))
        kept = KeptRpc(wire, 9008)
        dumped = "uiautomator dump /sdcard/window_dump.xml"

        def raw_version() -> None:
            # One smart-socket request and its answer on a fresh connection to the server.
            with socket.create_connection(("127.0.0.1", port)) as s:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                s.sendall(b"000chost:version")
                s.recv(12)

        raw_stream = wire.open("tcp:9008", 10)

        def raw_ping() -> None:
            # One HTTP request on a kept stream to the phone's uiautomator2 server.
            raw_stream.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
            buf = b""
            while not buf.endswith(b"pong"):
                buf += raw_stream.recv(4096)

        kinds: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
            ("shell echo", lambda: dev.shell2("echo hi"), lambda: wire.shell_v2("echo hi", 20)),
            ("input tap", lambda: dev.shell2("input tap 5 5"), lambda: wire.shell_v2("input tap 5 5", 20)),
            (
                "foreground (dumpsys window)",
                lambda: dev.shell2("dumpsys window"),
                lambda: wire.shell_v2("dumpsys window", 20),
            ),
            (
                "uiautomator dump + cat",
                lambda: (dev.shell2(dumped), dev.shell("cat /sdcard/window_dump.xml")),
                lambda: (wire.shell_v2(dumped, 20), wire.exec_out("cat /sdcard/window_dump.xml", 20)),
            ),
            (
                "u2 dump (JSON-RPC)",
                lambda: stock_u2.jsonrpc.dumpWindowHierarchy(False, 50),
                lambda: kept.call("dumpWindowHierarchy", [False, 50], 20),
            ),
        ]
        rows = []
        for name, base, ours in kinds:
            rows.append((name, _stats(_times(base, rounds)), _stats(_times(ours, rounds))))

        # One screen read the way the port does it.
        aport = AdbPort(phone.serial, client, backend="u2")
        loop = asyncio.new_event_loop()

        async def port_read() -> None:
            await aport.dump_hierarchy(0)
            await aport.foreground(0)

        def old_read() -> None:
            stock_u2.jsonrpc.dumpWindowHierarchy(False, 50)
            dev.shell2("dumpsys window")

        loop.run_until_complete(aport.info())
        rows.append(
            (
                "screen read (dump + foreground)",
                _stats(_times(old_read, rounds)),
                _stats(_times(lambda: loop.run_until_complete(port_read()), rounds)),
            )
        )
        floor = [
            ("raw: host:version, fresh connection", _stats(_times(raw_version, rounds))),
            ("raw: GET /ping on a kept tcp: stream", _stats(_times(raw_ping, rounds))),
        ]
        loop.run_until_complete(aport.close())
        loop.close()
        raw_stream.close()
        kept.close()

    print(f"adb calls on the simulated phone, {rounds} rounds each, ms (median / p90)")
    print(f"{'call':<36} {'adbutils/u2 as is':>19} {'ours':>17} {'as is / ours':>13}")
    for name, (bm, bp), (om, op) in rows:
        print(f"{name:<36} {bm:>8.2f} / {bp:>7.2f} {om:>7.2f} / {op:>7.2f} {bm / om:>12.1f}x")
    for name, (m, p) in floor:
        print(f"{name:<36} {'':>19} {m:>7.2f} / {p:>7.2f}")


if __name__ == "__main__":
    main()
