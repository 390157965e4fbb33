"""Every real ADB output in the fixtures (adb_outputs/, found through tests/real_fixtures.py)
goes through its parser.

Outputs with no real capture in the fixtures (`dumpsys input_method`, `dumpsys power`,
`dumpsys SurfaceFlinger --display-id`, see the fixtures README "Known gaps") are tested
with the lines Android prints, written out in the test and marked as such.
"""

from __future__ import annotations

import pytest

import mika.cap.phone.adb.parse as P
from mika.cap.phone.adb.parse.getprop import sdk_level
from tests.real_fixtures import listing, real_bytes


def raw(name: str) -> bytes:
    return real_bytes(f"adb_outputs/{name}")


# Which parser reads which real capture; the test below checks none is left out.
PARSERS = {
    "am__usage_text__android6.txt": P.parse_usage,
    "input__usage_text__android6-7.txt": P.parse_usage,
    "dumpsys_SurfaceFlinger_--displays__mtk_tablet_android13.txt": P.parse_surfaceflinger_displays,
    "dumpsys_SurfaceFlinger__car_headunit_android9__section.txt": P.parse_surfaceflinger_displays,
    "dumpsys__grep_mCurrentFocus_mFocusedApp__mtk_android13.txt": P.parse_window_focus,
    "dumpsys_activity_activities__grep_mResumedActivity.txt": P.parse_resumed_activities,
    "dumpsys_activity_activities__mtk_tablet_android13.txt": P.parse_resumed_activities,
    "dumpsys_battery__awesome-adb.txt": P.parse_battery,
    "dumpsys_battery__emulator_recent_android.txt": P.parse_battery,
    "dumpsys_display__mtk_tablet_android13.txt": P.parse_display,
    "dumpsys_input__nvidia_shield_tv.txt": P.parse_input,
    "dumpsys_window_displays__head_excerpt.txt": P.parse_window_focus,
    "dumpsys_window_windows__android13plus__UTF16LE_CRLF_powershell.txt": P.parse_window_focus,
    "dumpsys_window_windows__android4__avc_sample.txt": P.parse_window_focus,
    "getprop__asus_tf201_android3.2_sdk13__CRLF.txt": P.parse_getprop,
    "getprop__car_headunit_android9_sdk28.txt": P.parse_getprop,
    "pm_list_packages__car_headunit_android9.txt": P.parse_packages,
    "pm_list_packages__excerpt.txt": P.parse_packages,
    "wm_density__physical_and_override.txt": P.parse_wm_density,
    "wm_size__physical_and_override.txt": P.parse_wm_size,
}


def test_every_real_output_has_a_parser() -> None:
    assert sorted(rel.removeprefix("adb_outputs/") for rel in listing("adb_outputs", ".txt")) == sorted(PARSERS)


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_every_real_output_parses(name: str) -> None:
    assert PARSERS[name](raw(name)) is not None


class TestWindowFocus:
    def test_android4_current_focus_and_focused_app(self) -> None:
        report = P.parse_window_focus(raw("dumpsys_window_windows__android4__avc_sample.txt"))
        d = report.for_display(0)
        assert d.source == "mCurrentFocus"
        assert d.focus == P.Component("com.dtmilano.android.sampleui", "com.dtmilano.android.sampleui.MainActivity")
        assert d.focused_app.activity == "com.dtmilano.android.sampleui.MainActivity"

    def test_android13_non_activity_focus_keeps_the_focused_app(self) -> None:
        d = P.parse_window_focus(raw("dumpsys__grep_mCurrentFocus_mFocusedApp__mtk_android13.txt")).for_display(0)
        assert d.window_title == "NotificationShade" and d.focus is None
        assert d.focused_app == P.Component("com.mediatek.camera", "com.mediatek.camera.CameraLauncher")
        assert d.package == "com.mediatek.camera"

    def test_android13_windows_utf16_crlf_falls_back_to_the_ime_target(self) -> None:
        data = raw("dumpsys_window_windows__android13plus__UTF16LE_CRLF_powershell.txt")
        assert data[:2] == b"\xff\xfe"
        report = P.parse_window_focus(data)
        assert report.top_focused_display == 0
        d = report.for_display(0)
        assert d.source == "ime-target"
        assert d.package == "com.kryptoloot.app" and d.focus.activity == "com.example.MainActivity"

    def test_window_list_alone_gives_the_top_visible_activity(self) -> None:
        text = P.shell_text(raw("dumpsys_window_windows__android13plus__UTF16LE_CRLF_powershell.txt"))
        without_ime = "\n".join(line for line in text.split("\n") if "imeInputTarget" not in line)
        d = P.parse_window_focus(without_ime).for_display(0)
        assert d.source == "window-list" and d.package == "com.kryptoloot.app"

    def test_display_excerpt_without_focus_lines_is_empty_not_an_error(self) -> None:
        assert P.parse_window_focus(raw("dumpsys_window_displays__head_excerpt.txt")).displays == ()


