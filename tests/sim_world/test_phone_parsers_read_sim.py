"""The phone capability's parsers (written against real phones' output) read the
simulated phone's command output: keeps the simulator's formats honest."""

from __future__ import annotations

import pytest

from mika.sim.phone import make_device
from tests.sim_world.driver import Local


@pytest.fixture
def d() -> Local:
    phone = Local(make_device("p"))
    phone.shell("monkey -p com.android.settings -c android.intent.category.LAUNCHER 1")
    return phone


def test_window_focus_activity_display_and_input(d: Local) -> None:
    from mika.cap.phone.adb.parse.activity import parse_resumed_activities
    from mika.cap.phone.adb.parse.display import parse_display
    from mika.cap.phone.adb.parse.input_dump import parse_input
    from mika.cap.phone.adb.parse.window import parse_window_focus

    focus = parse_window_focus(d.shell("dumpsys window")).for_display(0)
    assert focus is not None and focus.package == "com.android.settings"
    assert parse_resumed_activities(d.shell("dumpsys activity activities"))
    (display,) = parse_display(d.shell("dumpsys display"))
    assert display.size == (1080, 2400) and display.density == 440 and display.state == "ON"
    state = parse_input(d.shell("dumpsys input"))
    assert state.interactive is True and state.focused is not None and state.focused.package == "com.android.settings"
    assert state.viewports[0].device_size == (1080, 2400)


def test_ime_power_battery_wm_getprop_packages_surfaceflinger(d: Local) -> None:
    from mika.cap.phone.adb.parse.battery import parse_battery
    from mika.cap.phone.adb.parse.getprop import parse_getprop, sdk_level
    from mika.cap.phone.adb.parse.input_method import parse_input_shown
    from mika.cap.phone.adb.parse.packages import parse_packages
    from mika.cap.phone.adb.parse.power import parse_wakefulness
    from mika.cap.phone.adb.parse.surfaceflinger import parse_surfaceflinger_displays
    from mika.cap.phone.adb.parse.wm import parse_wm_density, parse_wm_size

    assert parse_input_shown(d.shell("dumpsys input_method")) is False
    assert parse_wakefulness(d.shell("dumpsys power")) == "Awake"
    assert parse_battery(d.shell("dumpsys battery")).level == 100
    assert parse_wm_size(d.shell("wm size")).physical == (1080, 2400)
    assert parse_wm_density(d.shell("wm density")).physical == 440
    assert sdk_level(parse_getprop(d.shell("getprop"))) == 34
    assert "com.mika.chat" in parse_packages(d.shell("pm list packages"))
    assert len(parse_surfaceflinger_displays(d.shell("dumpsys SurfaceFlinger --display-id"))) == 1
