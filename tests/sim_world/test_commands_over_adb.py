"""Every shell command of the issue, through the real adb server, with both the adb CLI
and adbutils; each must answer in its real format (checked loosely: a telling fragment)."""

from __future__ import annotations

import pytest

# (command, a fragment its output must contain, expected exit code)
COMMANDS: list[tuple[str, str, int]] = [
    ("input tap 540 1200", "", 0),
    ("input -d 0 swipe 540 1800 540 900 200", "", 0),
    ("input text hello", "", 0),
    ("input keyevent KEYCODE_HOME", "", 0),
    ("input draganddrop 100 100 200 200 300", "", 0),
    ("input motionevent DOWN 10 10 && input motionevent UP 10 10", "", 0),
    ("input bogus", "Usage: input", 1),
    ("am start -W -n com.android.settings/.Settings", "Status: ok", 0),
    ("am start -a android.intent.action.SHOW_ALARMS", "act=android.intent.action.SHOW_ALARMS", 0),
    (
        "am start -a android.intent.action.VIEW -d https://example.com -t text/html --es k v",
        "dat=https://example.com",
        0,
    ),
    ("am start --display 0 -n com.mika.notes/.NotesListActivity", "cmp=com.mika.notes/.NotesListActivity", 0),
    ("am force-stop com.mika.notes", "", 0),
    ("am broadcast -a android.intent.action.AIRPLANE_MODE --ez state false", "Broadcast completed: result=0", 0),
    ("am stack list", "RootTask id=", 0),
    ("am display move-stack 99999 0", "Unknown rootTaskId=99999", 255),
    ("monkey -p com.mika.shop -c android.intent.category.LAUNCHER 1", "Events injected: 1", 0),
    ("pm list packages -3 --user 0", "package:com.mika.shop", 0),
    ("pm path com.mika.shop", "package:/data/app/", 0),
    ("cmd package resolve-activity --brief com.mika.shop", "com.mika.shop/.MainActivity", 0),
    ("dumpsys window", "mTopFocusedDisplayId=0", 0),
    ("dumpsys window windows", "Window #0", 0),
    ("dumpsys window displays", "mCurrentFocus=Window{", 0),
    ("dumpsys activity activities", "mResumedActivity: ActivityRecord{", 0),
    ("dumpsys activity top", "ACTIVITY ", 0),
    ("dumpsys display", "mBaseDisplayInfo=DisplayInfo{", 0),
    ("dumpsys SurfaceFlinger --display-id", "Display 4619827259835644672", 0),
    ("dumpsys input_method", "mInputShown=false", 0),
    ("dumpsys power", "mWakefulness=Awake", 0),
    ("dumpsys alarm", "Next alarm clock information", 0),
    ("dumpsys battery", "Current Battery Service state:", 0),
    ("wm size", "Physical size: 1080x2400", 0),
    ("wm density", "Physical density: 440", 0),
    ("getprop ro.product.model", "Mika Sim Phone", 0),
    ("getprop", "[ro.build.version.sdk]: [34]", 0),
    ("settings put global bluetooth_on 1 && settings get global bluetooth_on", "1", 0),
    ("settings delete global no_such", "Deleted 0 rows", 0),
    ("ime list -s", "com.android.inputmethod.latin/.LatinIME", 0),
    ("ime enable com.android.adbkeyboard/.AdbIME", "enabled for user #0", 0),
    ("ime set com.android.inputmethod.latin/.LatinIME", "selected for user #0", 0),
    ("uiautomator dump /dev/tty", "UI hierchary dumped to: /dev/tty", 0),
    ("uiautomator dump --compressed /sdcard/d.xml && cat /sdcard/d.xml", '<hierarchy rotation="0">', 0),
    ("screencap -p /sdcard/s.png && ls /sdcard", "s.png", 0),
    ("echo x > /sdcard/f && cat /sdcard/f && rm /sdcard/f && ls /sdcard/f", "No such file or directory", 1),
    ("mkdir -p /sdcard/a/b && ls /sdcard/a", "b", 0),
    ("md5sum /sdcard/nothing", "No such file or directory", 1),
    ("toybox md5sum /proc/none || echo rc=$?", "rc=1", 0),
    ("ps -A", "system_server", 0),
    ("pidof system_server", "1648", 0),
    ("kill 1", "Operation not permitted", 1),
    ("sleep 0.01 && echo slept", "slept", 0),
    ("app_process / com.example.Nope", "ClassNotFoundException", 1),
    ("simctl state foreground", '"0":', 0),
    ("echo $?; false; echo $? | grep 1", "0", 0),
    ("definitely_not_a_command", "/system/bin/sh: definitely_not_a_command: inaccessible or not found", 127),
]


@pytest.mark.parametrize(("command", "fragment", "code"), COMMANDS, ids=[c[0][:40] for c in COMMANDS])
def test_command_with_adb_cli_and_adbutils(sim_phone, command, fragment, code) -> None:
    cli = sim_phone.run_adb("shell", command, check=False)
    # The phone speaks shell v2: stderr comes back apart, the exit code is the command's.
    out = (cli.stdout + cli.stderr).decode("utf-8", errors="replace")
    assert fragment in out, out[:500]
    assert cli.returncode == code
    # … and the way scripts read it over a v1 shell
    rc = sim_phone.shell(f"{command} >/dev/null 2>&1; echo $?").strip().splitlines()[-1]
    assert int(rc) == code
    result = sim_phone.adb.shell2(command)
    assert fragment in result.output and result.returncode == code
