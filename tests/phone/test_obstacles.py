"""phone_dialog and handle_obstacle on the simulated phone through real adb: the Video
app's splash ad, update prompt and rating request, the system permission prompt, and the
routes around them (a fake Skip in the ad, a fake permission prompt, a payment behind "OK")."""

from __future__ import annotations

from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, world_state


def video(sim_phone) -> dict:
    return world_state(sim_phone).get("video") or {}


async def test_handle_obstacle_clears_splash_update_and_rating_to_the_home_screen(tmp_path, sim_phone, phone_cap):
    sim_phone.shell("simctl set video.ask_rating true")
    driver = ListingDriver([step("phone_launch_app", app="Video"), step("handle_obstacle"), "home"])
    result = await make_run(tmp_path, phone_cap, driver).run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    cleared = driver.results[1]
    assert "splash_ad: pressed 'Skip" in cleared and "update: pressed 'Later'" in cleared, cleared
    assert "rating: pressed 'Not now'" in cleared, cleared
    state = video(sim_phone)
    assert state.get("splash_skipped") is True and state.get("update_dismissed") is True
    assert state.get("rating_dismissed") is True and not state.get("rating_never")
    # the traps were never pressed
    assert not state.get("ad_opened") and not state.get("update_started") and not state.get("rated")
    assert "HomeActivity" in sim_phone.shell("dumpsys window | grep mCurrentFocus")
