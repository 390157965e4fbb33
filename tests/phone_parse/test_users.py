"""`pm list users` / `pm list packages` parsing for `also_in` (formats as Android prints
them: AOSP owner + a work profile, MIUI's XSpace 999; `-f` paths with '=')."""

from __future__ import annotations

from mika.cap.phone.adb.users import parse_packages, parse_users


def test_users_of_aosp_with_a_work_profile_and_miui_xspace():
    text = "Users:\n\tUserInfo{0:Owner:c13} running\n\tUserInfo{10:Work profile:1030} running\n"
    assert parse_users(text) == {0: "Owner", 10: "Work profile"}
    assert parse_users("Users:\n\tUserInfo{0:机主:13} running\n\tUserInfo{999:XSpace:801010}\n") == {
        0: "机主",
        999: "XSpace",
    }


def test_a_phone_that_says_nothing_useful_has_no_users():
    assert parse_users("") == {}
    assert parse_users("Error: java.lang.SecurityException: Shell does not have permission") == {}


def test_packages_plain_and_with_paths():
    text = "package:com.mika.chat\npackage:/data/app/~~x==/com.a.b-1/base.apk=com.a.b\n\njunk\n"
    assert parse_packages(text) == {"com.mika.chat", "com.a.b"}
