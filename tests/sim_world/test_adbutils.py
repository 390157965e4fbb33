"""adbutils' own helpers, unchanged, against the simulated phone over a real adb server."""

from __future__ import annotations

from tests.sim_world.driver import OverAdb, state


def test_app_current_start_stop_and_info(sim_phone) -> None:
    dev = sim_phone.adb
    dev.app_start("com.android.settings")
    cur = dev.app_current()
    assert cur.package == "com.android.settings" and cur.activity == ".Settings" and cur.pid > 0
    dev.app_start("com.android.contacts", ".activities.PeopleActivity")
    assert dev.app_current().package == "com.android.contacts"
    dev.app_stop("com.android.contacts")
    assert dev.app_current().package == "com.android.settings"
    info = dev.app_info("com.mika.chat")
    assert info is not None and info.version_name and info.path.endswith("base.apk")
    assert dev.app_info("com.nope") is None
    assert "com.mika.shop" in dev.list_packages(["-3"])


def test_window_size_rotation_screenshot_and_dump(sim_phone) -> None:
    dev = sim_phone.adb
    assert tuple(dev.window_size()) == (1080, 2400)
    assert dev.rotation() == 0
    assert dev.screenshot().size == (1080, 2400)
    assert dev.screenshot(display_id=0).size == (1080, 2400)
    assert dev.dump_hierarchy().startswith("<?xml version='1.0'")


def test_input_helpers_power_wifi_battery(sim_phone) -> None:
    dev = sim_phone.adb
    assert dev.is_screen_on()
    dev.switch_screen(False)
    assert not dev.is_screen_on()
    dev.switch_screen(True)
    dev.switch_wifi(False)
    assert state(OverAdb(sim_phone), "settings.wifi") is False
    dev.switch_wifi(True)
    assert dev.wlan_ip() == "192.168.1.23"
    dev.switch_airplane(True)
    assert state(OverAdb(sim_phone), "settings.airplane") is True
    dev.brightness_value = 255
    assert dev.brightness_value == 255
    battery = dev.battery()
    assert battery.level == 100 and battery.present
    dev.keyevent("KEYCODE_HOME")
    dev.click(0.5, 0.5)
    dev.swipe(0.5, 0.8, 0.5, 0.3, 0.2)