class TestActivities:
    def test_android13_resumed_with_task(self) -> None:
        (r,) = P.parse_resumed_activities(raw("dumpsys_activity_activities__mtk_tablet_android13.txt"))
        assert (r.display_id, r.package, r.component.activity, r.task_id) == (
            0,
            "com.mediatek.camera",
            "com.mediatek.camera.CameraLauncher",
            12,
        )

    def test_old_m_resumed_activity_line(self) -> None:
        (r,) = P.parse_resumed_activities(raw("dumpsys_activity_activities__grep_mResumedActivity.txt"))
        assert r.component == P.Component("com.cyanogenmod.trebuchet", "com.android.launcher3.Launcher")
        assert r.task_id == 42

    def test_activity_top_format_and_second_display(self) -> None:
        # `dumpsys activity top` and a second display, as Android 10+ print them.
        text = (
            "Display #0 (activities from top to bottom):\n"
            "  ResumedActivity: ActivityRecord{a1 u0 com.android.settings/.Settings t5}\n"
            "Display #2 (activities from top to bottom):\n"
            "  ResumedActivity: ActivityRecord{b2 u0 com.tencent.mm/.ui.LauncherUI t9}\n"
        )
        rs = P.parse_resumed_activities(text)
        assert [(r.display_id, r.package) for r in rs] == [(0, "com.android.settings"), (2, "com.tencent.mm")]
        top = "TASK com.tencent.mm id=9 userId=0\n  ACTIVITY com.tencent.mm/.ui.LauncherUI 7f3 pid=1234\n"
        assert P.parse_resumed_activities(top)[0].component.activity == "com.tencent.mm.ui.LauncherUI"


def test_wm_size_and_density_physical_and_override() -> None:
    size = P.parse_wm_size(raw("wm_size__physical_and_override.txt"))
    assert (size.physical, size.override, size.effective) == ((1080, 1920), (480, 1024), (480, 1024))
    density = P.parse_wm_density(raw("wm_density__physical_and_override.txt"))
    assert (density.physical, density.override, density.effective) == (480, 160, 160)
    assert P.parse_wm_size("Physical size: 1080x2400\n").effective == (1080, 2400)
    with pytest.raises(P.ShellOutputError, match="wm size"):
        P.parse_wm_size("cmd: Can't find service: window")


class TestGetprop:
    def test_crlf_listing(self) -> None:
        data = raw("getprop__asus_tf201_android3.2_sdk13__CRLF.txt")
        assert b"\r\n" in data
        props = P.parse_getprop(data)
        assert props["ro.product.model"] == "TF201" and sdk_level(props) == 13
        assert not any("\r" in v for v in props.values())

    def test_big_listing_with_a_damaged_line(self) -> None:
        props = P.parse_getprop(raw("getprop__car_headunit_android9_sdk28.txt"))
        assert sdk_level(props) == 28 and props["ro.product.manufacturer"] == "QUALCOMM"
        assert props["persist.vendor.gwm.cfg.bean_file_version"] == "cfgVersion:E0480037"
        assert props["persist.vendor.gwm.cfg.bean_modify_utc"] == "1672314962"

    def test_single_value_and_multiline_value(self) -> None:
        assert sdk_level(P.parse_getprop(b"34\r\n")) == 34
        props = P.parse_getprop("[a]: [line one\nline two]\n[b]: [2]\n")
        assert props == {"a": "line one\nline two", "b": "2"}


def test_battery_old_and_new_fields() -> None:
    old = P.parse_battery(raw("dumpsys_battery__awesome-adb.txt"))
    assert (old.percent, old.status, old.powered_by, old.temperature_c) == (44, "charging", ("usb",), 28.0)
    new = P.parse_battery(raw("dumpsys_battery__emulator_recent_android.txt"))
    assert (new.percent, new.powered_by, new.technology) == (100, ("ac",), "Li-ion")
    assert new.fields["Charge counter"] == "10000"


