"""The phone's sh and its commands, called on the simulated phone directly."""

from __future__ import annotations

import json

import pytest

from mika.sim.phone import make_device
from mika.sim.shell.parse import ShellSyntaxError, parse
from tests.sim_world.driver import Local, state, tap


@pytest.fixture
def d() -> Local:
    return Local(make_device("sim-test"))


def test_quotes_operators_and_exit_codes(d: Local) -> None:
    assert d.shell('echo \'a  b\' "c\\"d" e\\ f') == 'a  b c"d e f\n'
    assert d.shell("false && echo no || echo yes; echo $?") == "yes\n0\n"
    assert d.shell("true; false; echo $?") == "1\n"
    assert d.shell("nope 2>/dev/null; echo $?") == "127\n"
    assert d.shell("X=5; echo $X ${X}") == "5 5\n"
    assert d.shell("echo hi > /sdcard/a.txt; echo there >> /sdcard/a.txt; cat /sdcard/a.txt") == "hi\nthere\n"
    assert d.shell("getprop | grep -c sdk") == "1\n"
    assert d.shell("echo one; exit 3; echo two") == "one\n"
    assert d.last_code == 3


def test_syntax_errors_answer_like_mksh(d: Local) -> None:
    assert d.shell("echo 'open") == "/system/bin/sh: syntax error: unterminated quoted string\n"
    with pytest.raises(ShellSyntaxError):
        parse("| grep x")


def test_unknown_command_and_paths(d: Local) -> None:
    assert d.shell("frob") == "/system/bin/sh: frob: inaccessible or not found\n"
    assert d.last_code == 127
    assert d.shell("/system/bin/echo ok") == "ok\n"


def test_getprop_wm_and_settings(d: Local) -> None:
    assert d.shell("getprop ro.build.version.sdk") == "34\n"
    assert d.shell("getprop no.such.prop") == "\n"
    assert "[ro.product.model]: [Mika Sim Phone]" in d.shell("getprop")
    d.shell("wm size 720x1600")
    assert d.shell("wm size") == "Physical size: 1080x2400\nOverride size: 720x1600\n"
    d.shell("wm size reset; wm density 320")
    assert d.shell("wm density") == "Physical density: 440\nOverride density: 320\n"
    assert d.shell("settings get global wifi_on") == "1\n"
    d.shell("settings put global wifi_on 0")
    assert state(d, "settings.wifi") is False
    assert d.shell("settings get system no_such_key") == "null\n"
    assert d.shell("settings put secure my_key 7; settings get secure my_key") == "7\n"
    assert d.shell("settings delete secure my_key") == "Deleted 1 rows\n"


def test_package_manager_and_resolve_activity(d: Local) -> None:
    all_pkgs = d.shell("pm list packages").splitlines()
    assert "package:com.android.settings" in all_pkgs and "package:com.mika.chat" in all_pkgs
    third = d.shell("pm list packages -3 --user 0").splitlines()
    assert "package:com.mika.chat" in third and "package:com.android.settings" not in third
    assert d.shell("pm list packages chat") == "package:com.mika.chat\n"
    assert d.shell("pm path com.android.settings").startswith("package:/system/priv-app/")
    assert d.shell("pm path com.nope") == "" and d.last_code == 1
    out = d.shell("cmd package resolve-activity --brief com.android.settings").splitlines()
    assert out == [
        "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false",
        "com.android.settings/.Settings",
    ]


def test_ime_list_set_enable(d: Local) -> None:
    assert d.shell("ime list -s") == "com.android.inputmethod.latin/.LatinIME\n"
    assert (
        d.shell("ime enable com.android.adbkeyboard/.AdbIME")
        == "Input method com.android.adbkeyboard/.AdbIME: now enabled for user #0\n"
    )
    assert (
        d.shell("ime set com.android.adbkeyboard/.AdbIME")
        == "Input method com.android.adbkeyboard/.AdbIME selected for user #0\n"
    )
    assert d.shell("settings get secure default_input_method") == "com.android.adbkeyboard/.AdbIME\n"
    d.shell("ime set com.no/.Ime")
    assert d.last_code == 1


