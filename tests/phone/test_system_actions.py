"""Standard intents on the simulated phone: timer, calendar event, link, shared text."""

from __future__ import annotations

from datetime import timedelta

from mika.runtypes.result import OutcomeStatus
from mika.sim.tasks import get_task
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, world_state
from tests.phone.test_tools import dump_cap


async def test_a_timer_through_the_intent(tmp_path, sim_phone):
    driver = ListingDriver([step("phone_set_timer", seconds=300), "Timer started."])
    await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    assert get_task("clock_timer_5min").succeeded(world_state(sim_phone)), world_state(sim_phone).get("timers")


async def test_a_calendar_event_is_filled_in_and_saved_by_a_tap(tmp_path, sim_phone):
    task = get_task("calendar_team_sync_tomorrow")
    now = sim_phone.device.world.clock.local()
    tomorrow = (now + timedelta(days=1)).date().isoformat()
    driver = ListingDriver(
        [
            step("phone_add_calendar_event", title="Team sync", start=f"{tomorrow}T15:00"),
            step("phone_tap", pick="Save"),
            "Added.",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    assert "not saved yet" in driver.results[0] and "Team sync" in driver.results[0]
    assert task.succeeded(world_state(sim_phone)), world_state(sim_phone).get("events")


async def test_a_link_opens_in_the_browser(tmp_path, sim_phone):
    driver = ListingDriver([step("phone_open_link", url="https://example.com/hello"), "opened"])
    await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    assert "Opened https://example.com/hello" in driver.results[0]
    assert "com.mika.browser" in driver.results[0]


async def test_shared_text_opens_the_compose_page_without_sending(tmp_path, sim_phone):
    driver = ListingDriver([step("phone_share_text", text="See you at 7", app="Messages"), "opened"])
    await make_run(tmp_path, dump_cap(sim_phone), driver).run()
    shared = driver.results[0]
    assert "Nothing was sent" in shared and "See you at 7" in shared
    threads = world_state(sim_phone).get("threads") or []
    assert not any(m.get("text") == "See you at 7" for t in threads for m in t.get("messages", []))
