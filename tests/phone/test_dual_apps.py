"""An app installed twice (dual apps in user 999): the system's chooser after launching
it, picking a copy (the sim records which user's copy runs), `also_in` in the app list."""

from __future__ import annotations

import json

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run


def dump_cap(phone) -> PhoneCapability:
    return PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend="dump"))


def sim_state(phone, key: str):
    return json.loads(phone.shell(f"simctl state {key}"))


@pytest.fixture
def dual_phone(sim_phone_factory):
    return sim_phone_factory(scenario="dual")


async def test_pm_answers_users_and_per_user_packages_like_android(dual_phone):
    users = dual_phone.shell("pm list users")
    assert "UserInfo{0:Owner:c13} running" in users and "UserInfo{999:XSpace:801010} running" in users
    other = dual_phone.shell("pm list packages -3 --user 999")
    assert other.strip().splitlines() == ["package:com.mika.chat"]
    unknown = dual_phone.run_adb("shell", "pm list packages --user 5", check=False)
    assert unknown.returncode == 255 and b"user 5 doesn't exist" in unknown.stdout + unknown.stderr


async def test_launch_without_profile_reports_the_chooser_and_picks_nothing(tmp_path, dual_phone):
    driver = ListingDriver([step("phone_launch_app", app="微聊"), "stop"])
    await make_run(tmp_path, dump_cap(dual_phone), driver).run()
    result = driver.results[0]
    assert "installed twice" in result and "(the other copy)" in result, result
    assert "微聊 (dual)" in result and "Don't open the app again" in result
    # the chooser is still up, nothing started
    assert sim_state(dual_phone, "running_copies") == []
    assert "ResolverActivity" in dual_phone.shell("dumpsys window | grep mCurrentFocus")


@pytest.mark.parametrize(("profile", "user"), [("main", 0), ("other", 999)])
async def test_launch_with_profile_picks_that_copy(tmp_path, dual_phone, profile, user):
    driver = ListingDriver([step("phone_launch_app", app="微聊", profile=profile), "stop"])
    await make_run(tmp_path, dump_cap(dual_phone), driver).run()
    assert driver.results[0].startswith("Opened the " + ("other" if profile == "other" else "main")), driver.results[0]
    assert sim_state(dual_phone, "running_copies") == [{"package": "com.mika.chat", "user": user}]
    assert "com.mika.chat" in dual_phone.shell("dumpsys window | grep mCurrentFocus")


async def test_chinese_chooser_marker_is_recognised(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="dual_zh")
    driver = ListingDriver([step("phone_launch_app", app="com.mika.chat", profile="other"), "stop"])
    await make_run(tmp_path, dump_cap(phone), driver).run()
    assert sim_state(phone, "running_copies") == [{"package": "com.mika.chat", "user": 999}], driver.results[0]


async def test_a_bad_profile_names_the_field(tmp_path, dual_phone):
    driver = ListingDriver([step("phone_launch_app", app="微聊", profile="work"), "stop"])
    await make_run(tmp_path, dump_cap(dual_phone), driver).run()
    assert "parameter 'profile'" in driver.results[0] and "'work'" in driver.results[0]
    assert sim_state(dual_phone, "running_copies") == []


async def test_list_apps_marks_also_in(tmp_path, dual_phone):
    driver = ListingDriver([step("phone_list_apps"), "stop"])
    await make_run(tmp_path, dump_cap(dual_phone), driver).run()
    lines = driver.results[0].splitlines()
    chat = [line for line in lines if "com.mika.chat" in line]
    assert chat and "also_in: user 999 (XSpace)" in chat[0], driver.results[0]
    assert not [line for line in lines if "also_in" in line and "com.mika.chat" not in line]


async def test_list_apps_on_a_phone_with_one_user_marks_nothing(tmp_path, sim_phone):
    driver = ListingDriver([step("phone_list_apps"), "stop"])
    await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    assert "also_in" not in driver.results[0]


async def test_a_chooser_with_two_same_labels_asks_instead_of_guessing(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="dual_same")
    driver = ListingDriver([step("phone_launch_app", app="微聊", profile="other"), "stop"])
    await make_run(tmp_path, dump_cap(phone), driver).run()
    assert "[chooser_unclear]" in driver.results[0] or "can't be told apart" in driver.results[0], driver.results[0]
    assert "Ask the user" in driver.results[0]
    assert sim_state(phone, "running_copies") == []  # nothing picked


@pytest.mark.parametrize(
    "command",
    ["monkey -p com.mika.chat -c android.intent.category.LAUNCHER 1", "am start -n com.mika.chat/.ui.LauncherUI"],
)
async def test_every_shell_launch_path_shows_the_chooser_first(dual_phone, command):
    dual_phone.shell(command)
    assert "ResolverActivity" in dual_phone.shell("dumpsys window | grep mCurrentFocus")
    assert sim_state(dual_phone, "running_copies") == []


async def test_a_batch_stops_at_the_chooser(tmp_path, dual_phone):
    driver = ListingDriver(
        [
            step(
                "do_steps",
                steps=[{"tool": "phone_launch_app", "args": {"app": "微聊"}}, {"tool": "phone_back", "args": {}}],
            ),
            "stop",
        ]
    )
    await make_run(tmp_path, dump_cap(dual_phone), driver).run()
    batch = driver.results[0]
    assert batch.startswith("[stopped_chooser]"), batch
    assert (
        "Stopped after step 1 (phone_launch_app): the phone asks which copy" in batch
        and "Steps 2 were not done" in batch
    )
    # the back was not pressed: the chooser is still up
    assert "ResolverActivity" in dual_phone.shell("dumpsys window | grep mCurrentFocus")


async def test_sharing_into_an_app_installed_twice_reports_the_chooser_and_keeps_the_text(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="dual_messages")  # Messages also in a work profile (user 10)
    driver = ListingDriver(
        [step("phone_share_text", text="See you at 7", app="Messages"), step("phone_tap", pick="Messages"), "done"]
    )
    await make_run(tmp_path, dump_cap(phone), driver).run()
    said = driver.results[0]
    assert "installed twice" in said and "Work Messages (the other copy)" in said and "Nothing was sent" in said, said
    # picking the main copy opens its share page with the text (the intent waited for the pick)
    assert sim_state(phone, "running_copies") == [{"package": "com.google.android.apps.messaging", "user": 0}]
    assert "NewMessage" in json.dumps(sim_state(phone, "screen"))
    assert "See you at 7" in phone.shell("uiautomator dump /dev/tty")
