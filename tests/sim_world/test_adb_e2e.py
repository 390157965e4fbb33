"""The simulated world through a real adb server: the adb CLI and adbutils, end to end."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

from PIL import Image

from tests.sim_world.driver import OverAdb, find, state, tap


def test_unknown_command_answers_like_a_phone(sim_phone) -> None:
    done = sim_phone.run_adb("shell", "frobnicate --now; echo rc=$?")
    assert done.stderr.decode() == "/system/bin/sh: frobnicate: inaccessible or not found\n"  # shell v2: apart
    assert done.stdout.decode() == "rc=127\n"


def test_wm_size_and_screencap_png_agree(sim_phone) -> None:
    size = sim_phone.shell("wm size").strip()
    assert size == "Physical size: 1080x2400"
    png = sim_phone.run_adb("exec-out", "screencap -p").stdout
    image = Image.open(io.BytesIO(png))
    image.verify()
    assert Image.open(io.BytesIO(png)).size == (1080, 2400)


def test_raw_screencap_has_header_and_rgba_pixels(sim_phone) -> None:
    raw = sim_phone.adb.shell("screencap", encoding=None)
    w = int.from_bytes(raw[0:4], "little")
    h = int.from_bytes(raw[4:8], "little")
    assert (w, h) == (1080, 2400)
    assert len(raw) == 16 + w * h * 4


def test_dump_parses_and_matches_the_screen(sim_phone) -> None:
    d = OverAdb(sim_phone)
    text = sim_phone.shell("uiautomator dump /dev/tty")
    assert text.startswith(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node index=\"0\" text=\"\""
    )
    assert text.endswith("</hierarchy>UI hierchary dumped to: /dev/tty\n")
    root = ET.fromstring(text[: text.rindex("</hierarchy>") + 12])
    labels = {n.get("text") for n in root.iter("node")}
    assert {"Settings", "Messages", "Clock"} <= labels
    # the file form, then pulled with sync
    assert sim_phone.shell("uiautomator dump").strip() == "UI hierchary dumped to: /sdcard/window_dump.xml"
    pulled = sim_phone.adb.sync.read_bytes("/sdcard/window_dump.xml")
    assert ET.fromstring(pulled).tag == "hierarchy"
    assert find(d, text="Settings") is not None


def test_tap_changes_dumpsys_focus(sim_phone) -> None:
    d = OverAdb(sim_phone)
    before = sim_phone.shell("dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'")
    assert "com.android.launcher3/com.android.launcher3.Launcher" in before
    tap(d, text="Settings")
    after = sim_phone.shell("dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'").splitlines()
    assert (
        after[0].startswith("  mCurrentFocus=Window{")
        and "com.android.settings/com.android.settings.Settings}" in after[0]
    )
    assert after[1].startswith("  mFocusedApp=ActivityRecord{") and "com.android.settings/.Settings t" in after[1]
    top = sim_phone.shell("dumpsys activity activities | grep mResumedActivity")
    assert "com.android.settings/.Settings" in top
    assert "mTopFocusedDisplayId=0" in sim_phone.shell("dumpsys window")


def test_settings_toggle_through_taps_reaches_state_and_settings_get(sim_phone) -> None:
    d = OverAdb(sim_phone)
    sim_phone.shell("am start -a android.settings.DISPLAY_SETTINGS")
    tap(d, text="Dark theme")
    assert state(d, "settings.dark_mode") is True
    assert sim_phone.shell("settings get secure ui_night_mode").strip() == "2"
    sim_phone.shell("settings put secure ui_night_mode 1")
    switch = [
        n
        for n in ET.fromstring(sim_phone.shell("uiautomator dump /dev/tty").split("UI hier")[0]).iter("node")
        if n.get("class") == "android.widget.Switch"
    ]
    assert switch[0].get("checked") == "false"


def test_am_start_set_alarm_intent_adds_an_alarm(sim_phone) -> None:
    out = sim_phone.shell(
        "am start -a android.intent.action.SET_ALARM --ei android.intent.extra.alarm.HOUR 7 "
        "--ei android.intent.extra.alarm.MINUTES 30 --eia android.intent.extra.alarm.DAYS 2,3,4,5,6 "
        "--es android.intent.extra.alarm.MESSAGE Work"
    )
    assert out.startswith("Starting: Intent { act=android.intent.action.SET_ALARM")
    alarms = state(OverAdb(sim_phone), "alarms")
    assert {
        "hour": 7,
        "minute": 30,
        "days": ["mon", "tue", "wed", "thu", "fri"],
        "label": "Work",
        "enabled": True,
    }.items() <= alarms[-1].items()
    assert "Next alarm clock information" in sim_phone.shell("dumpsys alarm")


def test_push_pull_and_md5sum(sim_phone, tmp_path) -> None:
    src = tmp_path / "blob.bin"
    src.write_bytes(bytes(range(256)) * 100)
    sim_phone.run_adb("push", str(src), "/data/local/tmp/blob.bin")
    md5 = sim_phone.shell("toybox md5sum /data/local/tmp/blob.bin")
    import hashlib

    assert md5 == f"{hashlib.md5(src.read_bytes()).hexdigest()}  /data/local/tmp/blob.bin\n"
    back = tmp_path / "back.bin"
    sim_phone.run_adb("pull", "/data/local/tmp/blob.bin", str(back))
    assert back.read_bytes() == src.read_bytes()
    assert "blob.bin" in sim_phone.shell("ls /data/local/tmp")


def test_monkey_launch_and_am_start_w(sim_phone) -> None:
    out = sim_phone.shell("monkey -p com.google.android.apps.messaging -c android.intent.category.LAUNCHER 1")
    assert "Events injected: 1" in out
    assert state(OverAdb(sim_phone), "foreground")["0"].startswith("com.google.android.apps.messaging/")
    out = sim_phone.shell("am start -W -n com.android.settings/.Settings")
    assert (
        "Status: ok" in out and "Activity: com.android.settings/.Settings" in out and out.rstrip().endswith("Complete")
    )
    failed = sim_phone.run_adb("shell", "am start -n com.nope/.Main", check=False)
    bad = (failed.stdout + failed.stderr).decode()  # the error line is on stderr (shell v2)
    assert "Error: Activity class {com.nope/com.nope.Main} does not exist." in bad
