"""The simulated phone's virtual displays as Android 14 shows them (and Android 12 / 9 in
their scenarios), read through a real adb server with uiautomator2 3.7.1 unchanged and
the phone capability's own parsers (written against real phones' output)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
import uiautomator2

from mika.cap.phone.adb.parse.activity import parse_resumed_activities
from mika.cap.phone.adb.parse.display import parse_display
from mika.cap.phone.adb.parse.getprop import parse_getprop, sdk_level
from mika.cap.phone.adb.parse.window import parse_window_focus

SETTINGS = "com.android.settings"
LAUNCHER = "com.android.launcher3"


def _u2(phone):
    return uiautomator2.connect(phone.serial)


def _with_settings_on_a_virtual_display(phone) -> int:
    display_id = int(phone.shell("simctl display add 1080x1920 320 scrcpy").strip())
    out = phone.shell(f"am start --display {display_id} -n {SETTINGS}/.Settings")
    assert "Error" not in out, out
    return display_id


def _displays(phone) -> dict[str, dict]:
    return json.loads(phone.shell("simctl state displays"))


def _center(node: ET.Element) -> tuple[int, int]:
    left, top, right, bottom = map(int, re.findall(r"\d+", node.get("bounds", "")))
    return (left + right) // 2, (top + bottom) // 2


def test_android14_dump_focus_and_state_name_both_displays(sim_phone) -> None:
    vd = _with_settings_on_a_virtual_display(sim_phone)
    assert vd == 1
    d = _u2(sim_phone)
    try:
        xml = d.dump_hierarchy()
    finally:
        d.stop_uiautomator(wait=False)
    root = ET.fromstring(xml.encode())
    # One <hierarchy> whose children are the windows' roots, as in real u2 3.7.1 dumps.
    assert root.tag == "hierarchy" and all(child.tag == "node" for child in root)
    by_display: dict[str, set[str]] = {}
    for node in root.iter("node"):
        assert "display-id" in node.attrib, node.attrib
        by_display.setdefault(node.get("display-id", ""), set()).add(node.get("package", ""))
    assert SETTINGS in by_display["1"] and LAUNCHER not in by_display["1"]
    assert LAUNCHER in by_display["0"] and SETTINGS not in by_display["0"]
    # A window's nodes all carry its window's display.
    for window in root:
        assert len({n.get("display-id") for n in window.iter("node")}) == 1

    focus = parse_window_focus(sim_phone.shell("dumpsys window"))
    assert focus.top_focused_display == vd  # am start brought the display to the top
    on_vd, on_main = focus.for_display(vd), focus.for_display(0)
    assert on_vd is not None and on_vd.package == SETTINGS and on_vd.source == "mCurrentFocus"
    # Display 0 is not on top and has no own focus: mCurrentFocus=null, mFocusedApp stays.
    assert on_main is not None and on_main.package == LAUNCHER and on_main.focus is None

    resumed = {
        r.display_id: r.package for r in parse_resumed_activities(sim_phone.shell("dumpsys activity activities"))
    }
    assert resumed == {0: LAUNCHER, vd: SETTINGS}

    raw_display = sim_phone.shell("dumpsys display")
    infos = {i.display_id: i for i in parse_display(raw_display)}
    assert infos[vd].type == "VIRTUAL" and infos[vd].size == (1080, 1920) and infos[vd].density == 320
    assert infos[vd].name == "scrcpy" and infos[0].type == "INTERNAL"
    vd_line = next(line for line in raw_display.splitlines() if "mOverrideDisplayInfo" in line and '"scrcpy"' in line)
    assert "owner com.android.shell (uid 2000)" in vd_line and "FLAG_OWN_FOCUS" in vd_line
    assert "FLAG_TRUSTED" in vd_line

    displays = _displays(sim_phone)
    assert displays["0"]["foreground"] == LAUNCHER and displays["0"]["focused"] is False
    assert displays["1"]["foreground"] == SETTINGS and displays["1"]["activity"] == f"{SETTINGS}/.Settings"
    assert displays["1"]["owner"] == "com.android.shell" and displays["1"]["size"] == [1080, 1920]
    # The keys that were there before stay.
    whole = json.loads(sim_phone.shell("simctl state"))
    assert whole["foreground"]["1"].startswith(SETTINGS + "/") and "settings" in whole


def test_android14_own_focus_keeps_the_virtual_displays_focus_when_display_0_is_touched(sim_phone) -> None:
    vd = _with_settings_on_a_virtual_display(sim_phone)
    sim_phone.shell("input -d 0 tap 5 1200")  # the user touches their own screen
    focus = parse_window_focus(sim_phone.shell("dumpsys window displays"))
    assert focus.for_display(vd).focus is not None and focus.for_display(vd).package == SETTINGS
    assert focus.for_display(0).focus is not None and focus.for_display(0).package == LAUNCHER
    assert _displays(sim_phone)["0"]["focused"] is True


def test_u2_click_and_swipe_act_on_display_0_only(sim_phone) -> None:
    vd = _with_settings_on_a_virtual_display(sim_phone)
    d = _u2(sim_phone)
    try:
        root = ET.fromstring(d.dump_hierarchy().encode())
        icon = next(
            n
            for n in root.iter("node")
            if n.get("display-id") == "0" and n.get("package") == LAUNCHER and n.get("text") == "Notes"
        )
        d.click(*_center(icon))
        d.swipe(540, 1500, 540, 600, 0.1)
    finally:
        d.stop_uiautomator(wait=False)
    displays = _displays(sim_phone)
    assert displays["0"]["foreground"] == "com.mika.notes"
    assert displays[str(vd)]["foreground"] == SETTINGS and displays[str(vd)]["screen"] == "Main"


def test_uiautomator_dump_stays_on_display_0(sim_phone) -> None:
    _with_settings_on_a_virtual_display(sim_phone)
    sim_phone.shell("uiautomator dump /sdcard/ui.xml")
    xml = sim_phone.shell("cat /sdcard/ui.xml")
    packages = {n.get("package") for n in ET.fromstring(xml.encode()).iter("node")}
    assert SETTINGS not in packages and LAUNCHER in packages
    assert "display-id" not in xml


def test_android12_has_displays_but_no_own_focus(sim_phone_factory) -> None:
    phone = sim_phone_factory(scenario="android12")
    assert sdk_level(parse_getprop(phone.shell("getprop"))) == 31
    assert phone.shell("getprop ro.build.version.release").strip() == "12"
    vd = _with_settings_on_a_virtual_display(phone)
    d = _u2(phone)
    try:
        root = ET.fromstring(d.dump_hierarchy().encode())
    finally:
        d.stop_uiautomator(wait=False)
    assert {n.get("display-id") for n in root.iter("node")} == {"0", str(vd)}
    raw = phone.shell("dumpsys display")
    vd_line = next(line for line in raw.splitlines() if "mOverrideDisplayInfo" in line and '"scrcpy"' in line)
    # Shell may not make trusted displays before Android 13: no OWN_FOCUS, no decorations.
    assert "FLAG_OWN_FOCUS" not in vd_line and "FLAG_TRUSTED" not in vd_line and "FLAG_PRESENTATION" in vd_line
    phone.shell("input -d 0 tap 5 1200")
    focus = parse_window_focus(phone.shell("dumpsys window"))
    assert focus.top_focused_display == 0
    # Without its own focus the virtual display loses its focused window to display 0.
    assert focus.for_display(vd).focus is None and focus.for_display(vd).package == SETTINGS
    assert focus.for_display(0).package == LAUNCHER
    # `input -d` works there (since Android 10).
    assert phone.run_adb("shell", f"input -d {vd} tap 5 5").returncode == 0


def test_android9_dump_has_no_display_id_and_input_refuses_d(sim_phone_factory) -> None:
    phone = sim_phone_factory(scenario="android9")
    assert sdk_level(parse_getprop(phone.shell("getprop"))) == 28
    vd = _with_settings_on_a_virtual_display(phone)  # am start --display exists since Android 8
    d = _u2(phone)
    try:
        assert d.info["sdkInt"] == 28
        xml = d.dump_hierarchy()
    finally:
        d.stop_uiautomator(wait=False)
    nodes = list(ET.fromstring(xml.encode()).iter("node"))
    assert nodes and all("display-id" not in n.attrib for n in nodes)
    assert all("drawing-order" in n.attrib for n in nodes)  # the rest of u2's attributes stay
    # Before API 30 the bridge sees the default display's windows only.
    assert SETTINGS not in {n.get("package") for n in nodes}

    before = _displays(phone)
    done = phone.run_adb("shell", f"input -d {vd} tap 5 5", check=False)
    err = done.stderr.decode()
    # Android 9's Input.java: error + old usage on stderr, exit status 0, nothing tapped.
    assert done.returncode == 0 and done.stdout == b""
    assert err.startswith("Error: Invalid arguments for command: -d\nUsage: input [<source>] <command> [<arg>...]")
    assert "-d DISPLAY_ID" not in err and "motionevent" not in err
    assert _displays(phone) == before
    assert (
        "Error: Invalid arguments for command: motionevent"
        in phone.run_adb("shell", "input motionevent DOWN 5 5", check=False).stderr.decode()
    )

    activities = phone.shell("dumpsys activity activities")
    assert "Stack #" in activities and "Resumed activities in task display areas" not in activities
    resumed = {r.display_id: r.package for r in parse_resumed_activities(activities)}
    assert resumed == {0: LAUNCHER, vd: SETTINGS}

    raw = phone.shell("dumpsys window")
    assert "mTopFocusedDisplayId" not in raw and "mFocusedApp=AppWindowToken{" in raw
    focus = parse_window_focus(raw)
    assert focus.top_focused_display is None and focus.for_display(0) is not None


@pytest.mark.parametrize("scenario", ["android12", "android9"])
def test_older_scenarios_keep_the_default_world(sim_phone_factory, scenario: str) -> None:
    phone = sim_phone_factory(scenario=scenario)
    state = json.loads(phone.shell("simctl state"))
    assert state["scenario"] == scenario and state["foreground"]["0"].startswith(LAUNCHER)
    assert list(state["displays"]) == ["0"]
    assert phone.shell("simctl reset default") == "reset to scenario default\n"
    assert phone.shell("getprop ro.build.version.sdk").strip() == "34"
