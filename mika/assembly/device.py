"""The phone a face's runs use: picked once per process, switchable from the TUI's Devices.

`DeviceChoice.open(wanted, state_dir)`:
- "none": runs without a phone;
- "sim": the simulated phone, started once, here, in this process;
- a serial: that phone, if the adb server has it ready;
- nothing: the only ready phone. `lenient` (the terminal app, where Devices can switch
  later) takes the first of several and falls back to the simulated phone when none is
  attached; strict (headless) says why it cannot choose.

The simulated phone runs in-process (`mika.sim.launch.start_sim`), for every face: one
start path with typed errors (SimLaunchError) that is the same one the tests and
benchmarks drive; it waits until the adb server reports the phone as `device`; and it
dies with the process, so a killed Mika leaves no orphan `mika sim` behind (the TUI's
former child process outlived a SIGKILL). The phone's server runs in its own thread and
is reached over the adb server like any phone, so nothing above the wire changes.

Chosen at start-up (`open`), the simulated phone is attached in the background
(`mika.sim.launch.begin_sim`): its serial is known at once, so the app paints and the
models load while the adb server starts and connects; whatever needs the phone itself
(`capability`, `wait_ready`) waits for it, and an attach that failed is raised there as
the same PhoneOpenError sentence a blocking start gave.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

# The phone stack (adbutils, requests, PIL, the phone tools: ~300 ms to import) is loaded
# where a phone is used, not with the assembly: a run without one never loads it.
if TYPE_CHECKING:
    from mika.cap.phone import PhoneCapability


@dataclass(frozen=True)
class ChosenPhone:
    serial: str = ""  # "" = runs without a phone
    name: str = ""
    transport: str = ""  # usb | tcp | tls | sim
    is_sim: bool = False


class DeviceChoice:
    """The current phone, and the simulated phone if one was started (closed with it)."""

    def __init__(self, state_dir: Path | None, *, start_sim: Callable[[], Any] | None = None) -> None:
        self.state_dir = state_dir
        self.current = ChosenPhone()
        self._start_sim = start_sim or _start_sim_in_process
        self._sim: Any = None  # mika.sim.launch.RunningSim
        self._pending: Any = None  # mika.sim.launch.PendingSim, until wait_ready has its answer
        self._background = start_sim is None  # a caller's own starter is run as it is, blocking
        self._lock = threading.Lock()  # the TUI starts the sim from a worker thread

    @classmethod
    def open(
        cls,
        wanted: str | None,
        state_dir: Path | None,
        *,
        lenient: bool = False,
        start_sim: Callable[[], Any] | None = None,
    ) -> DeviceChoice:
        """Raises PhoneOpenError (a sentence for the user) when the wanted phone can't be had."""
        choice = cls(state_dir, start_sim=start_sim)
        if wanted == "none":
            return choice
        if wanted == "sim":
            choice.begin_sim()
            return choice
        choice.current = _attached(wanted or None, lenient=lenient) or ChosenPhone()
        if not choice.current.serial:  # lenient, and no phone attached: the simulated one
            choice.begin_sim()
        return choice

    @property
    def serial(self) -> str:
        return self.current.serial

    def use(self, phone: ChosenPhone) -> None:
        self.current = phone

    def use_sim(self) -> ChosenPhone:
        """Start the simulated phone (once) and make it the current phone. Blocking."""
        self.begin_sim()
        self.wait_ready()
        return self.current

    def begin_sim(self) -> ChosenPhone:
        """Make the simulated phone the current one, attaching it in the background (the
        default starter; a caller's own starter runs here, blocking). Raises
        PhoneOpenError only for what is wrong before anything starts."""
        with self._lock:
            if self._sim is None and self._pending is None:
                if self._background:
                    self._pending = _begin_sim_in_process()
                else:
                    self._sim = self._start_sim()
            serial = self._sim.serial if self._sim is not None else self._pending.serial
            self.current = ChosenPhone(serial, "simulated phone", "sim", is_sim=True)
            return self.current

    def wait_ready(self, timeout: float | None = None) -> None:
        """Return once the current phone can be used: at once for a real phone or an
        attached simulated one; else when the background attach ends. Raises
        PhoneOpenError (the attach's sentence) when it failed, every time it is asked."""
        with self._lock:
            pending = self._pending
        if pending is None or not self.current.is_sim:
            return
        from mika.cap.phone import PhoneOpenError
        from mika.sim.launch import SimLaunchError

        try:
            sim = pending.wait(timeout)
        except SimLaunchError as exc:
            raise PhoneOpenError(str(exc)) from None
        with self._lock:
            if self._pending is pending:
                self._sim, self._pending = sim, None

    def capability(
        self,
        redact: Callable[[str], None] | None = None,
        display: str = "main",
        keep_apps: bool = False,
        vision: Any = None,
        pace: str = "fast",
        picture_long_side: int = 1024,
        picture_format: str = "webp",
    ) -> PhoneCapability:
        """A fresh phone capability for one run, on the phone chosen now; `display` is
        `[phone] display` ("virtual": a display of the run's own); `keep_apps` is
        `[phone] keep_apps_after_run`; `vision`: the vision model, if any."""
        from mika.cap.phone import open_phone

        self.wait_ready()
        return open_phone(
            self.current.serial,
            state_dir=self.state_dir,
            redact=redact,
            display=display,
            keep_apps=keep_apps,
            vision=vision,
            pace=pace,
            picture_long_side=picture_long_side,
            picture_format=picture_format,
        )

    def close(self) -> None:
        with self._lock:
            sim, self._sim = self._sim, None
            pending, self._pending = self._pending, None
        if pending is not None:
            pending.close()
        if sim is not None:
            sim.close()


