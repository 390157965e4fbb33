"""Building the real app's dependencies: the main model, the phone (or the simulated one),
the frame source, the run factory. Errors become lines the app shows, never tracebacks.

The simulated phone is started as `mika sim` in a child process and attached through
the adb server like any phone: the TUI never imports mika.sim (the layering contract).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from mika.config.errors import ConfigError
from mika.config.paths import state_dir
from mika.config.secret_discovery import register_configured_secrets
from mika_tui.deps import AppDeps, DeviceInfo
from mika_tui.devices_port import AdbDevicesPort, DeviceOpError, transport_of
from mika_tui.frames import AdbFrameSource

MODEL_MISSING = "model_missing"  # an i18n key: the app says it in the user's language


class SimProcess:
    """`mika sim` as a child process, attached to the adb server."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.serial = ""

    def start(self, timeout: float = 20.0) -> DeviceInfo:
        import adbutils

        self.proc = subprocess.Popen([sys.executable, "-m", "mika.cli", "sim"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.stop()
            raise DeviceOpError("the simulated phone did not start (run `mika sim` to see why)")
        self.serial = line.removeprefix("listening on ")
        try:
            adbutils.adb.connect(self.serial, timeout=timeout)
            adbutils.adb.wait_for(self.serial, state="device", timeout=timeout)
        except (adbutils.AdbError, OSError) as exc:
            self.stop()
            raise DeviceOpError(f"the adb server could not attach the simulated phone: {exc}") from None
        return DeviceInfo(self.serial, "simulated phone", "sim", 0, is_sim=True)

    def stop(self) -> None:
        if self.serial:
            try:
                import adbutils

                adbutils.adb.disconnect(self.serial)
            except Exception:
                pass  # the server may be gone already
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def _ensure_adb_server() -> None:
    """The adb server found the way adb finds it (ADB_SERVER_SOCKET, ANDROID_ADB_SERVER_PORT),
    or the bundled one started; a failure shows in the Devices list, not here."""
    from mika.cap.phone.adb.server import AdbServerError, adb_client

    with contextlib.suppress(AdbServerError):
        adb_client()


def pick_device(wanted: str | None, port: AdbDevicesPort, sim: SimProcess) -> tuple[DeviceInfo, str]:
    """The phone to use, and an error line if none could be had."""
    try:
        _ensure_adb_server()
        rows = [r for r in port.list() if r.state == "device"]
    except (DeviceOpError, OSError, subprocess.SubprocessError) as exc:
        rows, error = [], str(exc)
    else:
        error = ""
    if wanted and wanted != "sim":
        row = next((r for r in rows if r.serial == wanted), None)
        if row is None:
            return DeviceInfo(), f"phone {wanted!r} is not attached (see Devices, /device)"
        return DeviceInfo(row.serial, row.model or row.serial, row.transport), ""
    if rows and wanted != "sim":
        row = rows[0]
        return DeviceInfo(row.serial, row.model or row.serial, transport_of(row.serial)), ""
    try:
        return sim.start(), ""
    except DeviceOpError as exc:
        return DeviceInfo(), error or str(exc)


def build_deps(settings: Any, *, device: str | None, model: str | None, graphics: str | None) -> tuple[AppDeps, Callable[[], None]]:
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.model.errors import ModelError
    from mika.model_select import select_models
    from mika.record.redactor import Redactor
    from mika.run.task_run import RunOptions, TaskRun
    from mika.run.ui_text import set_language

    register_configured_secrets(settings)
    set_language(settings.ui_language)  # texts the core writes into runs (stop, recovery)
    sdir = state_dir()
    chosen, model_error = None, ""
    try:
        chosen = select_models(settings, model, sdir)
    except ConfigError as exc:
        # The first run has no model yet: say where to set one up, not the TOML example.
        model_error = MODEL_MISSING if exc.key == "roles.main" and "a main model" in exc.expected else str(exc)
    except ModelError as exc:
        model_error = exc.user_message()
    port = AdbDevicesPort()
    sim = SimProcess()
    info, device_error = pick_device(device or settings.device or None, port, sim)
    deps = AppDeps(
        settings=settings, state_dir=sdir, run_factory=None,
        model_label=f"{chosen.main.provider}/{chosen.main.name}" if chosen is not None else "",
        model_error=model_error or device_error, device=info,
        frames=AdbFrameSource(info.serial) if info.serial else None,
        graphics=graphics or settings.graphics, clock=time.time, devices_port=port,
        start_sim=sim.start,
    )

    def factory(spec):
        from mika.cap.phone import open_phone

        # One redactor per run, so what the phone types into a password field is masked
        # in that run's record. The phone is whatever Devices chose last.
        redactor = Redactor()
        serial = deps.device.serial
        opener = (lambda: open_phone(serial, state_dir=sdir, redact=redactor.add_secret)) if serial else None
        env = RunEnvironment(autonomous=settings.autonomous, state_dir=sdir, phone=opener)
        options = RunOptions(autonomous=settings.autonomous, state_dir=sdir, redactor=redactor)
        return TaskRun(spec, chosen.main, capabilities_for(spec, env), options, light=chosen.light)

    if chosen is not None:
        deps.run_factory = factory

    def cleanup() -> None:
        sim.stop()
        if chosen is not None:
            chosen.close()

    return deps, cleanup