def test_input_text_keyevent_and_ime_state(d: Local) -> None:
    d.shell("am start -n com.mika.notes/.NotesListActivity")
    tap(d, desc="New note")
    tap(d, text="Title")
    assert "mInputShown=true" in d.shell("dumpsys input_method")
    d.shell("input text hello%sworld")
    d.shell("input keyevent KEYCODE_DEL 67")
    d.shell("input keyevent KEYCODE_X")
    assert 'text="hello worx" resource-id="com.mika.notes:id/note_title"' in d.shell("uiautomator dump /dev/tty")
    out = d.shell("input text 你好")
    assert d.last_code == 255 and "NullPointerException" in out
    d.shell("input keyevent BACK")
    assert "mInputShown=false" in d.shell("dumpsys input_method")
    d.shell("input keyevent 999999")
    assert d.last_code == 1


def test_motionevent_and_draganddrop_and_longpress(d: Local) -> None:
    d.shell("am start -n com.mika.notes/.NotesListActivity")
    # a long press (press and hold in place) opens the delete dialog for a note
    d.shell("input swipe 540 370 540 370 800")
    assert "Delete note?" in d.shell("uiautomator dump /dev/tty")
    d.shell("input keyevent BACK")
    d.shell("input motionevent DOWN 540 370")
    d.shell("input motionevent UP 540 370")
    assert "NoteEditActivity" in d.shell("dumpsys activity top")
    d.shell("input draganddrop 10 10 20 20 300")
    assert d.last_code == 0


def test_am_stack_and_move_stack_to_a_virtual_display(d: Local) -> None:
    d.shell("monkey -p com.android.settings -c android.intent.category.LAUNCHER 1")
    assert d.shell("simctl display add 1080x1920 320 agent") == "1\n"
    listing = d.shell("am stack list")
    task_id = next(
        line.split("taskId=")[1].split(":")[0]
        for line in listing.splitlines()
        if "taskId=" in line and "com.android.settings/com.android.settings.Settings" in line
    )
    d.shell(f"am display move-stack {task_id} 1")
    assert state(d, "foreground")["1"] == "com.android.settings/.Settings"
    assert state(d, "foreground")["0"].startswith("com.android.launcher3/")
    assert "Display 1:" in d.shell("dumpsys display")
    assert d.shell("dumpsys SurfaceFlinger --display-id").count("Display ") == 2
    d.shell("input -d 1 tap 540 400")  # the search field row on Settings, on display 1
    assert "mTopFocusedDisplayId=1" in d.shell("dumpsys window")
    png = d.shell_bytes("screencap -p -d 1")
    from io import BytesIO

    from PIL import Image

    assert Image.open(BytesIO(png)).size == (1080, 1920)
    d.shell("am display move-stack 999 1")
    assert d.last_code == 255  # moveRootTaskToDisplay throws; `cmd activity` exits 255


def test_dumpsys_power_battery_alarm(d: Local) -> None:
    assert "mWakefulness=Awake" in d.shell("dumpsys power")
    d.shell("input keyevent POWER")
    assert "mWakefulness=Asleep" in d.shell("dumpsys power")
    assert state(d, "locked") is True
    d.shell("input keyevent KEYCODE_WAKEUP")
    assert "mWakefulness=Awake" in d.shell("dumpsys power")
    assert "NotificationShade" in d.shell("dumpsys window | grep mCurrentFocus")
    assert "level: 100" in d.shell("dumpsys battery")
    assert "Next alarm clock information: none" in d.shell("dumpsys alarm")
    d.shell("am start -a android.intent.action.SET_ALARM --ei android.intent.extra.alarm.HOUR 9")
    assert "2026-12-01 09:00:00" in d.shell("dumpsys alarm")


