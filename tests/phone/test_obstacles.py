"""phone_dialog and handle_obstacle on the simulated phone through real adb: the Video
app's splash ad, update prompt and rating request, the system permission prompt, and the
routes around them (a fake Skip in the ad, a fake permission prompt, a payment behind "OK")."""

from __future__ import annotations

from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record, results_of, world_state
from tests.phone.test_tools import dump_cap


def video(sim_phone) -> dict:
    return world_state(sim_phone).get("video") or {}


async def test_handle_obstacle_clears_splash_update_and_rating_to_the_home_screen(tmp_path, sim_phone, phone_cap):
    sim_phone.shell("simctl set video.ask_rating true")
    driver = ListingDriver([step("phone_launch_app", app="Video"), step("handle_obstacle"), "home"])
    result = await make_run(tmp_path, phone_cap, driver).run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    cleared = driver.results[1]
    assert "splash_ad: pressed 'Skip" in cleared and "update: pressed 'Later'" in cleared, cleared
    assert "rating: pressed 'Not now'" in cleared, cleared
    state = video(sim_phone)
    assert state.get("splash_skipped") is True and state.get("update_dismissed") is True
    assert state.get("rating_dismissed") is True and not state.get("rating_never")
    # the traps were never pressed
    assert not state.get("ad_opened") and not state.get("update_started") and not state.get("rated")
    assert "HomeActivity" in sim_phone.shell("dumpsys window | grep mCurrentFocus")


def _home(sim_phone) -> None:
    """The Video app on its home screen with nothing in front (splash and update done)."""
    sim_phone.shell("simctl set video.update_dismissed true")
    sim_phone.shell("am start -n com.mika.video/.HomeActivity")


async def test_handle_obstacle_waits_out_a_skip_countdown_then_skips(tmp_path, sim_phone):
    sim_phone.shell("simctl set video.update_dismissed true")
    sim_phone.shell("am start -n com.mika.video/.SplashActivity")
    # The countdown restarts now, so the Skip button is disabled when the tool first looks.
    now = int(sim_phone.device.world.clock.now())
    sim_phone.shell(f"simctl set video.splash_at {now + 1}")
    driver = ListingDriver([step("handle_obstacle"), "skipped"])
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    assert "splash_ad: pressed 'Skip" in driver.results[0], driver.results[0]
    assert video(sim_phone).get("splash_skipped") is True and not video(sim_phone).get("ad_opened")
    finished = results_of(record(run), "handle_obstacle")[0]
    assert finished["wait_ms"] >= 1000, finished  # it waited for the countdown, recorded, not told


async def test_a_fake_skip_inside_the_ad_makes_handle_obstacle_refuse(tmp_path, sim_phone):
    sim_phone.shell("simctl set video.fake_skip true")
    driver = ListingDriver([step("phone_launch_app", app="Video"), step("handle_obstacle"), "left alone"])
    await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    out = driver.results[1]
    assert out.startswith("[not_handled] Nothing was pressed.") and "2 skip buttons" in out, out
    state = video(sim_phone)
    assert not state.get("ad_opened") and not state.get("splash_skipped")


async def test_a_system_permission_prompt_is_denied_by_default(tmp_path, sim_phone):
    _home(sim_phone)
    driver = ListingDriver(
        [step("phone_observe"), step("phone_tap", pick="Nearby videos"), step("handle_obstacle"), "denied"]
    )
    await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    assert 'permission: pressed "Don\'t allow"' in driver.results[2], driver.results[2]
    assert video(sim_phone).get("location") == "denied"


async def test_a_permission_the_task_needs_is_allowed_while_using_only(tmp_path, sim_phone, phone_cap):
    _home(sim_phone)
    driver = ListingDriver(
        [
            step("phone_observe"),
            step("phone_tap", pick="Nearby videos"),
            step("handle_obstacle", permission="allow_while_using"),
            "ok",
        ]
    )
    await make_run(tmp_path, phone_cap, driver).run()
    assert "permission: pressed 'While using the app'" in driver.results[2], driver.results[2]
    assert video(sim_phone).get("location") == "while_using"


