"""A real MCP server (tests/mcp_cap/fixture_server.py) over stdio and over streamable HTTP
on loopback, and the config entries that reach it."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mika.config.mcp_servers import McpServerConfig
from tests.adb_env import free_port

SERVER = Path(__file__).parent / "fixture_server.py"


def stdio_config(name: str = "fx", **kw) -> McpServerConfig:
    kw.setdefault("start_timeout_s", 60)
    return McpServerConfig(name=name, command=sys.executable, args=(str(SERVER),), **kw)


def _wait_listening(port: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the fixture MCP server exited ({proc.returncode}): {proc.stderr.read()!r}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError("the fixture MCP server did not listen in time")


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_listening(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def process_gone(pid: int) -> bool:
    """Gone, or a zombie nobody will run again (reaped later by its parent)."""
    status = Path(f"/proc/{pid}/status")
    try:
        text = status.read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in text
