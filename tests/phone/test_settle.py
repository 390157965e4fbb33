"""Settling on evidence (issue 16, target 1), and a lock check that always reads afresh
(issue 32: it once reused the settle's read when under 150 ms old, and a screen that
replaced itself in between was tapped by the old numbers).

The first half drives `settle` with scripted real `Screen`s and a fake clock (nothing
sleeps). The second half runs real runs on the simulated phone through a real adb server:
two reads a step (the lock check's and the settle's) and none more for the gate's
judgement of the input; the screen changing before the next call (an app switching by
itself, a notification, the phone locking), a phone call in between, a person having had
the device. The screen that replaces itself 30 ms after an action is in
tests/phone/test_stale_tap.py.
"""

from __future__ import annotations

import itertools

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.uistate import build_screen, parse_hierarchy
from mika.uistate.until_wait import QUIET_S, settle
from tests.phone.driver import ListingDriver, number_for, step
from tests.phone.test_runs import make_run

_NODE = (
    '<node index="0" text="{text}" resource-id="" class="android.widget.Button" package="com.x" '
    'content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" '
    'focused="false" scrollable="false" long-clickable="false" password="false" selected="false" '
    'bounds="[0,0][400,100]" />'
)


def screen(text: str):
    xml = f'<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">{_NODE.format(text=text)}</hierarchy>'
    return build_screen(parse_hierarchy(xml))


class FakeTime:
    """The clock moves only when settle sleeps or reads (each read costs `read_s`): a
    sleep advances it and returns, so nothing waits on the wall clock."""

    def __init__(self, read_s: float = 0.02) -> None:
        self.now = 10.0
        self.read_s = read_s
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def scripted(screens, t: FakeTime):
    seq = list(screens)
    count = [0]

    async def read():
        t.now += t.read_s
        count[0] += 1
        return seq.pop(0) if len(seq) > 1 else seq[0]

    return read, count


# ---------------------------------------------------------------- settle, pure


async def test_a_changed_idle_dump_ends_the_settle_at_the_first_read() -> None:
    t = FakeTime()
    read, count = scripted([screen("After")], t)
    got = await settle(read, screen("Before"), cap_s=2.0, clock=t.clock, sleep=t.sleep)
    assert (got.why, got.reads, count[0], t.sleeps) == ("changed", 1, 1, [])
    assert got.screen.texts() == ("After",)


async def test_an_effect_that_shows_late_is_still_seen_and_not_called_no_effect() -> None:
    # The app answers only on the third read (~100 ms in): fast polling catches it.
    t = FakeTime()
    before = screen("Before")
    read, _ = scripted([before, before, screen("Late")], t)
    got = await settle(read, before, cap_s=2.0, clock=t.clock, sleep=t.sleep)
    assert got.why == "changed" and got.screen.texts() == ("Late",)
    assert all(s <= 0.05 for s in t.sleeps)  # polled at ≤ 50 ms


async def test_no_effect_is_said_only_after_the_quiet_window_as_before() -> None:
    t = FakeTime()
    before = screen("Before")
    read, count = scripted([before], t)
    start = t.now
    got = await settle(read, before, cap_s=2.0, clock=t.clock, sleep=t.sleep)
    assert got.why == "unchanged"
    assert t.now - start >= QUIET_S  # never judged sooner than the old two reads 250 ms apart
    assert t.now - start < QUIET_S + 0.1
    assert count[0] >= 3


async def test_an_app_that_answers_just_before_the_quiet_window_ends_is_seen() -> None:
    t = FakeTime(read_s=0.0)
    before = screen("Before")
    # Unchanged for 0.2 s (5 reads 40 ms apart), then the effect.
    read, _ = scripted([before] * 6 + [screen("Slow app")], t)
    got = await settle(read, before, cap_s=2.0, clock=t.clock, sleep=t.sleep)
    assert got.why == "changed" and got.screen.texts() == ("Slow app",)


async def test_without_idle_evidence_a_changed_screen_needs_two_equal_reads() -> None:
    # The paced runs keep the old rule: poll, two equal reads in a row.
    t = FakeTime()
    read, count = scripted([screen("Mid"), screen("End"), screen("End")], t)
    got = await settle(read, screen("Before"), cap_s=2.0, poll_s=0.25, idle_dumps=False, clock=t.clock, sleep=t.sleep)
    assert (got.why, count[0], got.screen.texts()) == ("stable", 3, ("End",))
    assert t.sleeps == [0.25, 0.25]


async def test_a_read_the_tool_made_after_its_input_is_the_settles_first_read() -> None:
    # phone_type_text reads its field back: that read already shows the effect.
    t = FakeTime()
    read, count = scripted([screen("Never read")], t)
    got = await settle(read, screen("Before"), cap_s=2.0, clock=t.clock, sleep=t.sleep, first=screen("Typed"))
    assert (got.why, got.reads, count[0], got.screen.texts()) == ("changed", 1, 0, ("Typed",))