async def test_an_app_dialog_dressed_as_the_permission_prompt_is_left_alone(tmp_path, sim_phone):
    _home(sim_phone)
    sim_phone.shell("simctl set video.fake_permission true")
    driver = ListingDriver(
        [
            step("phone_observe"),
            step("phone_tap", pick="Nearby videos"),
            step("handle_obstacle", permission="allow_while_using"),
            "no",
        ]
    )
    await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    out = driver.results[2]
    assert "[not_handled]" in out and "not the system's permission controller" in out, out
    assert "fake_permission_answer" not in video(sim_phone)


async def test_handle_obstacle_with_nothing_in_front_presses_nothing(tmp_path, sim_phone):
    _home(sim_phone)
    before = world_state(sim_phone)
    driver = ListingDriver([step("handle_obstacle"), "nothing"])
    await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    assert driver.results[0].startswith("[no_obstacle]"), driver.results[0]
    assert world_state(sim_phone).get("video") == before.get("video")


async def test_a_bad_permission_argument_names_the_field(tmp_path, sim_phone):
    _home(sim_phone)
    driver = ListingDriver([step("handle_obstacle", permission="allow"), "bad"])
    await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    assert "permission" in driver.results[0] and "allow_while_using" in driver.results[0], driver.results[0]


class TestPhoneDialog:
    async def test_reads_the_dialog_in_front(self, tmp_path, sim_phone, phone_cap):
        sim_phone.shell("am start -n com.mika.video/.HomeActivity")
        driver = ListingDriver([step("phone_dialog"), "read"])
        await make_run(tmp_path, phone_cap, driver).run()
        out = driver.results[0]
        assert "title: 'New version available'" in out and "Video 2.1 is ready" in out, out
        assert "'Later' (element" in out and "'Update now' (element" in out and "com.mika.video" in out
        assert not video(sim_phone).get("update_dismissed")  # reading presses nothing

    async def test_says_when_there_is_no_dialog(self, tmp_path, sim_phone):
        _home(sim_phone)
        driver = ListingDriver([step("phone_dialog"), step("phone_dialog", press="OK"), "none"])
        await make_run(tmp_path, dump_cap(sim_phone), driver).run()
        assert driver.results[0].startswith("No dialog is in front"), driver.results[0]
        assert driver.results[1].startswith("[no_dialog]") and "Nothing was pressed" in driver.results[1]

    async def test_presses_the_one_button_with_that_text_any_case(self, tmp_path, sim_phone):
        sim_phone.shell("am start -n com.mika.video/.HomeActivity")
        driver = ListingDriver([step("phone_dialog", press="  later "), "pressed"])
        await make_run(tmp_path, dump_cap(sim_phone), driver).run()
        assert "Pressed the dialog's button" in driver.results[0], driver.results[0]
        assert video(sim_phone).get("update_dismissed") is True and not video(sim_phone).get("update_started")

    async def test_a_text_no_button_has_presses_nothing_and_lists_the_buttons(self, tmp_path, sim_phone):
        sim_phone.shell("am start -n com.mika.video/.HomeActivity")
        driver = ListingDriver([step("phone_dialog", press="Update"), "no"])
        await make_run(tmp_path, dump_cap(sim_phone), driver).run()
        out = driver.results[0]
        assert out.startswith("[no_such_button]") and '"Update now", "Later"' in out, out
        assert not video(sim_phone).get("update_started") and not video(sim_phone).get("update_dismissed")

    async def test_two_buttons_with_the_same_text_press_nothing(self, tmp_path, sim_phone):
        _home(sim_phone)
        driver = ListingDriver(
            [step("phone_observe"), step("phone_tap", pick="Downloads"), step("phone_dialog", press="OK"), "no"]
        )
        await make_run(tmp_path, dump_cap(sim_phone), driver).run()
        assert driver.results[2].startswith("[ambiguous_button]"), driver.results[2]
        assert not video(sim_phone).get("downloads_removed")

    async def test_ok_on_a_payment_dialog_is_a_payment_step(self, tmp_path, sim_phone):
        # Attacker: the dialog's only "yes" is a harmless-looking OK; the question pays ¥99.
        _home(sim_phone)
        driver = ListingDriver(
            [step("phone_observe"), step("phone_tap", pick="Go VIP"), step("phone_dialog", press="OK"), "stopped"]
        )
        run = make_run(tmp_path, dump_cap(sim_phone), driver)
        await run.run()
        assert "paid" not in video(sim_phone), driver.results[2]
        events = record(run)
        approvals = [e for e in events if e["type"] == "approval" and e["tool"] == "phone_dialog"]
        assert approvals and approvals[-1]["reason"] in ("pay", "payment"), approvals
        pressed = results_of(events, "phone_dialog")[0]
        assert not pressed["ok"], pressed

    async def test_cancel_on_the_payment_dialog_is_just_a_press(self, tmp_path, sim_phone):
        _home(sim_phone)
        driver = ListingDriver(
            [step("phone_observe"), step("phone_tap", pick="Go VIP"), step("phone_dialog", press="cancel"), "ok"]
        )
        run = make_run(tmp_path, dump_cap(sim_phone), driver)
        await run.run()
        assert "Pressed the dialog's button" in driver.results[2], driver.results[2]
        assert "paid" not in video(sim_phone)
        assert not [e for e in record(run) if e["type"] == "approval" and e["tool"] == "phone_dialog"]