def test_files_ps_pidof_kill_sleep(d: Local) -> None:
    assert d.shell("mkdir /sdcard/x/y") == "mkdir: '/sdcard/x/y': No such file or directory\n"
    d.shell("mkdir -p /sdcard/x/y; touch /sdcard/x/y/f")
    assert d.shell("ls /sdcard/x/y") == "f\n"
    assert d.shell("ls -l /sdcard/x").startswith("drwxrwx--x 1 shell shell")
    assert d.shell("rm /sdcard/x") == "rm: /sdcard/x: is a directory\n"
    d.shell("rm -rf /sdcard/x")
    assert d.shell("ls /sdcard/x") == "ls: /sdcard/x: No such file or directory\n"
    assert d.shell("cat /proc/version").startswith("Linux version")
    d.shell("monkey -p com.mika.chat 1")
    pid = d.shell("pidof com.mika.chat").strip()
    assert pid.isdigit() and "com.mika.chat" in d.shell("ps -A")
    d.shell(f"kill {pid}")
    assert "com.mika.chat" not in json.dumps(state(d, "foreground"))
    assert d.shell("sleep 0.01; echo woke") == "woke\n"


def test_simctl_state_set_reset_and_errors(d: Local) -> None:
    assert d.shell("simctl set settings.bluetooth true") == ""
    assert state(d, "settings.bluetooth") is True
    d.shell("simctl set time 2026-12-24T21:30")
    assert state(d, "time").startswith("2026-12-24T21:30")
    assert d.shell("simctl reset nowhere").startswith("simctl: unknown scenario 'nowhere'; known scenarios:")
    d.shell("simctl reset")
    assert state(d, "settings.bluetooth") is False
    assert d.shell("simctl state nope").startswith("simctl: no state key 'nope'")
    out = d.shell("simctl fault bogus=1")
    assert d.last_code == 1 and "unknown key 'bogus'" in out


def test_compressed_dump_drops_bare_containers_keeps_labels(d: Local) -> None:
    d.shell("am start -a android.settings.DISPLAY_SETTINGS")
    full = d.shell("uiautomator dump /dev/tty")
    small = d.shell("uiautomator dump --compressed /dev/tty")
    assert small.count("<node") < full.count("<node")
    for label in ("Dark theme", "Font size"):
        assert f'text="{label}"' in small


def test_query_activities_and_dumpsys_input(d: Local) -> None:
    out = d.shell(
        "cmd package query-activities --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER"
    )
    comps = [ln.strip() for ln in out.splitlines() if "/" in ln and " " not in ln.strip()]
    assert "com.android.settings/.Settings" in comps and "com.mika.chat/.ui.LauncherUI" in comps
    assert not any(c.startswith("com.android.launcher3/") for c in comps)
    d.shell("monkey -p com.android.settings 1")
    dump = d.shell("dumpsys input")
    assert "  Interactive: true" in dump
    assert (
        "Viewport: displayId=0, orientation=0, uniqueId='local:0', type=INTERNAL, logicalFrame=[0, 0, 1080, 2400]"
        in dump
    )
    assert (
        "displayId=0, name='" in dump.split("FocusedWindows:")[1]
        and "com.android.settings/com.android.settings.Settings" in dump
    )


def test_view_intent_opens_the_browser_and_unknown_actions_fail(d: Local) -> None:
    out = d.shell("am start -a android.intent.action.VIEW -d https://example.com/a")
    assert out.startswith("Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/a")
    assert state(d, "foreground")["0"] == "com.mika.browser/.PageActivity"
    bad = d.shell("am start -a com.example.NOTHING")
    assert "Error: Activity not started, unable to resolve Intent { act=com.example.NOTHING" in bad


def test_input_text_types_only_its_first_argument_like_a_phone(d: Local) -> None:
    d.shell("am start -n com.mika.notes/.NotesListActivity")
    tap(d, desc="New note")
    tap(d, text="Title")
    d.shell("input text hello world")
    d.shell("input text ' there'")
    assert 'text="hello there" resource-id="com.mika.notes:id/note_title"' in d.shell("uiautomator dump /dev/tty")


def test_window_policy_reports_the_keyguard() -> None:
    d = Local(make_device("p", scenario="pin_locked"))
    policy = d.shell("dumpsys window policy")
    assert "mDreamingLockscreen=true" in policy and "showing=true" in policy and "secure=true" in policy
    assert "showing=false" in Local(make_device("p")).shell("dumpsys window | grep showing=")