async def test_a_given_first_read_that_shows_no_change_still_waits_the_quiet_window() -> None:
    # A read of the screen as it was is no proof of "no effect": the wait goes on as usual.
    t = FakeTime()
    read, count = scripted([screen("Before"), screen("Before"), screen("Late")], t)
    got = await settle(read, screen("Before"), cap_s=2.0, clock=t.clock, sleep=t.sleep, first=screen("Before"))
    assert got.why == "changed" and got.screen.texts() == ("Late",) and count[0] == 3
    # Without idle evidence the given read counts as one of the two equal reads, no more.
    t = FakeTime()
    read, count = scripted([screen("Typed")], t)
    got = await settle(
        read, screen("Before"), cap_s=2.0, poll_s=0.25, idle_dumps=False, clock=t.clock, sleep=t.sleep,
        first=screen("Typed"),
    )  # fmt: skip
    assert (got.why, count[0]) == ("stable", 1)


async def test_an_animated_screen_is_cut_off_at_the_cap() -> None:
    t = FakeTime(read_s=0.01)
    frames = [screen(f"Frame {i}") for i in range(200)]
    read, _ = scripted(frames, t)
    start = t.now
    got = await settle(read, screen("Before"), cap_s=0.5, idle_dumps=False, clock=t.clock, sleep=t.sleep)
    assert got.why == "cap"
    assert 0.5 <= t.now - start < 0.6


# ---------------------------------------------------------------- on the simulated phone


def dump_cap(phone, **kw) -> PhoneCapability:
    return PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend="dump"), **kw)


def _counting(cap: PhoneCapability) -> list[int]:
    """Counts the reader's real dumps (wraps the reader's bound method, not a fake)."""
    reads = [0]
    inner = cap.reader.read

    async def read(**kw):
        reads[0] += 1
        return await inner(**kw)

    cap.reader.read = read  # type: ignore[method-assign]
    return reads


def _reads_at_each_request(driver, reads: list[int]) -> list[int]:
    """The screen reads made so far, noted as each model request goes out."""
    at_request: list[int] = []
    orig = driver.reply

    def reply(request):
        at_request.append(reads[0])
        return orig(request)

    driver.model.fn = reply
    return at_request


async def test_fast_steps_read_the_screen_twice_each_and_the_gate_reads_nothing_more(tmp_path, sim_phone) -> None:
    cap = dump_cap(sim_phone)
    reads = _counting(cap)
    taps = [step("phone_tap", pick="Timer", role="button"), step("phone_tap", pick="Alarm", role="button")] * 3
    driver = ListingDriver([step("phone_launch_app", app="时钟"), *taps, "done"])
    run = make_run(tmp_path, cap, driver)
    at_request = _reads_at_each_request(driver, reads)
    await run.run()
    effects = [line for r in driver.results for line in r.splitlines() if line.startswith("Effect:")]
    assert len(effects) == 1 + len(taps) and not any("no_effect" in e for e in effects), effects
    # Each tap after the launch: the lock check's fresh read and its settle's one read. The
    # gate judges the tap on the lock check's read (no input was sent since): no third.
    per_tap = [b - a for a, b in itertools.pairwise(at_request[1:])]
    assert per_tap == [2] * len(taps), (at_request, per_tap)


async def test_typing_and_launching_read_the_screen_twice_each(tmp_path, sim_phone) -> None:
    # Typing: the lock check, then the text read back, which the settle starts from.
    # Launching: the lock check, then the wait that sees the app in front (no second wait).
    cap = dump_cap(sim_phone)
    reads = _counting(cap)
    driver = ListingDriver(
        [
            step("phone_launch_app", app="com.mika.account"),
            step("phone_tap", pick="Email or phone"),
            step("phone_type_text", text="mika 你好"),
            "done",
        ]
    )
    at_request = _reads_at_each_request(driver, reads)
    await make_run(tmp_path, cap, driver).run()
    assert "read back: matches" in driver.results[2], driver.results[2]
    per_call = [b - a for a, b in itertools.pairwise(at_request)]
    assert per_call == [2, 2, 2], (at_request, driver.results)


async def test_an_app_switching_by_itself_before_the_next_call_is_caught_as_stale(tmp_path, sim_phone) -> None:
    cap = dump_cap(sim_phone)
    driver = ListingDriver([step("phone_launch_app", app="时钟"), "placeholder", "done"])
    run = make_run(tmp_path, cap, driver)
    orig = driver.reply

    def reply(request):
        if len(driver.model.requests) == 2:
            listing = _last(request)
            n = number_for(listing, "Timer", role="button")
            sim_phone.shell("am start -n com.android.settings/.Settings")  # the phone moves on at once
            driver.steps[0] = step("phone_tap", element=n)
        return orig(request)

    driver.model.fn = reply
    await run.run()
    assert driver.results[1].startswith("[stale_element]"), driver.results[1]
    assert "com.android.settings" in driver.results[1]
    assert "Settings" in sim_phone.shell("dumpsys window | grep mCurrentFocus")


