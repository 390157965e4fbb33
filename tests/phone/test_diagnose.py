"""phone_diagnose on sim screens made for each cause (the Form Lab app): a tips bubble of
another app over the checkout button, a disabled button, a button below the fold, a
button under the keyboard, a dialog on top, the screen changed since the tap."""

from __future__ import annotations

import json

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run


def u2_cap(phone) -> PhoneCapability:
    # uiautomator2 dumps every window (the overlay, the keyboard); plain dumps show one.
    return PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend="u2"))


def dump_cap(phone) -> PhoneCapability:
    return PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend="dump"))


def sim_state(phone) -> dict:
    return json.loads(phone.shell("simctl state"))


async def tap_then_diagnose(tmp_path, phone, cap, activity: str, *taps: str) -> list[str]:
    """Open a lab screen, tap each label by its number from the listing, then diagnose."""
    phone.shell(f"am start -n com.mika.lab/.{activity}")
    steps = [step("phone_observe"), *(step("phone_tap", pick=label) for label in taps), step("phone_diagnose")]
    driver = ListingDriver([*steps, "done"])
    await make_run(tmp_path, cap, driver).run()
    return driver.results


async def test_a_floating_view_of_another_app_over_the_button_is_named(tmp_path, sim_phone):
    results = await tap_then_diagnose(tmp_path, sim_phone, u2_cap(sim_phone), "CheckoutActivity", "Check out")
    diag = results[-1]
    assert diag.startswith("Why the last tap"), diag
    assert "1. [covered]" in diag and "com.mika.tips" in diag and "Tips bubble" in diag, diag
    assert sim_state(sim_phone)["lab"]["checked_out"] is False  # the tap really did nothing


async def test_a_disabled_button_is_named_with_what_to_do(tmp_path, sim_phone):
    results = await tap_then_diagnose(tmp_path, sim_phone, u2_cap(sim_phone), "SignUpActivity", "Create account")
    diag = results[-1]
    assert "1. [disabled]" in diag and "enabled=false" in diag, diag
    assert "[covered]" not in diag and "[keyboard]" not in diag
    assert sim_state(sim_phone)["lab"]["created"] is False


async def test_a_button_below_the_fold_says_scroll_down(tmp_path, sim_phone):
    results = await tap_then_diagnose(tmp_path, sim_phone, u2_cap(sim_phone), "ArticleActivity", "Load more")
    diag = results[-1]
    assert "[off_screen]" in diag and "Scroll down" in diag, diag


async def test_a_button_under_the_keyboard_says_hide_it(tmp_path, sim_phone):
    results = await tap_then_diagnose(tmp_path, sim_phone, u2_cap(sim_phone), "ComposeActivity", "Message", "Send")
    diag = results[-1]
    assert "1. [keyboard]" in diag and "phone_back" in diag, diag
    assert sim_state(sim_phone)["lab"]["sent"] is False


async def test_the_keyboard_is_found_from_the_input_method_when_the_dump_shows_one_window(tmp_path, sim_phone):
    results = await tap_then_diagnose(tmp_path, sim_phone, dump_cap(sim_phone), "ComposeActivity", "Message", "Send")
    assert "[keyboard]" in results[-1], results[-1]


async def test_an_explicit_element_is_diagnosed_without_a_tap(tmp_path, sim_phone):
    sim_phone.shell("am start -n com.mika.lab/.SignUpActivity")
    driver = ListingDriver([step("phone_observe"), step("phone_diagnose", pick="Create account"), "done"])
    await make_run(tmp_path, u2_cap(sim_phone), driver).run()
    assert driver.results[-1].startswith("Why element") and "[disabled]" in driver.results[-1], driver.results[-1]


async def test_a_system_dialog_on_top_is_named(tmp_path, sim_phone):
    sim_phone.shell("am start -n com.mika.lab/.SignUpActivity")
    driver = ListingDriver([step("phone_observe"), "placeholder", "done"])
    orig = driver.reply

    def reply(request):
        if driver.steps and driver.steps[0] == "placeholder":
            sim_phone.shell("simctl fault dialog=update")  # a system dialog came up over the page
            driver.steps[0] = step("phone_diagnose", x=540, y=340)
        return orig(request)

    driver.model.fn = reply
    await make_run(tmp_path, u2_cap(sim_phone), driver).run()
    diag = driver.results[-1]
    assert "[window_on_top]" in diag and "android" in diag, diag


async def test_the_screen_changed_since_the_tap(tmp_path, sim_phone):
    sim_phone.shell("am start -n com.mika.lab/.SignUpActivity")
    driver = ListingDriver([step("phone_observe"), step("phone_tap", pick="Create account"), "placeholder", "done"])
    orig = driver.reply

    def reply(request):
        if driver.steps and driver.steps[0] == "placeholder":
            sim_phone.shell("am start -n com.mika.lab/.ArticleActivity")  # another page came up meanwhile
            driver.steps[0] = step("phone_diagnose")
        return orig(request)

    driver.model.fn = reply
    await make_run(tmp_path, u2_cap(sim_phone), driver).run()
    assert "1. [gone]" in driver.results[-1] and "phone_observe" in driver.results[-1], driver.results[-1]


async def test_nothing_to_diagnose_before_any_touch(tmp_path, sim_phone):
    driver = ListingDriver([step("phone_diagnose"), "done"])
    await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    assert "[nothing_to_diagnose]" in driver.results[0] and "element number" in driver.results[0]


async def test_x_without_y_names_the_missing_field(tmp_path, sim_phone):
    driver = ListingDriver([step("phone_diagnose", x=10), "done"])
    await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    assert "give both x and y" in driver.results[0]
