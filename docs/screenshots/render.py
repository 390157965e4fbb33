"""Render the before/after screenshots of issue 17 (SVG, as Textual's snapshots are).

    uv run python docs/screenshots/render.py OUT_DIR LABEL

draws, with the test suite's apps (tests/tui/conftest.py: scripted model, toy world,
the simulated phone's frames, a fixed clock), at 160×48:
  main-idle   the main screen before any task
  main-run    the main screen after a three-step run
  models      the Models screen
  run-detail  a recorded run opened from Runs (its timeline and frame)
and writes LABEL-<scene>.svg into OUT_DIR. "before" was made by running this file with
the tree of the commit before the issue-17 work (7e95455) first on PYTHONPATH; "after"
with this tree. Only APIs both trees have are used.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

SIZE = (160, 48)


async def _scene(out: Path, label: str, name: str, build, act) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = build(Path(tmp))
        async with app.run_test(size=SIZE) as pilot:
            from tests.tui.conftest import settle

            await settle(pilot)
            await act(pilot, Path(tmp))
            await settle(pilot)
            await pilot.pause(0.3)
            app.save_screenshot(f"{label}-{name}.svg", str(out))


async def main(out: Path, label: str) -> None:
    from mika.model.testing import Reply, ScriptedModel
    from tests.tui import scenes
    from tests.tui.conftest import make_app, sim_frames, until

    async def nothing(pilot, tmp):
        return None

    async def run(pilot, tmp):
        await scenes.run_to_end(pilot, "what is on the shop's home screen")

    async def models(pilot, tmp):
        pilot.app.action_open("models")
        await pilot.pause(0.3)

    async def run_detail(pilot, tmp):
        run_id = scenes.write_run_record(tmp / "state" / "mika", sim_frames()[0])
        pilot.app.open_run(run_id)
        await until(lambda: type(pilot.app.screen).__name__ == "RunViewerScreen")

    def toy_run(tmp):
        return make_app(
            tmp,
            ScriptedModel(
                [
                    Reply.call("toy_open", page="Cart"),
                    Reply.call("toy_read"),
                    "The shop's home screen shows **3 toys**:\n\n1. Kite\n2. Yo-yo\n3. Top",
                ]
            ),
        )

    await _scene(out, label, "main-idle", lambda tmp: make_app(tmp, ScriptedModel(["hi"])), nothing)
    await _scene(out, label, "main-run", toy_run, run)
    await _scene(out, label, "models", lambda tmp: make_app(tmp, ScriptedModel(["hi"])), models)
    await _scene(out, label, "run-detail", lambda tmp: make_app(tmp, ScriptedModel(["hi"])), run_detail)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]).resolve(), sys.argv[2]))
