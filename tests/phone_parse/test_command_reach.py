"""What a shell line reaches that the input gate judges (mika/cap/phone/command_reach.py):
the risky settings it changes, however the line spells or wraps them, and the places a
refused `am start` would have opened."""

from __future__ import annotations

import pytest

from mika.cap.phone.command_reach import places_started, settings_changed

RISKY = [
    ("settings put secure lockscreen.disabled 1", "lockscreen.disabled", "the lock screen"),
    ("settings put --user 0 secure lockscreen.disabled 1", "lockscreen.disabled", "the lock screen"),
    ("cmd settings put secure lockscreen.disabled 1", "lockscreen.disabled", "the lock screen"),
    ("/system/bin/settings put secure lockscreen.disabled 1", "lockscreen.disabled", "the lock screen"),
    ("sh -c 'settings put secure lockscreen.disabled 1'", "lockscreen.disabled", "the lock screen"),
    ("su 0 settings put secure lockscreen.disabled 1", "lockscreen.disabled", "the lock screen"),
    ("getprop ro.build; settings put secure lockscreen.disabled 1", "lockscreen.disabled", "the lock screen"),
    ("echo $(settings put secure lockscreen.disabled 1)", "lockscreen.disabled", "the lock screen"),
    ("settings put secure LOCKSCREEN.DISABLED 1", "LOCKSCREEN.DISABLED", "the lock screen"),
    ("settings put secure lock_screen_owner_info_enabled 0", "lock_screen_owner_info_enabled", "the lock screen"),
    ("settings put secure lockscreen.password_type 0", "lockscreen.password_type", "the lock screen"),
    ("settings delete secure lockscreen.disabled", "lockscreen.disabled", "the lock screen"),
    ("settings put secure install_non_market_apps 1", "install_non_market_apps", "unknown sources"),
    ("settings put global package_verifier_enable 0", "package_verifier_enable", "harm"),
    ("settings put global verifier_verify_adb_installs 0", "verifier_verify_adb_installs", "over USB"),
    ("settings put secure enabled_accessibility_services com.x/.Tapper", "enabled_accessibility_services", "screen"),
    ("settings put secure accessibility_enabled 1", "accessibility_enabled", "screen"),
    ("settings put global development_settings_enabled 1", "development_settings_enabled", "developer options"),
    ("settings put secure enabled_notification_listeners com.x/.Reader", "enabled_notification_listeners", "notif"),
    ("settings reset secure", "every secure setting", "defaults"),
    ("settings reset global untrusted_defaults", "every global setting", "defaults"),
]


@pytest.mark.parametrize(("line", "key", "meaning"), RISKY)
def test_a_risky_setting_is_found_however_it_is_spelled(line, key, meaning):
    changes = settings_changed(line)
    assert [c.key for c in changes] == [key], changes
    assert meaning in changes[0].meaning
    assert key in changes[0].described and meaning in changes[0].described


HARMLESS = [
    "settings get secure lockscreen.disabled",  # reading is not changing
    "settings list secure",
    "settings put system screen_brightness 120",
    "settings put global airplane_mode_on 0",
    "settings put system font_scale 1.15",
    "settings put secure location_mode 3",
    "echo settings put secure lockscreen.disabled 1",  # printed, not run
    "getprop ro.lockscreen.disabled",
    "settings put nonsense lockscreen.disabled 1",  # no such namespace: settings fails
    "settings put secure",  # incomplete
    "dumpsys window",
    "",
]


@pytest.mark.parametrize("line", HARMLESS)
def test_reads_and_ordinary_settings_ask_nothing(line):
    assert settings_changed(line) == []


def test_a_line_that_cannot_be_read_reaches_nothing_here():
    # The command rules refuse it; this module never raises.
    assert settings_changed("settings put secure 'lockscreen.disabled 1") == []
    assert places_started("am start -d 'mikashop://checkout") == []


def test_several_changes_in_one_line_are_each_found():
    line = "settings put secure lockscreen.disabled 1 && settings put secure install_non_market_apps 1"
    assert [c.key for c in settings_changed(line)] == ["lockscreen.disabled", "install_non_market_apps"]


@pytest.mark.parametrize(
    ("line", "place"),
    [
        ("am start -d mikashop://checkout", "mikashop://checkout"),
        ("am start -a android.intent.action.VIEW -d 'mikashop://checkouts/c/7f3a'", "mikashop://checkouts/c/7f3a"),
        ("am start -n com.mika.shop/.CheckoutActivity", "com.mika.shop/.CheckoutActivity"),
        ("cmd activity start-activity -n com.mika.shop/.CheckoutActivity", "com.mika.shop/.CheckoutActivity"),
        ("sh -c 'am start -d mikashop://checkout'", "mikashop://checkout"),
        ("am start --user 0 -W -d https://shop.example/pay", "https://shop.example/pay"),
        (
            "am start -a android.intent.action.SEND --es android.intent.extra.TEXT mikashop://checkout",
            "mikashop://checkout",
        ),
        ("monkey -p com.mika.shop 1", "com.mika.shop"),
    ],
)
def test_the_places_a_refused_start_would_open(line, place):
    assert place in places_started(line)


def test_lines_that_start_nothing_name_no_place():
    assert places_started("getprop ro.build.version.sdk") == []
    assert places_started("input tap 540 2325") == []