def _attached(wanted: str | None, *, lenient: bool) -> ChosenPhone | None:
    from mika.cap.phone import PhoneOpenError
    from mika.cap.phone.adb.devices import DeviceChoiceError, list_devices, pick_serial
    from mika.cap.phone.adb.server import AdbServerError, adb_client

    try:
        client = adb_client()
        if lenient and not wanted:
            ready = [r for r in list_devices(client) if r.state == "device"]
            if not ready:
                return None
            row = ready[0]
        else:
            serial = pick_serial(client, wanted)
            row = next(r for r in list_devices(client) if r.serial == serial)
    except (AdbServerError, DeviceChoiceError) as exc:
        if lenient and not wanted:
            return None  # the Devices screen shows what adb says
        raise PhoneOpenError(str(exc)) from None
    except StopIteration:  # detached between the two listings
        raise PhoneOpenError(f"phone {wanted!r} went away while it was being chosen; try again") from None
    return ChosenPhone(row.serial, row.model or row.serial, row.transport)


def _start_sim_in_process() -> Any:
    # The assembly is the one product module that starts the simulated phone (see the
    # import contract "Only the CLI, the assembly and tests reach the simulated phone").
    from mika.cap.phone import PhoneOpenError
    from mika.sim.launch import SimLaunchError, start_sim

    try:
        return start_sim()
    except SimLaunchError as exc:
        raise PhoneOpenError(str(exc)) from None


def _begin_sim_in_process() -> Any:
    # The phone stack (~0.3 s to import) is not loaded before the phone begins attaching:
    # the adb server's side of the attach runs while this process imports it.
    from mika.sim.launch import SimLaunchError, begin_sim

    try:
        return begin_sim()
    except SimLaunchError as exc:
        raise phone_open_error()(str(exc)) from None


def phone_open_error() -> type[Exception]:
    """PhoneOpenError, for an `except` clause: Python evaluates a clause's class only while
    an exception is being matched, so a start without a phone never imports the phone stack
    for it (and one raised by the phone stack finds it imported already)."""
    from mika.cap.phone import PhoneOpenError

    return PhoneOpenError
