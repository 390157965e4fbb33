"""An app the user took over from the takeover card is kept at the run's end, not closed
(issue 13 "Takeover"; the keeper's `user_has_it`, set through the assembly's LiveDisplay).

The real app (`build_deps`: assembly, scripted model, the simulated phone over the test's
adb server) with the run on its own display. The run's end is read from the phone
(`simctl state`, `am stack list`): the app's own task is on the user's main screen after
"operate here" or "move to my screen"; a run whose takeover was skipped closes it as usual.
"""

from __future__ import annotations

import json

from mika.cap.phone.display.leftovers import parse_mode, parse_tasks
from tests.tui import scenes
from tests.tui.conftest import settle, until
from tests.tui.test_live_display import SIZE, real_app

SETTINGS = "com.android.settings"
SCRIPT = [
    {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": SETTINGS}}]},
    {"tool_calls": [{"name": "hand_to_user", "arguments": {"reason": "login", "message": "Log in, please."}}]},
    "Settings is open.",
]


def phone_state(sim_phone) -> dict:
    return json.loads(sim_phone.shell("simctl state"))


def settings_tasks(sim_phone, display: int) -> list[int]:
    return [
        t.id for t in parse_tasks(sim_phone.shell("am stack list")) if t.package == SETTINGS and t.display == display
    ]


def sound(sim_phone) -> str | None:
    return parse_mode(sim_phone.shell(f"appops get {SETTINGS} PLAY_AUDIO"))


async def to_takeover(pilot, sim_phone) -> tuple[str, int, int]:
    """The run at its takeover card: (run id, its display, the Settings task there)."""
    await scenes.run_to_card(pilot, "open Settings", "takeover")
    run_id = scenes.view(pilot).run_id
    display = pilot.app.main_screen.run_displays[run_id]
    assert display > 0, "the run fell back to the main screen"
    (task,) = settings_tasks(sim_phone, display)
    assert settings_tasks(sim_phone, 0) == []
    return run_id, display, task


async def run_over(pilot, sim_phone, display: int, asm, run_id: str) -> None:
    await until(lambda: scenes.view(pilot) is not None and not scenes.view(pilot).running, 30)
    await until(lambda: run_id not in asm.live, 10)
    await until(lambda: str(display) not in phone_state(sim_phone)["displays"], 10)  # the display is gone


async def test_operating_the_display_from_the_preview_keeps_the_app_at_the_end(tmp_path, sim_phone, monkeypatch):
    deps, cleanup, app = real_app(tmp_path, sim_phone, monkeypatch, SCRIPT)
    asm = deps.assembly
    assert asm is not None
    try:
        async with app.run_test(size=SIZE) as pilot:
            run_id, display, task = await to_takeover(pilot, sim_phone)
            keeper = asm.live[run_id].phone.keeper
            assert keeper is not None and not keeper.user_has_it
            assert sound(sim_phone) == "ignore"  # muted on the agent's display
            await pilot.press("o")
            await until(lambda: keeper.user_has_it, 5)
            await until(lambda: sound(sim_phone) == "allow", 5)  # given back on takeover (seed §6)
            await pilot.click("#takeover-done")
            await run_over(pilot, sim_phone, display, asm, run_id)
            assert scenes.view(pilot).status == "answered"
            # Kept: the same task, moved to where the user finds it.
            assert settings_tasks(sim_phone, 0) == [task]
            assert phone_state(sim_phone)["foreground"]["0"].startswith(SETTINGS + "/")
            await settle(pilot)
    finally:
        cleanup()


async def test_a_run_stopped_while_its_task_is_on_the_users_screen_leaves_it_there(tmp_path, sim_phone, monkeypatch):
    deps, cleanup, app = real_app(tmp_path, sim_phone, monkeypatch, SCRIPT)
    asm = deps.assembly
    assert asm is not None
    try:
        async with app.run_test(size=SIZE) as pilot:
            run_id, display, task = await to_takeover(pilot, sim_phone)
            await pilot.press("m")
            await until(lambda: settings_tasks(sim_phone, 0) == [task], 10)
            assert asm.live[run_id].phone.keeper.user_has_it
            await until(lambda: sound(sim_phone) == "allow", 5)
            # The user stops the run while the app is still in their hands.
            await pilot.press("escape")
            await run_over(pilot, sim_phone, display, asm, run_id)
            assert scenes.view(pilot).status == "stopped"
            assert settings_tasks(sim_phone, 0) == [task], "the app the user was using was closed"
            assert phone_state(sim_phone)["foreground"]["0"].startswith(SETTINGS + "/")
            await settle(pilot)
    finally:
        cleanup()


async def test_a_skipped_takeover_does_not_keep_the_app(tmp_path, sim_phone, monkeypatch):
    """The other side: keeping is the takeover's doing, not every run's."""
    before = phone_state(sim_phone)
    deps, cleanup, app = real_app(tmp_path, sim_phone, monkeypatch, SCRIPT)
    asm = deps.assembly
    assert asm is not None
    try:
        async with app.run_test(size=SIZE) as pilot:
            run_id, display, _task = await to_takeover(pilot, sim_phone)
            keeper = asm.live[run_id].phone.keeper
            await pilot.press("s")
            await run_over(pilot, sim_phone, display, asm, run_id)
            assert not keeper.user_has_it
            assert settings_tasks(sim_phone, 0) == []  # closed with the display
            assert phone_state(sim_phone)["foreground"]["0"] == before["foreground"]["0"]
            await settle(pilot)
    finally:
        cleanup()
