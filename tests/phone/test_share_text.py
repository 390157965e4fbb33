"""phone_share_text says which app actually came up, and the simulated phone's `am` reads a
bare trailing package as real am does (the intent is limited to that package). Before, the
sim's am took `com.mika.notes` for data and handed the SEND to Messages, and the tool said
"Opened com.mika.notes's share page" while Messages was in front."""

from __future__ import annotations

from mika.sim.shell.commands.am import parse_intent
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record, results_of, world_state

MESSAGES = "com.google.android.apps.messaging"
SEND = "am start -a android.intent.action.SEND -t text/plain --es android.intent.extra.TEXT hi"


def front(sim_phone) -> str:
    return sim_phone.shell("dumpsys window | grep mCurrentFocus")


class TestAmTrailingArgument:
    def test_a_bare_trailing_package_limits_the_intent(self):
        assert parse_intent([*SEND.split()[2:], "com.mika.notes"]).package == "com.mika.notes"
        assert parse_intent(["-a", "x", "com.mika.notes/.Main"]).component == "com.mika.notes/.Main"
        assert (
            parse_intent(["-a", "android.intent.action.VIEW", "https://example.com/a"]).data == "https://example.com/a"
        )
        assert parse_intent(["-a", "android.intent.action.DIAL", "tel:123"]).data == "tel:123"

    def test_send_to_an_app_without_a_share_page_fails_as_on_a_real_phone(self, sim_phone):
        # The phone speaks shell v2: am's error goes to stderr, as on a real phone.
        done = sim_phone.run_adb("shell", f"{SEND} com.mika.notes; echo rc=$?", check=False)
        out = (done.stdout + done.stderr).decode()
        assert "pkg=com.mika.notes" in out and "unable to resolve" in out, out
        assert "NewMessage" not in front(sim_phone) and MESSAGES not in front(sim_phone)

    def test_send_to_the_named_app_opens_its_share_page(self, sim_phone):
        out = sim_phone.shell(f"{SEND} {MESSAGES}")
        assert "Error" not in out, out
        assert MESSAGES in front(sim_phone)

    def test_without_a_package_the_phone_picks_the_app(self, sim_phone):
        sim_phone.shell(SEND)
        assert MESSAGES in front(sim_phone)


async def test_sharing_into_an_app_that_takes_no_text_is_reported_truthfully(tmp_path, sim_phone, phone_cap):
    driver = ListingDriver([step("phone_share_text", text="hi", app="com.mika.notes"), "done"])
    run = make_run(tmp_path, phone_cap, driver)
    await run.run()
    said = driver.results[0]
    assert "Opened com.mika.notes's share page" not in said, said
    assert "com.mika.notes does not take shared text" in said, said
    assert MESSAGES not in front(sim_phone)
    assert results_of(record(run), "phone_share_text")[0]["code"] == "cannot_share"


async def test_a_share_that_came_up_says_it_checked_the_app(tmp_path, sim_phone, phone_cap):
    driver = ListingDriver([step("phone_share_text", text="See you at 7", app="Messages"), "done"])
    run = make_run(tmp_path, phone_cap, driver)
    await run.run()
    said = driver.results[0]
    assert f"{MESSAGES} came up with the text on its share page (checked: it is in front)" in said, said
    assert "Nothing was sent" in said and "See you at 7" in said
    assert MESSAGES in front(sim_phone)
    threads = world_state(sim_phone).get("threads") or []
    assert not any(m.get("text") == "See you at 7" for t in threads for m in t.get("messages", []))
