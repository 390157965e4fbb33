"""The simulated phone's wire: shell:echo round trips and push/pull throughput, measured
through a real adb server (the adb bundled with adbutils, on a private port).

    uv run python benchmarks/sim_wire.py [--rounds N] [--mib N]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._sim_bench import bench_phone


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    return f"{statistics.median(ordered) * 1000:8.2f} ms  (p95 {p95 * 1000:.2f} ms)"


def _raw_echo(port: int, serial: str) -> float:
    """One shell:echo through the adb server's smart socket, without any client library."""
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port)) as s:
        for request in (f"host:transport:{serial}", "shell:echo ping"):
            s.sendall(f"{len(request):04x}{request}".encode())
            status = s.recv(4)
            assert status == b"OKAY", status
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    assert out == b"ping\n", out
    return time.perf_counter() - t0


def _rpc_device_info(port: int, serial: str, nodelay: bool) -> float:
    """One uiautomator2 JSON-RPC call over tcp:9008, sent as HTTP clients do: headers
    and body in two writes. Without TCP_NODELAY on the client's socket the body waits
    in Nagle's queue for the adb server's delayed ACK."""
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "deviceInfo", "params": []}'
    head = (
        "POST /jsonrpc/0 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port)) as s:
        if nodelay:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for request in (f"host:transport:{serial}", "tcp:9008"):
            s.sendall(f"{len(request):04x}{request}".encode())
            assert s.recv(4) == b"OKAY"
        s.sendall(head)
        s.sendall(body)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
            if b"displayWidth" in out and out.rstrip().endswith(b"}"):
                break
    assert b" 200 " in out.split(b"\r\n", 1)[0], out[:80]
    return time.perf_counter() - t0


def _best_of(n: int, fn) -> float:  # type: ignore[no-untyped-def]
    return min(fn() for _ in range(n))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=200, help="shell:echo round trips")
    parser.add_argument("--mib", type=int, default=32, help="size of the big push/pull")
    args = parser.parse_args()

    rows: list[tuple[str, str]] = []
    # bench_phone points os.environ (so the adb CLI runs below) and adbutils.adb (so
    # uiautomator2.connect) at its private server too.
    with bench_phone() as sim:
        adb, port = sim.adb, sim.port
        dev = sim.client.device(sim.serial)
        dev.shell("echo warm")

        raw = [_raw_echo(port, sim.serial) for _ in range(args.rounds)]
        rows.append((f"shell:echo, raw smart socket ×{args.rounds}", _ms(raw)))

        samples = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            dev.shell("echo ping")
            samples.append(time.perf_counter() - t0)
        rows.append((f"shell:echo via adbutils ×{args.rounds} (¹)", _ms(samples)))

        cli = []
        for _ in range(max(5, args.rounds // 20)):
            t0 = time.perf_counter()
            subprocess.run(
                [adb, "-P", str(port), "-s", sim.serial, "shell", "echo ping"],
                check=True,
                capture_output=True,
            )
            cli.append(time.perf_counter() - t0)
        rows.append((f"adb shell echo, CLI process ×{len(cli)}", _ms(cli)))

        try:
            import uiautomator2

            uiautomator2.connect(sim.serial)  # starts the simulated u2 server on tcp:9008
        except Exception as exc:
            rows.append(("uiautomator2 over tcp:9008", f"skipped: {exc}"))
        else:
            for nodelay in (False, True):
                rpc = [_rpc_device_info(port, sim.serial, nodelay) for _ in range(20)]
                label = "TCP_NODELAY" if nodelay else "default socket"
                rows.append((f"u2 deviceInfo over tcp:9008, {label} ×20", _ms(rpc)))

        with tempfile.TemporaryDirectory() as tmp:
            for mib in (1, args.mib):
                data = os.urandom(mib * 1024 * 1024)
                src = Path(tmp) / f"b{mib}.bin"
                dst = Path(tmp) / f"p{mib}.bin"
                src.write_bytes(data)
                remote = f"/sdcard/c{mib}.bin"

                def push() -> float:
                    t0 = time.perf_counter()
                    subprocess.run(
                        [adb, "-P", str(port), "-s", sim.serial, "push", str(src), remote],
                        check=True,
                        capture_output=True,
                    )
                    return time.perf_counter() - t0

                def pull() -> float:
                    t0 = time.perf_counter()
                    subprocess.run(
                        [adb, "-P", str(port), "-s", sim.serial, "pull", remote, str(dst)],
                        check=True,
                        capture_output=True,
                    )
                    return time.perf_counter() - t0

                rows.append((f"adb push {mib} MiB, CLI (best of 3)", f"{mib / _best_of(3, push):8.1f} MiB/s"))
                rows.append((f"adb pull {mib} MiB, CLI (best of 3)", f"{mib / _best_of(3, pull):8.1f} MiB/s"))
                assert dst.read_bytes() == data, "adb pull returned different bytes"

                def upush() -> float:
                    t0 = time.perf_counter()
                    dev.sync.push(data, f"/sdcard/b{mib}.bin")
                    return time.perf_counter() - t0

                def upull() -> float:
                    t0 = time.perf_counter()
                    assert dev.sync.read_bytes(f"/sdcard/b{mib}.bin") == data
                    return time.perf_counter() - t0

                rows.append((f"sync push {mib} MiB, adbutils (¹)", f"{mib / _best_of(3, upush):8.1f} MiB/s"))
                rows.append((f"sync pull {mib} MiB, adbutils (¹)", f"{mib / _best_of(3, upull):8.1f} MiB/s"))

    width = max(len(name) for name, _ in rows)
    print(f"{'measure':<{width}}  result")
    print(f"{'-' * width}  {'-' * 30}")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print("(¹) includes adbutils' own cost: ~10 ms per new server connection and Python-side reads.")
    print("u2 rows: the same request; only the client socket's TCP_NODELAY differs (Nagle + the")
    print("adb server's delayed ACK hold an HTTP body sent after its headers for ~40 ms).")


if __name__ == "__main__":
    main()