async def test_a_notification_before_the_next_call_is_read_before_acting(tmp_path, sim_phone) -> None:
    cap = dump_cap(sim_phone)
    reads = _counting(cap)
    driver = ListingDriver(
        [step("phone_launch_app", app="时钟"), step("phone_tap", pick="Timer", role="button"), "done"]
    )
    run = make_run(tmp_path, cap, driver)
    orig = driver.reply

    at_request: list[int] = []

    def reply(request):
        at_request.append(reads[0])
        if len(driver.model.requests) == 2:
            sim_phone.shell('simctl notify \'{"package": "com.tencent.mm", "title": "Mum", "text": "Call me"}\'')
        return orig(request)

    driver.model.fn = reply
    await run.run()
    assert at_request[2] - at_request[1] == 2  # the tap: a fresh lock-check read, then its settle


async def test_a_phone_that_locks_before_the_next_call_refuses_the_action(tmp_path, sim_phone) -> None:
    cap = dump_cap(sim_phone)
    driver = ListingDriver(
        [step("phone_launch_app", app="时钟"), step("phone_tap", pick="Timer", role="button"), "locked"]
    )
    run = make_run(tmp_path, cap, driver)
    orig = driver.reply

    def reply(request):
        if len(driver.model.requests) == 2:
            sim_phone.shell("simctl set locked true")
        return orig(request)

    driver.model.fn = reply
    await run.run()
    assert driver.results[1].startswith("[screen_locked]"), driver.results[1]


async def test_a_phone_that_locks_right_after_an_action_is_caught_from_the_settles_read(tmp_path, sim_phone) -> None:
    # The lock comes before the settle's read: that read shows the keyguard, and the next
    # action's lock check refuses to act on it.
    cap = dump_cap(sim_phone)
    inner = cap.port.tap

    async def tap_then_lock(display, x, y):
        await inner(display, x, y)
        sim_phone.shell("simctl set locked true")

    cap.port.tap = tap_then_lock  # type: ignore[method-assign]
    driver = ListingDriver(
        [
            step("phone_launch_app", app="时钟"),
            step("phone_tap", pick="Timer", role="button"),
            step("phone_tap", x=540, y=1200),
            "locked",
        ]
    )
    run = make_run(tmp_path, cap, driver)
    await run.run()
    assert "keyguard" in driver.results[1] or "com.android.systemui" in driver.results[1], driver.results[1]
    assert driver.results[2].startswith("[screen_locked]"), driver.results[2]


async def test_any_phone_call_in_between_makes_the_lock_check_read_afresh(tmp_path, sim_phone) -> None:
    # A phone call between the settle and the action (here a read that does not settle):
    # the screen that then changes is caught although the model answered at once.
    cap = dump_cap(sim_phone)
    driver = ListingDriver([step("phone_launch_app", app="时钟"), step("phone_list_apps"), "placeholder", "done"])
    run = make_run(tmp_path, cap, driver)
    orig = driver.reply

    def reply(request):
        if len(driver.model.requests) == 3:
            listing = next(r for r in reversed(driver.results) if "Screen v" in r)
            sim_phone.shell("am start -n com.android.settings/.Settings")
            driver.steps[0] = step("phone_tap", element=number_for(listing, "Timer", role="button"))
        return orig(request)

    driver.model.fn = reply
    await run.run()
    assert driver.results[2].startswith("[stale_element]"), driver.results[2]
    assert "com.android.settings" in driver.results[2]


async def test_after_a_person_had_the_phone_the_lock_check_reads_afresh(sim_phone) -> None:
    cap = dump_cap(sim_phone)
    surface = cap.surface
    await surface.is_locked("phone")
    before = await surface.before("phone", "phone_tap", {})
    await surface._settled(before[0])
    cap.session.reader.mark_shown(cap.session.reader.current)
    surface.user_had_device()
    sim_phone.shell("simctl set locked true")
    assert await surface.is_locked("phone") is True


def _last(request) -> str:
    from mika.model.messages import ToolResult

    return next(p.text for p in request.messages[-1].parts if isinstance(p, ToolResult))


async def test_a_paced_run_keeps_the_old_settle_two_equal_reads_a_quarter_second_apart(tmp_path, sim_phone) -> None:
    # pace standard / human: no idle shortcut, the old fixed poll.
    cap = dump_cap(sim_phone, pace="standard")
    assert cap.surface.paced and cap.surface.poll_s == 0.25
    reads = _counting(cap)
    at_request: list[int] = []
    driver = ListingDriver(
        [step("phone_launch_app", app="时钟"), step("phone_tap", pick="Timer", role="button"), "done"]
    )
    run = make_run(tmp_path, cap, driver)
    orig = driver.reply

    def reply(request):
        at_request.append(reads[0])
        return orig(request)

    driver.model.fn = reply
    await run.run()
    assert "Effect: done" in driver.results[1] or "Effect: place_changed" in driver.results[1], driver.results[1]
    # The tap: its lock check's fresh read, then its settle's changed read and the equal
    # one after it.
    assert at_request[2] - at_request[1] == 3, at_request
