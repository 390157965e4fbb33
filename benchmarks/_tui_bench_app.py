"""Shared by the TUI benchmarks: the app with a scripted model and simulated-phone frames."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path


def sim_png() -> bytes:
    from mika.sim.phone import make_device
    from mika.sim.shell.commands.ui import screenshot

    return screenshot(make_device("mika-sim").world, 0, "png")


def make_app(fps: float = 5.0, frames: list[bytes] | None = None):
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.config.settings import Settings
    from mika.model.testing import ScriptedModel
    from mika.run.task_run import RunOptions, TaskRun
    from mika_tui.app import MikaApp
    from mika_tui.deps import AppDeps, DeviceInfo
    from mika_tui.frames import StaticFrameSource

    state = Path(tempfile.mkdtemp()) / "state"
    model = ScriptedModel(["ok"] * 100)

    def factory(spec):
        return TaskRun(spec, model, capabilities_for(spec, RunEnvironment()), RunOptions(pacing=False, state_dir=state))

    deps = AppDeps(
        settings=Settings(language="en"),
        state_dir=state,
        run_factory=factory,
        model_label="test/scripted",
        device=DeviceInfo("127.0.0.1:40001", "simulated phone", "sim", 0, is_sim=True),
        frames=StaticFrameSource(frames or [sim_png()]),
        clock=time.time,
        preview_fps=fps,
    )
    app = MikaApp(deps)
    app.animation_level = "none"
    return app
