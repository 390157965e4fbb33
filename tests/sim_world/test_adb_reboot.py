"""`adb reboot` through the real adb server: the phone restarts and comes back.

What was stored survives (files, installed apps, settings); what lived in memory (apps on
screen, the clipboard, notifications, the uiautomator server) does not.
"""

from __future__ import annotations

from pathlib import Path

import uiautomator2

APK = Path(uiautomator2.__file__).parent / "assets" / "app-uiautomator.apk"


def test_reboot_keeps_what_is_stored_and_forgets_what_ran(sim_phone) -> None:
    world = sim_phone.device.world
    sim_phone.run_adb("install", str(APK))
    sim_phone.adb.sync.push(b"kept\n", "/sdcard/Download/kept.txt")
    sim_phone.shell("settings put system screen_off_timeout 60000")
    d = uiautomator2.connect(sim_phone.serial)
    d.clipboard = "gone after reboot"
    d.app_start("com.android.settings")
    assert world.top_activity(0).package == "com.android.settings"
    done = sim_phone.run_adb("reboot", timeout=30)
    assert done.returncode == 0
    sim_phone.run_adb("wait-for-device", timeout=30)
    assert sim_phone.shell("getprop sys.boot_completed") == "1\n"
    assert world.top_activity(0).package == "com.android.launcher3" and world.screen_on
    assert world.data["clipboard"] == "" and world.data.get("notifications", []) == []
    assert sim_phone.device.files.read("/sdcard/Download/kept.txt") == b"kept\n"
    assert "package:com.github.uiautomator" in sim_phone.shell("pm list packages -3").split()
    assert sim_phone.shell("settings get system screen_off_timeout") == "60000\n"
    assert "uiautomator" not in sim_phone.shell("ps -A")  # its server died with the phone
    d = uiautomator2.connect(sim_phone.serial)  # and a client starts it again
    try:
        assert d.info["currentPackageName"] == "com.android.launcher3"
    finally:
        d.stop_uiautomator(wait=False)


def test_reboot_to_a_bootloader_is_refused(sim_phone) -> None:
    # The sim has no bootloader, recovery or sideload mode to restart into.
    out = sim_phone.run_adb("reboot", "bootloader", check=False, timeout=30)
    assert out.returncode != 0
    assert sim_phone.shell("echo still here") == "still here\n"
