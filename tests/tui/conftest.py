"""The TUI's test bed: an app factory with a test theme, no animation, a fixed clock,
temp XDG dirs, the package's scripted models and frames the simulated phone rendered.

TEXTUAL_* and NO_COLOR are stripped before Textual is imported here, so a developer's
environment never changes a snapshot.
"""

from __future__ import annotations

import os

# The snapshot plugin's own TEXTUAL_SNAPSHOT_* variables stay: it set them and needs them.
for _name in [
    n for n in os.environ if (n.startswith("TEXTUAL_") and not n.startswith("TEXTUAL_SNAPSHOT")) or n == "NO_COLOR"
]:
    del os.environ[_name]

import asyncio  # noqa: E402
import itertools  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from datetime import UTC  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402

from mika.assembly import RunEnvironment, capabilities_for  # noqa: E402
from mika.config.settings import Settings  # noqa: E402
from mika.model.retry import RetryPolicy  # noqa: E402
from mika.run.task_run import RunOptions, TaskRun  # noqa: E402
from mika_tui.app import MikaApp  # noqa: E402
from mika_tui.deps import AppDeps, DeviceInfo  # noqa: E402
from mika_tui.frames import StaticFrameSource  # noqa: E402
from tests.core.toy import ToyCapability, ToyWorld  # noqa: E402

# 2026-11-30 12:00 UTC: every elapsed time and usage range is computed against it.
FIXED_NOW = 1_796_040_000.0


class FixedClock:
    """Stands still unless a test moves it (so elapsed times in snapshots are chosen)."""

    def __init__(self, now: float = FIXED_NOW) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


_SIM_PNGS: list[bytes] = []


def sim_frames() -> list[bytes]:
    """The simulated phone's home screen, rendered by the sim and kept as a file, so a
    change in the sim's drawing never rewrites the TUI's snapshots. Regenerate with
    mika.sim.shell.commands.ui.screenshot(make_device("mika-sim").world, 0, "png")."""
    if not _SIM_PNGS:
        _SIM_PNGS.append((Path(__file__).parent / "frames" / "sim_home.png").read_bytes())
    return _SIM_PNGS


@pytest.fixture(autouse=True)
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("MIKA_CONFIG", "MIKA_LANGUAGE", "MIKA_AUTONOMOUS", "MIKA_PACE", "MIKA_DEVICE"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def make_app(
    tmp_path: Path,
    model: Any = None,
    *,
    language: str = "en",
    frames: Sequence[bytes] | None = None,
    world: ToyWorld | None = None,
    device: DeviceInfo | None = None,
    settings: Settings | None = None,
    devices_port: Any = None,
    autonomous: bool = False,
    apps: Sequence[str] | None = None,
) -> MikaApp:
    state = tmp_path / "state" / "mika"
    state.mkdir(parents=True, exist_ok=True)
    world = world or ToyWorld()

    def factory(spec):
        caps = capabilities_for(spec, RunEnvironment(autonomous=autonomous, extra=[ToyCapability(world)]))
        # Short retry waits: a retried model call takes milliseconds, not seconds.
        retry = RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0)
        # A run clock that ticks 1 ms per reading: a step's duration in the timeline is the
        # same on a loaded machine as on an idle one, so snapshots never see "0.1s".
        ticks = itertools.count()
        opts = RunOptions(
            autonomous=autonomous, pacing=False, state_dir=state, retry=retry, clock=lambda: next(ticks) / 1000
        )
        return TaskRun(spec, model, caps, opts)

    device = device or DeviceInfo("127.0.0.1:40001", "simulated phone", "sim", 0, is_sim=True)
    if apps is None and device.is_sim:
        # The simulated phone's apps, as its `pm list packages` reports them (the idle
        # chat's examples fit them); a test's own device brings its own list or none.
        from mika.sim.apps.registry import load_apps

        apps = tuple(load_apps())
    deps = AppDeps(
        settings=settings or Settings(language=language),
        state_dir=state,
        run_factory=factory if model is not None else None,
        model_label=f"{model.provider}/{model.name}" if model is not None else "",
        device=device,
        frames=StaticFrameSource(list(frames) if frames is not None else sim_frames()),
        clock=FixedClock(),
        preview_fps=5.0,
        devices_port=devices_port,
        tz=UTC,
        conversation_id="conv-test",
        known_apps={device.serial: tuple(apps)} if apps is not None and device.serial else {},
    )
    app = MikaApp(deps, theme="mika-test")
    app.animation_level = "none"
    return app


async def settle(pilot, *, frames: int = 1) -> None:
    """Until the preview has painted and the queue is quiet; cursors stop blinking."""
    from textual.widgets import Input

    from mika_tui.widgets.preview import PhonePreview

    app = pilot.app
    previews = app.screen.query(PhonePreview)
    if previews and previews.first().source is not None:
        # Waits on the preview's own signal; 15 s bounds a broken source on a loaded machine.
        await asyncio.wait_for(previews.first().wait_frames(frames), 15)
    for inp in app.screen.query(Input):
        inp.cursor_blink = False
    await pilot.pause()
    await pilot.pause()


async def until(predicate, timeout: float = 10.0) -> None:
    async def poll():
        while not predicate():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)
