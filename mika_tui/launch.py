"""The real app's dependencies, from the assembly: the models, the phone (or the simulated
one), the frame source, the run factory and the TaskCenter. Errors become lines the app
shows, never tracebacks.

The assembly is lenient here: a first run without a model, or without a phone, still
opens the app, which says how to set them up. The simulated phone is started by the
assembly (in-process, like headless mode); the TUI never imports mika.sim. It attaches
in the background: the app paints first, and the preview's first grab (in its worker
thread) waits for the phone.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from mika.assembly import Assembly
from mika.assembly.device import ChosenPhone, DeviceChoice
from mika.config.errors import ConfigError
from mika_tui.deps import AppDeps, DeviceInfo
from mika_tui.frames import AdbFrameSource, FrameError

MODEL_MISSING = "model_missing"  # an i18n key: the app says it in the user's language


def device_info(phone: ChosenPhone) -> DeviceInfo:
    return DeviceInfo(phone.serial, phone.name, phone.transport, 0, is_sim=phone.is_sim)


def model_error_line(problem: Exception | None) -> str:
    from mika.model.errors import ModelError

    if isinstance(problem, ConfigError):
        # The first run has no model yet: say where to set one up, not the TOML example.
        return MODEL_MISSING if problem.key == "roles.main" and "a main model" in problem.expected else str(problem)
    if isinstance(problem, ModelError):
        return problem.user_message()
    return str(problem) if problem is not None else ""


class FramesWhenReady:
    """The chosen phone's frames, once it can be used: the wait for a simulated phone
    still attaching happens in the preview's worker, not before the first paint; an
    attach that failed is the preview's error line (the same sentence, every grab)."""

    def __init__(self, device: DeviceChoice, serial: str) -> None:
        self.serial = serial
        self._device = device
        self._frames = AdbFrameSource(serial)

    def grab(self, display: int = 0) -> bytes:
        from mika.cap.phone import PhoneOpenError

        try:
            self._device.wait_ready()
        except PhoneOpenError as exc:
            raise FrameError(str(exc)) from None
        return self._frames.grab(display)


def _start_sim(asm: Assembly) -> DeviceInfo:
    """The Devices screen's "use the simulated phone": the assembly's one, started once."""
    from mika.assembly.devices import DeviceOpError
    from mika.cap.phone import PhoneOpenError

    try:
        return device_info(asm.device.use_sim())
    except PhoneOpenError as exc:
        raise DeviceOpError(str(exc)) from None


def _apps_of(asm: Assembly, devices: Any, serial: str) -> tuple[str, ...]:
    """A phone's packages; the simulated phone still attaching is waited for first."""
    from mika.cap.phone import PhoneOpenError

    if serial == asm.device.current.serial:
        try:
            asm.device.wait_ready()
        except PhoneOpenError:
            return ()
    return tuple(devices.packages(serial))


def build_deps(
    settings: Any, *, device: str | None, model: str | None, graphics: str | None, assembly: Assembly | None = None
) -> tuple[AppDeps, Callable[[], None]]:
    """`assembly`: an already opened one (tests hand in theirs); else opened here."""
    from mika.assembly.devices import AdbDevices
    from mika_tui.examples import catalog_names

    asm = assembly or Assembly.open(settings, device=device, model=model, lenient=True)
    info = device_info(asm.device.current)
    models = asm.models
    deps = AppDeps(
        settings=settings,
        state_dir=asm.state_dir,
        run_factory=asm.run_factory,
        model_label=f"{models.main.provider}/{models.main.name}" if models is not None else "",
        model_error=model_error_line(asm.model_problem) or asm.device_problem,
        device=info,
        frames=FramesWhenReady(asm.device, info.serial) if info.serial else None,
        graphics=graphics or settings.graphics,
        clock=time.time,
        devices_port=(devices := AdbDevices()),
        start_sim=lambda: _start_sim(asm),
        assembly=asm,
        apps_of=lambda serial: _apps_of(asm, devices, serial),
        app_names=catalog_names(asm.knowledge),
    )
    return deps, asm.close
