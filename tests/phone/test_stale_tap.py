"""The stale-screen tap (issue 32): a screen that replaces itself 30 ms after an action.

The lock check used to reuse the read that ended the previous action's settle when it was
under 150 ms old, so `phone_tap element=N` right after an action was checked against — and
aimed by — a screen that was no longer there: it tapped Settings' "Network & internet"
while the result said it tapped "Grace Huang". Now the lock check reads afresh, so the
number is checked against the screen as it is: the tap either acts on the same element
(and says so) or is refused as stale. It never taps something else under the old name.

The simulated Contacts list, with `contacts_swap` set, opens Settings by itself 30 ms after
its first dump (the launch's wait reads it, and its settle starts from that read: the
model's listing is the list), see mika/sim/apps/README.md ("after").
"""

from __future__ import annotations

from mika.model.messages import ToolResult
from mika.sim.apps.frame import build_frame
from tests.phone.driver import ListingDriver, current_listing, elements_in, number_for, step
from tests.phone.test_runs import make_run

SETTINGS = "com.android.settings"


def top(world) -> tuple[str, str]:
    activity = world.top_activity(0)
    return (activity.package, activity.screen) if activity is not None else ("", "")


def until_swapped(world, within_ms: int = 150) -> float:
    """Moves the phone's own clock on in 10 ms steps, looking after each (as any reader
    would: a look lets what is due happen), until Settings came up by itself; returns the
    phone-clock milliseconds that took. No wall-clock wait: the sim's clock is the one
    its "after" counts."""
    started = world.clock.now()
    while top(world)[0] != SETTINGS:
        spent = (world.clock.now() - started) * 1000
        assert spent < within_ms, f"the list never gave way to Settings: {top(world)}"
        world.clock.advance(0.01)
        build_frame(world, 0)
    return (world.clock.now() - started) * 1000


async def test_a_tap_by_an_old_number_after_the_screen_replaced_itself_is_never_blind(tmp_path, sim_phone, phone_cap):
    world = sim_phone.device.world
    world.data["contacts_swap"] = True
    world.changed()
    driver = ListingDriver([step("phone_launch_app", app="Contacts"), "placeholder", "done"])
    orig = driver.reply
    seen: dict = {}

    def reply(request):
        if len(driver.model.requests) == 2:
            results = [*driver.results, *(p.text for p in request.messages[-1].parts if isinstance(p, ToolResult))]
            listing = current_listing(results)
            seen["elements"] = elements_in(listing)
            seen["n"] = number_for(listing, "Grace Huang")
            # the phone moves on by itself, right after the action
            seen["swapped_ms"] = until_swapped(world)
            driver.steps[0] = step("phone_tap", element=seen["n"])
        return orig(request)

    driver.model.fn = reply
    await make_run(tmp_path, phone_cap, driver).run()
    # The model was shown the list (the swap came after the action's own reads) …
    assert any(label == "Grace Huang" for _, _, label, _ in seen["elements"]), seen
    # … and gave way inside the old reuse window (150 ms): the tap the old code aimed blind.
    # The phone's clock runs with the wall clock as well, so a loaded machine adds its delay.
    assert seen["swapped_ms"] < 150, seen
    # … and its number for "Grace Huang" now names another app's element: the only right
    # answer is a refusal as stale, with the screen as it is now. Nothing was pressed on
    # Settings (the row at Grace Huang's spot opens Network & internet).
    result = driver.results[1]
    assert result.startswith("[stale_element]"), result
    assert SETTINGS in result and "Tapped" not in result, result
    assert top(world) == (SETTINGS, "Main"), top(world)
