"""phone_find on the simulated phone through real adb: the 25-row contact list."""

from __future__ import annotations

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record, results_of


def dump_cap(phone) -> PhoneCapability:
    return PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend="dump"))


async def _run(tmp_path, sim_phone, *steps):
    driver = ListingDriver([step("phone_launch_app", app="Contacts"), *steps, "done"])
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    return driver, record(run)


async def test_find_scrolls_to_a_row_below_the_screen_and_its_number_taps_it(tmp_path, sim_phone):
    driver = ListingDriver(
        [step("phone_launch_app", app="Contacts"), step("phone_find", target="Yara Deng"), "placeholder", "done"]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    orig = driver.reply

    def reply(request):
        if len(driver.model.requests) == 3:
            # the model taps the number phone_find gave
            found = _last(request)
            n = int(found.split("element ", 1)[1].split(" ", 1)[0])
            driver.steps[0] = step("phone_tap", element=n)
        return orig(request)

    driver.model.fn = reply
    await run.run()
    found = driver.results[1]
    assert found.startswith("Found 'Yara Deng' after ") and "after 0 scroll(s)" not in found
    assert '<untrusted source="screen"' in found  # the matched text is the app's: fenced
    tap = results_of(record(run), "phone_tap")[0]
    assert tap["ok"], tap["text"]
    assert "QuickContactActivity" in sim_phone.shell("dumpsys window | grep mCurrentFocus")
    assert "Yara Deng" in tap["text"]


def _last(request) -> str:
    from mika.model.messages import ToolResult

    return next(p.text for p in request.messages[-1].parts if isinstance(p, ToolResult))


async def test_a_target_that_is_not_there_is_reported_not_found_at_the_end(tmp_path, sim_phone):
    _driver, events = await _run(tmp_path, sim_phone, step("phone_find", target="Zelda Nobody", max_scrolls=20))
    res = results_of(events, "phone_find")[0]
    assert not res["ok"] and res["code"] == "not_found"
    assert "'Zelda Nobody' was not found after" in res["text"] and "the end of the list was reached" in res["text"]
    # it stopped on the first scroll that changed nothing, long before the budget
    scrolls = int(res["text"].split("after ", 1)[1].split(" ", 1)[0])
    assert 1 <= scrolls < 20


async def test_past_the_budget_it_says_the_budget_ran_out_not_that_it_is_missing(tmp_path, sim_phone):
    _driver, events = await _run(tmp_path, sim_phone, step("phone_find", target="Yara Deng", max_scrolls=0))
    res = results_of(events, "phone_find")[0]
    assert not res["ok"] and res["code"] == "not_found"
    assert "after 0 scroll(s)" in res["text"] and "budget (max_scrolls) ran out" in res["text"]


async def test_exact_match_and_by_id(tmp_path, sim_phone):
    _driver, events = await _run(
        tmp_path,
        sim_phone,
        step("phone_find", target="Yara", match="exact", max_scrolls=5),
        step("phone_find", target="contact_row", by="id", max_scrolls=0),
    )
    exact, by_id = results_of(events, "phone_find")
    assert not exact["ok"]  # "Yara" is only part of "Yara Deng"
    assert by_id["ok"] and "Found 'contact_row' after 0 scroll(s)" in by_id["text"]


async def test_bad_arguments_name_the_field(tmp_path, sim_phone):
    _driver, events = await _run(
        tmp_path, sim_phone, step("phone_find", target="  "), step("phone_find", target="x", max_scrolls="many")
    )
    empty, bad = results_of(events, "phone_find")
    assert not empty["ok"] and "target" in empty["text"]
    assert not bad["ok"] and "max_scrolls" in bad["text"]


async def test_find_runs_inside_do_steps_and_a_tap_follows(tmp_path, sim_phone):
    _driver, events = await _run(
        tmp_path,
        sim_phone,
        step(
            "do_steps",
            steps=[
                {"tool": "phone_find", "args": {"target": "Xavier Feng", "match": "exact"}},
            ],
        ),
    )
    (batch,) = results_of(events, "do_steps")
    assert batch["ok"], batch["text"]
    assert "Found 'Xavier Feng'" in batch["text"]


class LateSwipePort(AdbPort):
    """A swipe that lands LAND_S after the call returned, as one sent over the run's
    display control channel does (the phone injects it when it gets to it). Only the
    timing is changed; the swipe itself is the real one on the simulated phone."""

    LAND_S = 0.3

    async def swipe(self, display, x1, y1, x2, y2, ms=300):
        import asyncio

        async def land():
            await asyncio.sleep(self.LAND_S)
            await AdbPort.swipe(self, display, x1, y1, x2, y2, ms)

        self.landing = asyncio.ensure_future(land())


async def test_a_swipe_that_lands_late_is_waited_for_not_taken_for_the_end_of_the_list(tmp_path, sim_phone):
    port = LateSwipePort(sim_phone.serial, sim_phone.server.client(), backend="dump")
    driver = ListingDriver([step("phone_launch_app", app="Contacts"), step("phone_find", target="Yara Deng"), "done"])
    run = make_run(tmp_path, PhoneCapability(port), driver)
    await run.run()
    found = results_of(record(run), "phone_find")[0]
    assert found["ok"] and found["text"].startswith("Found 'Yara Deng' after "), found["text"]