def test_display_override_info_wins() -> None:
    (d,) = P.parse_display(raw("dumpsys_display__mtk_tablet_android13.txt"))
    assert (d.display_id, d.name, d.size, d.density, d.rotation, d.type) == (
        0,
        "Built-in Screen",
        (480, 800),
        240,
        0,
        "INTERNAL",
    )
    assert d.state == "ON" and d.secure


def test_packages_full_list_excerpt_and_dash_f() -> None:
    full = P.parse_packages(raw("pm_list_packages__car_headunit_android9.txt"))
    assert len(full) == raw("pm_list_packages__car_headunit_android9.txt").count(b"package:")
    assert "com.android.providers.telephony" in full
    excerpt = P.parse_packages(raw("pm_list_packages__excerpt.txt"))
    assert excerpt[0] == "com.android.smoketest" and "..." not in excerpt and len(excerpt) == 10
    assert P.parse_packages("package:/data/app/~~a==/com.x-1/base.apk=com.x\n") == ("com.x",)


class TestSurfaceFlinger:
    def test_displays_android13(self) -> None:
        (d,) = P.parse_surfaceflinger_displays(raw("dumpsys_SurfaceFlinger_--displays__mtk_tablet_android13.txt"))
        assert (d.id, d.primary, d.name, d.resolution, d.power_mode) == (0, True, "Primary display", (480, 800), "Off")

    def test_android9_full_dump_lists_display_ids(self) -> None:
        ds = P.parse_surfaceflinger_displays(raw("dumpsys_SurfaceFlinger__car_headunit_android9__section.txt"))
        assert [d.id for d in ds] == [0, 1, 3, 4, 5]

    def test_display_id_format(self) -> None:
        # Not in the fixtures: the lines Android 10+ print for `--display-id`.
        text = (
            'Display 4619827259835644672 (HWC display 0): port=0 pnpId=GGL displayName="EMU_display_0"\n'
            'Display 4619827551948147201 (HWC display 1): port=1 pnpId=GGL displayName="EMU_display_1"\n'
        )
        ds = P.parse_surfaceflinger_displays(text)
        assert [(d.id, d.hwc_id, d.port, d.name, d.primary) for d in ds] == [
            (4619827259835644672, 0, 0, "EMU_display_0", True),
            (4619827551948147201, 1, 1, "EMU_display_1", False),
        ]


def test_input_dump_shield_tv() -> None:
    state = P.parse_input(raw("dumpsys_input__nvidia_shield_tv.txt"))
    assert state.interactive is False
    assert state.focused.package == "com.google.android.youtube.tv"
    assert [(v.display_id, v.logical, v.device_size) for v in state.viewports] == [
        (0, (0, 0, 1920, 1080), (3840, 2160))
    ]


def test_usage_texts() -> None:
    inp = P.parse_usage(raw("input__usage_text__android6-7.txt"))
    assert inp.tool == "input" and inp.has("tap") and inp.has("swipe") and not inp.has("keycombination")
    assert "touchscreen" in inp.sources and not inp.display_option
    am = P.parse_usage(raw("am__usage_text__android6.txt"))
    assert am.tool == "am" and am.has("start") and am.has("force-stop") and not am.display_option
    with pytest.raises(P.ShellOutputError, match="usage"):
        P.parse_usage("/system/bin/sh: input: not found")


def test_input_method_shown() -> None:
    # Not in the fixtures: the `dumpsys input_method` lines Android prints.
    assert P.parse_input_shown("  mInputShown=true\n  mShowRequested=true") is True
    assert P.parse_input_shown("  mInputShown=false\r\n") is False
    assert P.parse_input_shown("  mImeWindowVis=0x3\n") is True
    assert P.parse_input_shown("nothing here") is None


def test_power_wakefulness() -> None:
    # Not in the fixtures: the `dumpsys power` lines Android prints.
    assert P.parse_wakefulness("Power Manager State:\n  mWakefulness=Asleep\n") == "Asleep"
    assert P.parse_wakefulness("  getWakefulnessLocked()=Awake\n") == "Awake"
    assert P.parse_wakefulness("  mScreenOn=true\n") == "Awake"
    assert P.parse_wakefulness("") is None


def test_shell_text_decodes_boms_and_line_ends() -> None:
    assert P.shell_text("a\r\nb".encode("utf-16")) == "a\nb"
    assert P.shell_text(b"\xef\xbb\xbfa\r\r\nb") == "a\nb"
    assert P.shell_text("ab".encode("utf-16-le")) == "ab"
