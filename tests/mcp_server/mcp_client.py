"""How the MCP tests reach `mika mcp`: the SDK's own client, over stdio (the server is a
real `python -m mika.cli mcp …` subprocess) or streamable HTTP (the same command with
--http, on a free loopback port), with a private state folder and config home."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import ElicitResult

ROOT = Path(__file__).resolve().parents[2]


def server_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(
        MIKA_STATE_DIR=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "cfg"),
        MIKA_LANGUAGE="en",
        MIKA_RUN_PACE="fast",
    )
    return env


def script(tmp_path: Path, replies: list[Any], name: str = "script.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(replies), encoding="utf-8")
    return f"script:{path}"


@asynccontextmanager
async def stdio_mika(tmp_path: Path, *args: str, elicit=None, mode: str = "legacy"):
    """A client connected to `mika mcp ARGS` over stdio. `mode="legacy"` speaks the 2025
    protocol (server-to-client requests mid-call, so elicitation works); "auto" lets the
    SDK pick 2026-07-28."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mika.cli", "mcp", *args], env=server_env(tmp_path), cwd=str(ROOT)
    )
    errlog = _log_file(tmp_path / "server-stderr.txt")
    try:
        async with Client(stdio_client(params, errlog=errlog), mode=mode, elicitation_callback=elicit) as client:
            yield client
    finally:
        errlog.close()


def _log_file(path: Path) -> TextIO:
    # The server's stderr needs a real file (a descriptor for the subprocess); it stays
    # open for the server's whole life and is closed by the caller.
    return path.open("w", encoding="utf-8")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HttpMika:
    """`mika mcp --http HOST:PORT` as a subprocess; `.url` for the client, `.stderr()` its lines."""

    def __init__(self, tmp_path: Path, host: str, *args: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.err_path = tmp_path / f"http-stderr-{self.port}.txt"
        self._err = _log_file(self.err_path)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mika.cli", "mcp", "--http", f"{host}:{self.port}", *args],
            env=server_env(tmp_path),
            cwd=str(ROOT),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._err,
        )
        self._wait_listening()

    def _wait_listening(self, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise AssertionError(f"mika mcp --http exited {self.proc.returncode}: {self.stderr()}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.1)
        raise AssertionError(f"mika mcp --http never listened: {self.stderr()}")

    def stderr(self) -> str:
        self._err.flush()
        return self.err_path.read_text(encoding="utf-8")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._err.close()


def elicitor(*answers: str, allow: bool = True):
    """An elicitation callback answering `answers` in turn ("accept" / "decline"); it
    records every question it was asked in `.asked`."""
    queue = list(answers)

    async def callback(ctx, params):
        callback.asked.append(params.message)
        action = queue.pop(0) if queue else "decline"
        if action == "accept":
            return ElicitResult(action="accept", content={"allow": allow})
        return ElicitResult(action=action)

    callback.asked = []
    return callback


def run_record(tmp_path: Path, run_id: str) -> dict:
    runs = tmp_path / "state" / "runs"
    folder = next(d for d in runs.iterdir() if d.name.endswith(run_id))
    return json.loads((folder / "run.json").read_text(encoding="utf-8"))


async def shop_numbers(sim_phone_factory) -> tuple[int, int]:
    """The element numbers of the shop's Cart (main page) and Checkout (cart page) in the
    "shop_cart" scenario, read in-process on a twin phone, for scripted models."""
    from mika.cap.phone import PhoneCapability
    from mika.cap.phone.adb.port import AdbPort
    from mika.run.tool_session import ToolSession
    from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
    from tests.phone.driver import number_for

    twin_phone = sim_phone_factory(scenario="shop_cart", serial="twin")
    looker = PhoneCapability(AdbPort(twin_phone.serial, twin_phone.server.client()))
    looker.reader.deltas = False
    twin = ToolSession(RunSpec("look", RunProvenance(RunOrigin.MCP, Attendance.UNATTENDED)), [looker])
    await twin.call("phone_launch_app", {"app": "Shop"})
    cart = number_for((await twin.call("phone_observe", {})).text, "Cart,")
    await twin.call("phone_tap", {"element": cart})
    checkout = number_for((await twin.call("phone_observe", {})).text, "Checkout")
    await twin.close()
    return cart, checkout
