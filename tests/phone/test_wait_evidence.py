"""The screen phone_wait ends on is read like any other: an answer quoting it (a price in
search results that appeared while waiting) is grounded in what the run read."""

from __future__ import annotations

from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record
from tests.phone.test_tools import dump_cap


async def test_a_price_first_seen_in_a_waits_screen_is_evidence(tmp_path, sim_phone) -> None:
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Shop"),
            step("phone_type_text", pick="Search products", text="umbrella", submit=True),
            step("phone_wait", expect="¥69.00"),
            "The Folding Umbrella costs ¥69.00.",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    wait = driver.results[2]
    assert wait.startswith("Condition met") and "¥69.00" in wait and "[observation o" in wait, wait
    events = record(run)
    assert "¥69.00" not in "".join(driver.results[:2]), "the price shows only once the results load"
    grounding = [e for e in events if e["type"] == "grounding"][-1]
    assert grounding["grounded"] and grounding["checked"] >= 1, grounding
