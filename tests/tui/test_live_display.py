"""The real app (`mika_tui.launch.build_deps`: the assembly, a scripted model, the simulated
phone over the test's adb server) with the agent's own display wired end to end:

- a run opens Settings on its virtual display: the preview's pictures come from that
  display's decoded video (the decoder the assembly keeps for the run), at its size;
- during the run's takeover, "operate here" and a click on the preview land a tap on the
  run's display N (through its control socket), display 0 untouched (`simctl state`);
- after Done, the run's next read-only phone tool (phone_screenshot, whose checks would
  reuse the reader's current screen) reads the phone afresh: the reader's version moves on
  to the screen the user left, not the screen it held before the takeover.
"""

from __future__ import annotations

import json

from mika.cap.phone.display.input import ControlDisplayInput
from mika.config.settings import load_settings
from mika_tui.app import MikaApp
from mika_tui.frames import VideoFrameSource
from mika_tui.launch import build_deps
from mika_tui.widgets.preview import PhonePreview
from tests.tui import scenes
from tests.tui.conftest import settle, until
from tests.tui.test_preview import cell_on, tappable_row

SIZE = (160, 50)
CONFIG = """
[phone]
display = "virtual"

[general]
autonomous = true
"""

SCRIPT = [
    {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "com.android.settings"}}]},
    {"tool_calls": [{"name": "hand_to_user", "arguments": {"reason": "login", "message": "Log in, please."}}]},
    # A read-only tool that would reuse the screen the reader holds: after the takeover it
    # must read the phone again (phone_observe always reads; the screenshot's checks may not).
    {"tool_calls": [{"name": "phone_screenshot", "arguments": {}}]},
    "Settings is open.",
]


def state(sim_phone) -> dict:
    return json.loads(sim_phone.shell("simctl state"))


def real_app(tmp_path, sim_phone, monkeypatch, replies) -> tuple:
    """The app as `mika` builds it (config file, assembly, the simulated phone, a script
    model): (deps, cleanup, app)."""
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path / "state"))
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(replies))
    deps, cleanup = build_deps(
        load_settings(str(config)), device=sim_phone.serial, model=f"script:{script}", graphics=None
    )
    app = MikaApp(deps, theme="mika-test")
    app.animation_level = "none"
    return deps, cleanup, app


async def test_the_preview_shows_the_runs_display_and_a_takeover_click_taps_it(tmp_path, sim_phone, monkeypatch):
    before = state(sim_phone)
    deps, cleanup, app = real_app(tmp_path, sim_phone, monkeypatch, SCRIPT)
    asm = deps.assembly
    assert asm is not None
    try:
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "open Settings", "takeover")
            run_id = scenes.view(pilot).run_id
            main = app.main_screen
            display = main.run_displays[run_id]
            assert display > 0, "the run fell back to the main screen"
            during = state(sim_phone)
            assert during["foreground"][str(display)].startswith("com.android.settings/")
            assert during["foreground"]["0"] == before["foreground"]["0"]

            # The preview's source is the run's video, its pictures the display's size.
            preview = main.query_one(PhonePreview)
            video = asm.display_video(run_id)
            assert video is not None and video.display == display
            await until(lambda: isinstance(preview.video, VideoFrameSource), 10)
            assert preview.video.decoder is video.decoder and preview.display_index == display
            await until(lambda: preview.frames_shown > 0 and preview.picture_size == video.size, 10)
            assert preview.showing_video and video.decoder.latest() is not None
            assert preview.display_size == video.size

            # The run's own screenshots of display N are the decoded frame meanwhile.
            phone = asm.live[run_id].phone
            assert phone.port.frame_source is not None
            frame = phone.port.frame_source(display)  # the decoded frame itself, no PNG between
            assert frame is not None and frame.size == video.size

            # Operate here: a click on a Settings row is a tap on display N.
            reader = phone.reader
            held = reader.tracker.current
            assert held is not None
            row = tappable_row(sim_phone, display)
            await pilot.press("o")
            await until(lambda: preview.control is not None, 5)
            assert isinstance(preview.control, ControlDisplayInput) and preview.control.display == display
            cx, cy = cell_on(preview, row.bounds)
            await pilot.click(preview, offset=(cx + 1, cy + 1))  # +1: the border
            await until(lambda: state(sim_phone)["screen"][str(display)] != during["screen"][str(display)], 10)
            after = state(sim_phone)
            assert after["screen"]["0"] == before["screen"]["0"]
            assert after["foreground"]["0"] == before["foreground"]["0"]

            # Done: the run's screenshot checks the screen the user left, read afresh.
            await pilot.click("#takeover-done")
            await until(lambda: scenes.view(pilot) is not None and not scenes.view(pilot).running, 30)
            assert scenes.view(pilot).status == "answered"
            assert preview.control is None
            fresh = reader.tracker.current
            assert fresh is not None and fresh.version > held.version
            # The run ended: the preview is back to the screencap picture of display 0.
            await until(lambda: preview.video is None, 10)
            assert preview.display_index == 0
            assert run_id not in asm.live
            await settle(pilot)
    finally:
        cleanup()


