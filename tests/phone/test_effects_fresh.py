"""Effects judged against the screen after the action (issue 33): HOME and app launches
that follow another action at once (the scripted model answers in well under 150 ms)
come back as what they did, place_changed, never as no_effect from a reused screen —
on the run's own display (control channel) and on the main display."""

from __future__ import annotations

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record, results_of


@pytest.mark.parametrize(("mode", "backend"), [("virtual", "u2"), ("main", "u2"), ("main", "dump")])
async def test_home_and_launches_right_after_an_action_say_what_they_did(tmp_path, sim_phone, mode, backend):
    cap = PhoneCapability(AdbPort(sim_phone.serial, sim_phone.server.client(), backend=backend), display_mode=mode)
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Contacts"),
            step("phone_tap", pick="Bob Li"),
            step("phone_press_key", key="HOME"),
            step("phone_launch_app", app="Settings"),
            step("phone_press_key", key="HOME"),
            step("phone_launch_app", app="Notes"),
            "done",
        ]
    )
    run = make_run(tmp_path, cap, driver)
    await run.run()
    events = record(run)
    results = [e for e in events if e["type"] == "tool_result"]
    assert [e["name"] for e in results] == [
        "phone_launch_app",
        "phone_tap",
        "phone_press_key",
        "phone_launch_app",
        "phone_press_key",
        "phone_launch_app",
    ]
    assert [e["effect"] for e in results] == ["place_changed"] * 6, [(e["name"], e["effect"]) for e in results]
    # each result names the screen it led to, read after the action
    assert "com.android.settings" in results[3]["text"] and "com.mika.notes" in results[5]["text"]
    assert all(e["name"] != "phone_launch_app" or e["ok"] for e in results)
    assert results_of(events, "phone_press_key")[0]["ok"]