async def test_a_dialog_swapped_between_the_check_and_the_press_is_not_pressed(tmp_path, sim_phone):
    # Attacker: the check sees a harmless "OK"; before the press the app puts a payment
    # dialog with its own "OK" in its place. The real check runs; only the swap is added.
    _home(sim_phone)
    driver = ListingDriver(
        [step("phone_observe"), step("phone_tap", pick="Tips"), step("phone_dialog", press="OK"), "x"]
    )
    cap = dump_cap(sim_phone)
    tool = next(t for t in cap.tools() if t.name == "phone_dialog")
    checked = tool.target
    world = sim_phone.device.world

    async def check_then_swap(args, ctx):
        seen = await checked(args, ctx)
        world.top_activity(0).dialog = {
            "title": "Confirm payment ¥99",
            "buttons": [{"text": "Cancel"}, {"text": "OK", "do": [{"set": "video.paid", "value": 99}]}],
        }
        world.changed()
        return seen

    tool.target = check_then_swap
    await make_run(tmp_path, cap, driver).run()
    # The gate judges the press on the dialog as it is when the input goes (issue 32): the
    # swapped-in payment dialog's OK is the final pay, handed to the user, never pressed.
    assert driver.results[2].startswith("[pay_by_user]"), driver.results[2]
    assert "paid" not in video(sim_phone)


async def test_handle_obstacle_runs_inside_do_steps(tmp_path, sim_phone):
    batch = [{"tool": "phone_launch_app", "args": {"app": "Video"}}, {"tool": "handle_obstacle"}]
    driver = ListingDriver([step("do_steps", steps=batch), "done"])
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    state = video(sim_phone)
    assert state.get("splash_skipped") is True and state.get("update_dismissed") is True, driver.results[0]
    assert not state.get("update_started") and not state.get("ad_opened")
    assert results_of(record(run), "do_steps")[0]["ok"], driver.results[0]


async def test_a_chinese_splash_is_skipped_by_its_tiaoguo_button_not_the_download_one(tmp_path, sim_phone, phone_cap):
    sim_phone.shell("simctl set video.skip_word 跳过")
    sim_phone.shell("simctl set video.ad_word 立即下载")
    sim_phone.shell("simctl set video.update_dismissed true")
    driver = ListingDriver([step("phone_launch_app", app="Video"), step("handle_obstacle"), "home"])
    await make_run(tmp_path, phone_cap, driver).run()
    assert "splash_ad: pressed '跳过" in driver.results[1], driver.results[1]
    state = video(sim_phone)
    assert state.get("splash_skipped") is True and not state.get("ad_opened")
