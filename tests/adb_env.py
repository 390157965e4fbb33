"""Fixtures every phone test uses: a private real adb server and a connected simulated phone.

Loaded from tests/conftest.py (`pytest_plugins = ["tests.adb_env"]`). The adb server is
the adb binary bundled with adbutils, on a free port of its own per test process (so
pytest-xdist workers never share one and nothing touches a developer's port 5037). The
environment is set when this module loads, before any test imports adbutils, so
adbutils' global client, uiautomator2 and every `adb` child process use that server.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import adbutils
import pytest

from mika.sim.device import SimDevice
from mika.sim.faults import FaultSpec
from mika.sim.launch import AdbServerAddress, RunningSim, bundled_adb, start_sim
from mika.sim.phone import make_device

EMULATOR_PORTS = range(5554, 5586)


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in EMULATOR_PORTS:
            return port


ADB_BINARY = bundled_adb()
ADB_PORT = free_port()
os.environ["ANDROID_ADB_SERVER_PORT"] = str(ADB_PORT)
os.environ["ADB_MDNS"] = "0"
os.environ.pop("ADB_SERVER_SOCKET", None)
os.environ.pop("ANDROID_ADB_SERVER_HOST", None)
os.environ["ADBUTILS_ADB_PATH"] = ADB_BINARY  # adbutils' own auto-start uses it too
# adbutils built its global client at import time, possibly before the port was set.
adbutils.adb = adbutils.AdbClient(host="127.0.0.1", port=ADB_PORT)


@dataclass(frozen=True)
class AdbServer:
    port: int
    binary: str

    @property
    def address(self) -> AdbServerAddress:
        return AdbServerAddress("127.0.0.1", self.port)

    def client(self) -> adbutils.AdbClient:
        return adbutils.AdbClient(host="127.0.0.1", port=self.port)

    def run(self, *args: str, timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        """The real adb CLI against this server: `adb -P PORT ARGS…`."""
        return subprocess.run(
            [self.binary, "-P", str(self.port), *args],
            capture_output=True,
            timeout=timeout,
            check=check,
            stdin=subprocess.DEVNULL,
        )


@pytest.fixture(scope="session")
def adb_server() -> Iterator[AdbServer]:
    server = AdbServer(ADB_PORT, ADB_BINARY)
    server.run("start-server", timeout=30)
    try:
        yield server
    finally:
        server.run("kill-server", timeout=30, check=False)


@dataclass
class SimPhone:
    """A simulated phone the adb server has connected: `.serial` is "127.0.0.1:PORT"."""

    running: RunningSim
    server: AdbServer

    @property
    def serial(self) -> str:
        return self.running.serial

    @property
    def port(self) -> int:
        return self.running.port

    @property
    def device(self) -> SimDevice:
        return self.running.device

    @property
    def adb(self) -> adbutils.AdbDevice:
        return self.running.adb_device()

    def run_adb(self, *args: str, timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        """`adb -P PORT -s SERIAL ARGS…` with the real adb CLI."""
        return self.server.run("-s", self.serial, *args, timeout=timeout, check=check)

    def shell(self, command: str, timeout: float = 60) -> str:
        return self.run_adb("shell", command, timeout=timeout).stdout.decode()


def _default_device(serial: str, scenario: str | None, faults: object) -> SimDevice:
    # The real world, always: a world that does not import is a broken build, never a
    # reason to test against the wire's double instead.
    spec = FaultSpec.parse(faults) if isinstance(faults, str) else faults
    return make_device(serial, scenario, spec)  # type: ignore[arg-type]


@pytest.fixture
def sim_phone_factory(adb_server: AdbServer) -> Iterator[Callable[..., SimPhone]]:
    """Start more phones, or phones with a given device / scenario / faults."""
    started: list[RunningSim] = []

    def start(
        device: SimDevice | None = None,
        *,
        serial: str = "mika-sim",
        scenario: str | None = None,
        faults: object = None,
    ) -> SimPhone:
        dev = device if device is not None else _default_device(serial, scenario, faults)
        running = start_sim(device=dev, adb_address=adb_server.address)
        started.append(running)
        return SimPhone(running, adb_server)

    yield start
    for running in reversed(started):
        running.close()


@pytest.fixture
def sim_phone(sim_phone_factory: Callable[..., SimPhone]) -> SimPhone:
    return sim_phone_factory()
