"""An app is found by the name the phone's launcher shows, in either language: the
simulated phone's launcher names each app in English and Chinese (its label_zh shows
when the phone is in Chinese), and phone_launch_app must open it by either name."""

from __future__ import annotations

import pytest

from mika.cap.phone.adb.labels import label_for, match_app
from mika.sim.apps.registry import load_apps
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, world_state
from tests.phone.test_tools import dump_cap

LAUNCHABLE = [a for a in load_apps().values() if a.launcher]


@pytest.mark.parametrize("app", LAUNCHABLE, ids=[a.package for a in LAUNCHABLE])
def test_each_launcher_name_matches_its_app_in_both_languages(app) -> None:
    # The phone lists packages only; labels come from Mika's own table (labels.KNOWN).
    installed = {a.package: label_for(a.package) for a in LAUNCHABLE}
    for name in {app.label, app.label_zh}:
        assert match_app(name, installed) == [app.package], (name, match_app(name, installed))


async def test_launch_an_app_by_the_chinese_name_its_launcher_shows(tmp_path, sim_phone) -> None:
    sim_phone.shell("simctl set settings.language 中文 (简体)")
    driver = ListingDriver([step("phone_launch_app", app="视频"), "已打开视频。"])
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    assert driver.results[0].startswith("Opened Video (com.mika.video)"), driver.results[0]
    assert world_state(sim_phone)["foreground"]["0"].startswith("com.mika.video/")


async def test_launch_one_page_of_an_app_without_a_launcher_icon(tmp_path, sim_phone) -> None:
    # Form Lab has no home-screen icon; its knowledge says to start it by .MenuActivity.
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Form Lab"),
            step("phone_launch_app", app="com.mika.lab/.NoSuchActivity"),
            step("phone_launch_app", app="com.mika.lab/.MenuActivity"),
            "opened",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    assert driver.results[0].startswith("[app_not_found]"), driver.results[0]
    assert driver.results[1].startswith("[launch_failed] com.mika.lab/.NoSuchActivity could not be opened"), (
        driver.results[1]
    )
    assert driver.results[2].startswith("Opened Form Lab (com.mika.lab)."), driver.results[2]
    assert world_state(sim_phone)["foreground"]["0"] == "com.mika.lab/.MenuActivity"