RECREATE_SCRIPT = [
    {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "com.android.settings"}}]},
    {"tool_calls": [{"name": "hand_to_user", "arguments": {"reason": "login", "message": "Log in, please."}}]},
    {"tool_calls": [{"name": "phone_observe", "arguments": {}}]},
    # Holds the run on its new display while the test looks at the preview.
    {"tool_calls": [{"name": "hand_to_user", "arguments": {"reason": "captcha", "message": "One more."}}]},
    "Done.",
]


async def test_a_display_made_anew_is_followed_by_the_preview(tmp_path, sim_phone, monkeypatch):
    deps, cleanup, app = real_app(tmp_path, sim_phone, monkeypatch, RECREATE_SCRIPT)
    asm = deps.assembly
    assert asm is not None
    try:
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "open Settings", "takeover")
            run_id = scenes.view(pilot).run_id
            main = app.main_screen
            preview = main.query_one(PhonePreview)
            first = main.run_displays[run_id]
            asked = scenes.view(pilot).card.question_id
            await until(lambda: isinstance(preview.video, VideoFrameSource), 10)
            first_decoder = preview.video.decoder
            # The display's helper dies (as when the phone kills it): the next phone call
            # makes a new display, and the preview follows it.
            server = asm.live[run_id].phone.keeper.server
            pids = [ln.split()[1] for ln in sim_phone.shell("ps -A").splitlines() if ln.endswith(" app_process")]
            assert pids, "the display's server is not running"
            for pid in pids:
                sim_phone.shell(f"kill {pid}")
            assert server.wait_ended(10)
            shown = preview.frames_shown
            await pilot.click("#takeover-done")
            await until(lambda: main.run_displays.get(run_id, first) != first, 20)
            second = main.run_displays[run_id]
            assert second > 0
            await until(lambda: preview.display_index == second, 10)
            assert isinstance(preview.video, VideoFrameSource) and preview.video.decoder is not first_decoder
            assert first_decoder.ended  # the old display's decoder is not left running
            video = asm.display_video(run_id)
            assert video is not None and video.display == second and preview.video.decoder is video.decoder
            await until(lambda: preview.frames_shown > shown and preview.picture_size == video.size, 10)
            await until(
                lambda: scenes.view(pilot).card is not None and scenes.view(pilot).card.question_id != asked, 20
            )
            await settle(pilot)
            await pilot.click("#takeover-done")
            await until(lambda: not scenes.view(pilot).running, 30)
            await until(lambda: preview.video is None, 10)
    finally:
        cleanup()


async def test_move_to_my_screen_moves_the_runs_display_task_and_back(tmp_path, sim_phone, monkeypatch):
    before = state(sim_phone)
    # The second hand-over holds the display.
    _deps, cleanup, app = real_app(tmp_path, sim_phone, monkeypatch, RECREATE_SCRIPT)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "open Settings", "takeover")
            run_id = scenes.view(pilot).run_id
            display = app.main_screen.run_displays[run_id]
            assert display > 0 and app.main_screen.query_one(PhonePreview).display_index == display
            settings = state(sim_phone)["foreground"][str(display)]
            asked = scenes.view(pilot).card.question_id
            await pilot.press("m")
            await until(lambda: state(sim_phone)["foreground"]["0"] == settings, 10)
            assert state(sim_phone)["foreground"][str(display)] is None
            await pilot.click("#takeover-done")
            await until(lambda: state(sim_phone)["foreground"].get(str(display)) == settings, 10)
            assert state(sim_phone)["foreground"]["0"] == before["foreground"]["0"]
            await until(
                lambda: scenes.view(pilot).card is not None and scenes.view(pilot).card.question_id != asked, 20
            )
            await settle(pilot)
            await pilot.click("#takeover-done")
            await until(lambda: not scenes.view(pilot).running, 30)
    finally:
        cleanup()
