"""Everything the app is given from outside: settings, state dir, clocks, the device, the
run factory. `run_app` builds the real ones; tests build their own (scripted model,
simulated-phone frames, fixed clock, temp dirs) — the app never reaches for globals.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from mika.config.settings import Settings
from mika.run.task_center import RunFactory
from mika.terminal_text import for_terminal, one_line
from mika_tui.frames import FrameSource

if TYPE_CHECKING:
    from mika.assembly import Assembly
    from mika.assembly.devices import DevicesPort


@dataclass(frozen=True)
class DeviceInfo:
    serial: str = ""
    name: str = ""
    transport: str = ""  # usb | tcp | sim
    display: int = 0
    is_sim: bool = False


def notify_argv(exe: str, title: str, body: str) -> list[str]:
    """notify-send's command line for text a model or a screen wrote: `--` so a body that
    starts with "-" is not an option, and the body's <, >, & escaped because notification
    servers read the body as markup (<a href>, <img>)."""
    import html

    clean = [one_line(title), html.escape(for_terminal(body), quote=False)]
    return [exe, "-a", "Mika", "--", *clean]


@dataclass
class AppDeps:
    settings: Settings
    state_dir: Path
    run_factory: RunFactory | None  # None: no model configured; sending says how to set one up
    model_label: str = ""
    model_error: str = ""
    device: DeviceInfo = field(default_factory=DeviceInfo)
    frames: FrameSource | None = None
    graphics: str = "halfcell"
    clock: Callable[[], float] = time.time
    preview_fps: float = 4.0
    # The Devices screen asks these (blocking; called from worker threads): the phone
    # layer's operations (mika.assembly.devices.AdbDevices, or a test's fixed table).
    devices_port: DevicesPort | None = None
    start_sim: Callable[[], DeviceInfo] | None = None
    conversation_id: str = ""
    tz: tzinfo | None = None  # None: the machine's zone (tests pin UTC)
    # What built the real app's runs: its TaskCenter (titles, stop summaries) and the phone
    # runs use. None: a test's own factory and a bare TaskCenter.
    assembly: Assembly | None = None
    # The idle chat's examples fit the phone (mika_tui/examples.py): `apps_of(serial)` asks
    # a phone for its packages (blocking; from a worker thread), `known_apps` keeps each
    # phone's answer, `app_names` is the knowledge catalog's package → name.
    apps_of: Callable[[str], tuple[str, ...]] | None = None
    known_apps: dict[str, tuple[str, ...]] = field(default_factory=dict)
    app_names: dict[str, str] = field(default_factory=dict)
    # "Sign in with ChatGPT" opens the authorize page with this (blocking; from a worker
    # thread). None: the system's browser (webbrowser). Tests give a small HTTP client.
    open_browser: Callable[[str], bool] | None = None

    def use_device(self, info: DeviceInfo) -> None:
        """The phone the next runs use (the Devices screen's choice)."""
        self.device = info
        if self.assembly is not None:
            from mika.assembly.device import ChosenPhone

            self.assembly.device.use(ChosenPhone(info.serial, info.name, info.transport, info.is_sim))
