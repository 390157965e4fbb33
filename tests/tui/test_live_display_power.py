"""A display the phone powers off while the user looks at the run's preview (issue 13,
"The display's life"): the real app (`build_deps`, the simulated phone over the test's adb
server). The preview's decoder feeds the keeper's black-frame watch (LiveDisplay wires it);
that brings the `dumpsys display` check forward, the display is made again, the run's task
moves onto it and the preview follows the new display; during "operate here" (the run
waits, nothing else asks) the screen asks the keeper itself and the hands move too.
"""

from __future__ import annotations

from mika_tui.frames import VideoFrameSource
from mika_tui.widgets.preview import PhonePreview
from tests.tui import scenes
from tests.tui.conftest import settle, until
from tests.tui.test_live_display import SIZE, real_app
from tests.tui.test_takeover_keeps_app import SETTINGS, phone_state, settings_tasks, to_takeover

POWER_SCRIPT = [
    {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": SETTINGS}}]},
    {"tool_calls": [{"name": "hand_to_user", "arguments": {"reason": "login", "message": "Log in, please."}}]},
    {"tool_calls": [{"name": "phone_observe", "arguments": {}}]},
    # Holds the run on its new display while the test looks at the preview.
    {"tool_calls": [{"name": "hand_to_user", "arguments": {"reason": "captcha", "message": "One more."}}]},
    "Done.",
]


async def test_the_preview_s_black_pictures_lead_to_a_new_display_the_preview_follows(tmp_path, sim_phone, monkeypatch):
    deps, cleanup, app = real_app(tmp_path, sim_phone, monkeypatch, POWER_SCRIPT)
    asm = deps.assembly
    assert asm is not None
    try:
        async with app.run_test(size=SIZE) as pilot:
            run_id, first, task = await to_takeover(pilot, sim_phone)
            main = app.main_screen
            preview = main.query_one(PhonePreview)
            await until(lambda: isinstance(preview.video, VideoFrameSource), 10)
            first_decoder = preview.video.decoder
            keeper = asm.live[run_id].phone.keeper
            keeper.power_check_s = 3600  # no check by time: only the preview's pictures can call it
            asked = scenes.view(pilot).card.question_id
            sim_phone.shell(f"simctl display off {first}")
            # The preview's decoder feeds the keeper's watch (LiveDisplay wires it).
            await until(lambda: keeper.black.suspicious, 15)
            await pilot.click("#takeover-done")
            await until(lambda: main.run_displays.get(run_id, first) != first, 20)
            second = main.run_displays[run_id]
            assert second > 0 and keeper.recreated == 1
            await until(lambda: preview.display_index == second, 10)
            assert isinstance(preview.video, VideoFrameSource) and preview.video.decoder is not first_decoder
            displays = phone_state(sim_phone)["displays"]
            assert str(first) not in displays and displays[str(second)]["foreground"] == SETTINGS
            assert settings_tasks(sim_phone, second) == [task]  # moved, not started again
            await until(
                lambda: scenes.view(pilot).card is not None and scenes.view(pilot).card.question_id != asked, 20
            )
            await settle(pilot)
            await pilot.click("#takeover-done")
            await until(lambda: not scenes.view(pilot).running, 30)
    finally:
        cleanup()


async def test_operating_a_display_the_phone_powers_off_moves_the_hands_to_the_new_one(
    tmp_path, sim_phone, monkeypatch
):
    """The run waits during "operate here", so nothing else would notice: the preview's
    black pictures make the screen ask the keeper, the display is made again, and the
    user's clicks go to the new display."""
    from mika.cap.phone.display.input import ControlDisplayInput
    from tests.tui.test_preview import cell_on, tappable_row

    deps, cleanup, app = real_app(tmp_path, sim_phone, monkeypatch, POWER_SCRIPT)
    asm = deps.assembly
    assert asm is not None
    try:
        async with app.run_test(size=SIZE) as pilot:
            run_id, first, task = await to_takeover(pilot, sim_phone)
            main = app.main_screen
            preview = main.query_one(PhonePreview)
            await until(lambda: isinstance(preview.video, VideoFrameSource), 10)
            keeper = asm.live[run_id].phone.keeper
            keeper.power_check_s = 3600  # only the black pictures can bring the check
            await pilot.press("o")
            await until(lambda: preview.control is not None, 5)
            assert preview.control.display == first
            sim_phone.shell(f"simctl display off {first}")
            await until(lambda: keeper.state.id != first, 20)
            second = keeper.state.id
            assert keeper.recreated == 1
            assert second not in (0, first)
            await until(lambda: preview.control is not None and preview.control.display == second, 10)
            assert isinstance(preview.control, ControlDisplayInput)
            assert settings_tasks(sim_phone, second) == [task]
            await until(lambda: preview.display_index == second and preview.frames_shown > 0, 10)
            # A click on a Settings row is a tap on the new display.
            before = phone_state(sim_phone)["screen"][str(second)]
            row = tappable_row(sim_phone, second)
            await until(
                lambda: preview.picture_size == tuple(phone_state(sim_phone)["displays"][str(second)]["size"]), 10
            )
            cx, cy = cell_on(preview, row.bounds)
            await pilot.click(preview, offset=(cx + 1, cy + 1))
            await until(lambda: phone_state(sim_phone)["screen"][str(second)] != before, 10)
            asked = scenes.view(pilot).card.question_id
            await pilot.click("#takeover-done")
            await until(
                lambda: scenes.view(pilot).card is not None and scenes.view(pilot).card.question_id != asked, 20
            )
            # The run's phone_observe after the takeover worked on the new display.
            session = asm.live[run_id].phone.session
            assert session.display == second and session.reader.display == second
            await settle(pilot)
            await pilot.click("#takeover-done")
            await until(lambda: not scenes.view(pilot).running, 30)
    finally:
        cleanup()
