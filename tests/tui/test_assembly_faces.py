"""The terminal app builds its runs through the assembly, like headless mode: one settings
file gives both faces the same run options, and the app honours `[run] review_final_answer`
(issue 12: the TUI's own copy of the run factory dropped it).

The app here is the real one `mika` opens (`mika_tui.launch.build_deps`), over a config
file and a model script; only the phone is left out (`--device none`).
"""

from __future__ import annotations

import json
from dataclasses import fields

from mika.config.settings import load_settings
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika_tui.app import MikaApp
from mika_tui.launch import build_deps
from tests.tui import scenes
from tests.tui.conftest import settle, until

CONFIG = """
[run]
review_final_answer = true
judge_outcome = true
max_parallel = 2

[general]
autonomous = false
"""

# An answer with facts nothing was read for, then the honest one. With the review switch
# on, the first goes back to the model once (feedback/ungrounded.md) and the second stands.
SCRIPT = ["Order K-7731 costs ¥99.5.", "I could not find that order on the screen."]


def _files(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    return config, f"script:{script}"


async def test_the_app_sends_an_ungrounded_answer_back_when_review_is_on(tmp_path):
    config, model = _files(tmp_path)
    deps, cleanup = build_deps(load_settings(str(config)), device="none", model=model, graphics=None)
    try:
        app = MikaApp(deps, theme="mika-test")
        app.animation_level = "none"
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await scenes.type_task(pilot, "what does order K-7731 cost")
            await until(lambda: scenes.view(pilot) is not None and not scenes.view(pilot).running, 20)
            await until(lambda: app.center.state().running == ())
            run = next(iter(app.runs.values()))
            asked = run.model.requests
            assert len(asked) == 2, [r.messages[-1].text for r in asked]
            assert "K-7731" in asked[1].messages[-1].text  # the claim was sent back
            assert run.result.answer == "I could not find that order on the screen."
    finally:
        cleanup()


def test_both_faces_get_the_same_run_options_from_one_settings_file(tmp_path, monkeypatch):
    from mika.headless_command import open_assembly

    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path / "state"))
    config, model = _files(tmp_path)
    spec = RunSpec(goal="x", conversation_id="c1", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    headless = open_assembly(str(config), device="none", model=model)
    deps, cleanup = build_deps(load_settings(str(config)), device="none", model=model, graphics=None)
    try:
        assert deps.run_factory is not None
        a, b = headless.make_run(spec).options, deps.run_factory(spec).options
        compared = [f.name for f in fields(a) if f.name not in ("redactor", "retry", "clock")]
        assert {n: getattr(a, n) for n in compared} == {n: getattr(b, n) for n in compared}
        assert a.review_final_answer is True and b.review_final_answer is True
        # A scripted model's replies are the run's: no outcome judge takes one, in either face.
        assert a.judge_outcome is False and b.judge_outcome is False
        assert a.redactor is not None and b.redactor is not None and a.redactor is not b.redactor
        assert headless.settings.max_parallel == deps.settings.max_parallel == 2
    finally:
        headless.close()
        cleanup()


async def test_choosing_the_simulated_phone_in_devices_is_the_phone_the_next_run_gets(tmp_path, adb_server):
    import adbutils

    config, model = _files(tmp_path)
    deps, cleanup = build_deps(load_settings(str(config)), device="none", model=model, graphics=None)
    spec = RunSpec(goal="x", conversation_id="c1", provenance=RunProvenance(RunOrigin.UI, Attendance.PRESENT))
    try:
        assert deps.run_factory is not None
        assert "phone" not in [c.id for c in deps.run_factory(spec).capabilities]  # --device none
        app = MikaApp(deps, theme="mika-test")
        app.animation_level = "none"
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.action_open("devices")
            await pilot.pause()
            app.screen.on_use_sim()  # as the button does
            # (A screen has no call_from_thread: the old screen's worker died silently here.)
            await until(lambda: app.deps.device.is_sim, 30)
            serial = app.deps.device.serial
        # Started once, in this process, by the assembly; and runs from now on use it.
        assert deps.assembly is not None and deps.assembly.device.serial == serial
        run = deps.run_factory(spec)
        phone = next(c for c in run.capabilities if c.id == "phone")
        assert phone.port.serial == serial
        await phone.close()
    finally:
        cleanup()
    listed = [d.serial for d in adbutils.AdbClient(host="127.0.0.1", port=adb_server.port).device_list()]
    assert serial not in listed  # closing the app stopped the simulated phone
