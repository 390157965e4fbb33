"""Start a simulated phone in-process and attach it to the adb server: `--device sim`.

The phone listens on a free loopback port; the adb server (the one already running,
found the way adb itself finds it, or the adb bundled with adbutils, started here) is
told `host:connect:127.0.0.1:PORT`, and we wait for the state `device`. From then on
the phone is an ordinary adb device called "127.0.0.1:PORT".
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import adbutils

from mika.sim.adb_host import AdbHostError, AdbServerAddress, start_adb_server
from mika.sim.adb_host import bundled_adb as _bundled_adb
from mika.sim.device import SimDevice
from mika.sim.server import SimServer, ThreadedSimServer

DEFAULT_SIM_SERIAL = "mika-sim"


class SimLaunchError(Exception):
    """The simulated phone could not be started or attached; the message says what to do."""


def bundled_adb() -> str:
    """The adb binary that ships inside adbutils (adb 36 at the time of writing)."""
    try:
        return _bundled_adb()
    except AdbHostError as exc:
        raise SimLaunchError(str(exc)) from exc


def ensure_adb_server(address: AdbServerAddress, adb_binary: str | None = None) -> None:
    try:
        start_adb_server(address, adb_binary)
    except AdbHostError as exc:
        raise SimLaunchError(str(exc)) from exc


@dataclass
class RunningSim:
    serial: str  # what adb calls the phone: "127.0.0.1:PORT"
    port: int
    device: SimDevice
    adb_address: AdbServerAddress
    _server: ThreadedSimServer = field(repr=False)
    _closed: bool = field(default=False, repr=False)

    def client(self) -> adbutils.AdbClient:
        return adbutils.AdbClient(host=self.adb_address.host, port=self.adb_address.port)

    def adb_device(self) -> adbutils.AdbDevice:
        return self.client().device(self.serial)

    @property
    def server(self) -> SimServer:
        return self._server.server

    def drop_connections(self) -> None:
        """Cut the adb server's connection to the phone (the server reconnects on its own)."""
        self._server.call(self._server.server.drop_connections)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.client().disconnect(self.serial)
        except (adbutils.AdbError, OSError):
            pass  # the adb server may already be gone; the phone stops either way
        self._server.stop()

    def __enter__(self) -> RunningSim:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _make_device(serial: str, scenario: str | None, faults: object) -> SimDevice:
    from mika.sim.faults import FaultSpec
    from mika.sim.phone import make_device

    try:
        spec = FaultSpec.parse(faults) if isinstance(faults, str) else faults
        return make_device(serial, scenario, spec)  # type: ignore[arg-type]
    except ValueError as exc:  # FaultSpecError / ScenarioError say what is known
        raise SimLaunchError(str(exc)) from exc


def start_sim(
    serial: str | None = None,
    scenario: str | None = None,
    faults: object = None,
    *,
    device: SimDevice | None = None,
    adb_address: AdbServerAddress | None = None,
    timeout: float = 20.0,
) -> RunningSim:
    """Start a simulated phone on a free port and connect it through the adb server.

    `faults` is a FaultSpec or its spec string ("drop_after=5,slow_ms=200"). `device`
    lets a caller (tests) bring its own SimDevice instead of a fresh world. Raises
    SimLaunchError (a sentence for the user) when anything is wrong.
    """
    return begin_sim(serial, scenario, faults, device=device, adb_address=adb_address, timeout=timeout).wait()


class PendingSim:
    """A simulated phone being attached in the background (`begin_sim`): its serial is
    known at once; `wait()` is the RunningSim once the adb server reports it `device`."""

    def __init__(self, threaded: ThreadedSimServer, dev: SimDevice, address: AdbServerAddress, timeout: float) -> None:
        self.serial = f"127.0.0.1:{threaded.port}"
        self.port = threaded.port
        self._threaded = threaded
        self._running = RunningSim(self.serial, threaded.port, dev, address, threaded)
        self._error: BaseException | None = None
        self._connected = False  # the adb server was told to connect: closing disconnects
        self._thread = threading.Thread(target=self._attach, args=(timeout,), name="mika-sim-attach", daemon=True)
        self._thread.start()

    def _attach(self, timeout: float) -> None:
        address = self._running.adb_address
        try:
            ensure_adb_server(address)
            client = adbutils.AdbClient(host=address.host, port=address.port)
            answer = client.connect(self.serial, timeout=timeout)
            self._connected = True
            if "connected to" not in answer:
                raise SimLaunchError(f"the adb server could not connect to the simulated phone: {answer}")
            client.wait_for(self.serial, transport="any", state="device", timeout=timeout)
        except SimLaunchError as exc:
            self._error = exc
        except (adbutils.AdbError, OSError) as exc:
            self._error = SimLaunchError(
                f"the simulated phone at {self.serial} did not come online in the adb server at "
                f"{address.host}:{address.port}: {exc}"
            )
        except BaseException as exc:  # handed to the waiting thread as it is
            self._error = exc
        if self._error is not None:
            self._threaded.stop()

    @property
    def attached(self) -> bool:
        """True once the attempt is over (then `wait()` returns or raises at once)."""
        return not self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> RunningSim:
        """The attached phone; raises SimLaunchError when it could not be attached."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise SimLaunchError(f"the simulated phone at {self.serial} is still being attached; try again")
        if self._error is not None:
            raise self._error
        return self._running

    def close(self) -> None:
        """Stop the phone, attached or not (an attach still under way fails and ends)."""
        self._threaded.stop()
        self._thread.join()
        if self._connected:
            self._running.close()


def begin_sim(
    serial: str | None = None,
    scenario: str | None = None,
    faults: object = None,
    *,
    device: SimDevice | None = None,
    adb_address: AdbServerAddress | None = None,
    timeout: float = 20.0,
) -> PendingSim:
    """The non-blocking start: the phone listens on its port before this returns, and the
    adb server is started (if need be) and told to connect in a background thread. A
    wrong fault spec, scenario or adb address raises SimLaunchError here."""
    try:
        address = adb_address or AdbServerAddress.from_env()
    except AdbHostError as exc:
        raise SimLaunchError(str(exc)) from exc
    dev = device if device is not None else _make_device(serial or DEFAULT_SIM_SERIAL, scenario, faults)
    return PendingSim(SimServer.start_in_thread(dev), dev, address, timeout)
