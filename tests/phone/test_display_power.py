"""A display the phone powers off (issue 13 "The display's life": black frames) is made
again; a display that is only black for a while, or shows a dark screen, is not.

On the simulated phone through a real adb server: `simctl display off N` powers the
scrcpy display off as the framework does (its video turns black, `dumpsys display` says
state OFF). The keeper asks `dumpsys display` before it re-creates anything.
"""

from __future__ import annotations

import json

import pytest
from PIL import Image

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.cap.phone.display.leftovers import parse_tasks
from mika.cap.phone.display.power import BLACK_FOR_S, BlackWatch, display_state, is_black
from mika.cap.phone.display.video import VideoDecoder
from mika.record.events import DisplayChosen, Notice
from mika.uistate.screen import StaleElement
from tests.phone.driver import ListingDriver, step
from tests.real_fixtures import real

SETTINGS = "com.android.settings"
REAL_DUMPSYS = "adb_outputs/dumpsys_display__mtk_tablet_android13.txt"


def _cap(sim_phone, *, power_check_s: float) -> tuple[PhoneCapability, list]:
    port = AdbPort(
        sim_phone.serial,
        sim_phone.server.client(),
        backend="u2",
        reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=3.0),
    )
    cap = PhoneCapability(port, display_mode="virtual")
    assert cap.keeper is not None
    cap.keeper.power_check_s = power_check_s
    events: list = []
    cap.bind_run(events.append, "run-1", "conv-1")
    return cap, events


def _state(sim_phone) -> dict:
    return json.loads(sim_phone.shell("simctl state"))


def _notices(events: list) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


async def _open_settings(cap: PhoneCapability) -> int:
    n = await cap.session.ensure_display()
    assert n > 0 and cap.session.display_state.mode == "virtual"
    assert (await cap.port.launch_app(n, SETTINGS)).exit_code == 0
    screen = await cap.session.reader.read()
    assert screen.display_id == n and screen.foreground_package == SETTINGS
    return n


def _until_picture(decoder: VideoDecoder, black: bool, after: int = 0):
    """The first decoded picture after number `after` that is (not) black. The stream's
    first pictures are of the empty display from before the app was started (black)."""
    number = after
    for _ in range(90):  # pictures come at least once a second
        frame = decoder.wait_newer(number, 5)
        assert frame is not None, f"the video stopped: {decoder.error}"
        number = frame.number
        if is_black(frame.image) == black:
            return frame
    pytest.fail(f"the display's video never showed a {'black' if black else 'lit'} picture")


def _until_suspicious(decoder: VideoDecoder, watch_of, after: int) -> None:
    """New pictures until the keeper's watch finds them suspicious (it samples the lit
    ones, so the first black picture may go unlooked at; the next ones are not)."""
    number = after
    for _ in range(90):
        if watch_of().suspicious:
            return
        frame = decoder.wait_newer(number, 5)
        assert frame is not None, f"the video stopped: {decoder.error}"
        number = frame.number
    pytest.fail("the black pictures never made the watch suspicious")


class Clock:
    """A hand-moved clock for BlackWatch (our own class's time source, not a mock)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


BLACK = Image.new("RGB", (64, 128), (0, 0, 0))
DARK_APP = Image.new("RGB", (64, 128), (18, 18, 18))  # Material's dark background, #121212
CONTENT = Image.new("RGB", (64, 128), (250, 250, 250))


# -- what the phone says -----------------------------------------------------------------


def test_the_real_dump_is_read_from_its_base_info_not_the_stale_override():
    text = real(REAL_DUMPSYS).read_text()
    # The real Android 13 tablet's screen was off: base info "state OFF", override "state ON".
    assert "mOverrideDisplayInfo" in text and "state ON" in text
    assert display_state(text, 0) == "OFF"
    assert display_state(text, 7) is None  # not listed: unknown, never "OFF"


def test_the_sims_dumpsys_display_says_off_for_a_powered_off_virtual_display(sim_phone):
    n = int(sim_phone.shell("simctl display add 720x1280 320").strip())
    other = int(sim_phone.shell("simctl display add 720x1280 320").strip())
    assert display_state(sim_phone.shell("dumpsys display"), n) == "ON"
    sim_phone.shell(f"simctl display off {n}")
    out = sim_phone.shell("dumpsys display")
    # As recent AOSP prints it: the device block has the power controller's OFF, the
    # display's info still says ON (it follows VirtualDisplay.setDisplayState).
    assert "mDisplayState=OFF" in out
    info = next(ln for ln in out.splitlines() if "mBaseDisplayInfo" in ln and f'displayId {n}"' in ln)
    assert "state ON" in info
    assert display_state(out, n) == "OFF"
    assert display_state(out, other) == "ON"  # tied by unique id: the other one is on
    assert display_state(out, 0) == "ON"  # the user's screen is not touched
    assert _state(sim_phone)["displays"][str(n)]["state"] == "OFF"
    sim_phone.shell(f"simctl display on {n}")
    assert display_state(sim_phone.shell("dumpsys display"), n) == "ON"


def test_simctl_refuses_to_power_off_display_0_or_an_unknown_one(sim_phone):
    for bad in ("0", "99"):
        out = sim_phone.shell(f"simctl display off {bad} 2>&1; echo rc=$?")
        assert "no virtual display" in out and "rc=1" in out


# -- black pictures are a hint only --------------------------------------------------------


def test_black_is_told_from_dark_and_from_content():
    assert is_black(BLACK)
    assert is_black(BLACK.convert("L"))
    assert not is_black(DARK_APP)
    assert not is_black(CONTENT)
    speck = BLACK.copy()
    speck.putpixel((3, 3), (255, 255, 255))  # one lit pixel (a cursor) is content
    assert not is_black(speck)


def test_one_black_key_frame_or_a_black_moment_while_loading_is_not_suspicious():
    clock = Clock()
    watch = BlackWatch(clock=clock)
    watch.saw(BLACK)  # a black key frame as the app starts
    clock.now += BLACK_FOR_S - 0.5
    watch.saw(BLACK)
    assert not watch.suspicious
    clock.now += 0.4
    watch.saw(CONTENT)  # the content came
    clock.now += BLACK_FOR_S * 3
    assert not watch.suspicious
    watch.saw(BLACK)  # black again: counted from now, not from the first black frame
    clock.now += 1.0
    assert not watch.suspicious
    clock.now += BLACK_FOR_S
    assert watch.suspicious


async def test_the_sims_video_turns_black_when_the_display_is_powered_off(sim_phone):
    """The real stream: H.264 from the sim's scrcpy server, decoded; black after `off`."""
    cap, _ = _cap(sim_phone, power_check_s=3600)
    n = await _open_settings(cap)
    assert cap.keeper is not None
    stream = cap.keeper.video_stream()
    assert stream is not None
    decoder = VideoDecoder(stream[0].codec or "h264")
    decoder.start(stream[1])
    try:
        lit = _until_picture(decoder, black=False)
        sim_phone.shell(f"simctl display off {n}")
        assert _until_picture(decoder, black=True, after=lit.number).size == lit.size
    finally:
        decoder.stop()
        await cap.close()


# -- the keeper ----------------------------------------------------------------------------


async def test_a_powered_off_display_is_made_again_and_the_run_goes_on_there(sim_phone):
    before = _state(sim_phone)
    cap, events = _cap(sim_phone, power_check_s=0)  # ask `dumpsys display` on every call
    n = await _open_settings(cap)
    await cap.session.ensure_display()  # the run's task is written down
    reader = cap.session.reader
    held = reader.tracker.current
    assert held is not None and held.elements
    (task,) = [t.id for t in parse_tasks(sim_phone.shell("am stack list")) if t.display == n]

    sim_phone.shell(f"simctl display off {n}")
    m = await cap.session.ensure_display()

    assert m not in (0, n) and cap.session.display_state.mode == "virtual"
    now = _state(sim_phone)
    assert str(n) not in now["displays"], "the powered-off display was left behind"
    assert now["displays"][str(m)]["foreground"] == SETTINGS and now["displays"][str(m)]["state"] == "ON"
    # Moved, not started again: the same task, now on the new display.
    assert [t.id for t in parse_tasks(sim_phone.shell("am stack list")) if t.display == m] == [task]
    assert now["foreground"]["0"] == before["foreground"]["0"], "the app fell on the user's screen"
    # Told once, and the run's display event names the new display.
    notices = _notices(events)
    assert len(notices) == 1 and f"powered off the agent's display {n}" in notices[0]
    assert [e.display_id for e in events if isinstance(e, DisplayChosen)] == [n, m]
    # Nothing held is trusted: a number from the old display's listing is stale …
    number = held.elements[0].number
    with pytest.raises(StaleElement):
        reader.tracker.resolve(number, seen_version=held.version)
    # … and the next read is of the new display.
    assert reader.display == m
    fresh = await reader.read()
    assert fresh.display_id == m and fresh.foreground_package == SETTINGS and fresh.version > held.version
    # The next calls stay on it: no second notice, no third display.
    assert await cap.session.ensure_display() == m
    assert len(_notices(events)) == 1 and cap.keeper is not None and cap.keeper.recreated == 1
    await cap.close()
    assert str(m) not in _state(sim_phone)["displays"]


async def test_black_pictures_of_a_powered_off_display_bring_the_check_forward(sim_phone):
    cap, events = _cap(sim_phone, power_check_s=3600)  # no check by time in this test
    n = await _open_settings(cap)
    keeper = cap.keeper
    assert keeper is not None and keeper.server is not None
    keeper.black = BlackWatch(black_for_s=0.0)  # any black picture is worth a check here
    stream = keeper.video_stream()
    assert stream is not None
    saw = keeper.watch_frames(keeper.server)
    decoder = VideoDecoder(stream[0].codec or "h264", on_frame=saw)
    decoder.start(stream[1])
    try:
        lit = _until_picture(decoder, black=False)  # the stream's first black pictures have passed
        assert not keeper.black.suspicious
        assert await cap.session.ensure_display() == n  # not due, nothing black: kept
        sim_phone.shell(f"simctl display off {n}")
        _until_suspicious(decoder, lambda: keeper.black, lit.number)
        m = await cap.session.ensure_display()
        assert m not in (0, n)
        assert _state(sim_phone)["displays"][str(m)]["foreground"] == SETTINGS
        assert len(_notices(events)) == 1
    finally:
        decoder.stop()
        await cap.close()


async def test_a_genuinely_black_screen_with_the_display_on_is_not_made_again(sim_phone):
    """Adversarial: the pictures are black, for long, but the phone says the display is ON
    (here the phone's screen is off and the agent's display is not): nothing is re-created."""
    cap, events = _cap(sim_phone, power_check_s=3600)
    n = await _open_settings(cap)
    keeper = cap.keeper
    assert keeper is not None and keeper.server is not None
    keeper.black = BlackWatch(black_for_s=0.0)
    stream = keeper.video_stream()
    assert stream is not None
    saw = keeper.watch_frames(keeper.server)
    decoder = VideoDecoder(stream[0].codec or "h264", on_frame=saw)
    decoder.start(stream[1])
    server = keeper.server
    try:
        lit = _until_picture(decoder, black=False)
        sim_phone.shell("simctl set screen_on false")  # black pictures, display state ON
        _until_suspicious(decoder, lambda: keeper.black, lit.number)
        assert display_state(sim_phone.shell("dumpsys display"), n) == "ON"
        assert await cap.session.ensure_display() == n
        assert keeper.server is server and server.alive and keeper.recreated == 0
        assert not keeper.black.suspicious  # asked and answered: the hint is spent
        assert _notices(events) == []
        assert _state(sim_phone)["displays"][str(n)]["foreground"] == SETTINGS
    finally:
        sim_phone.shell("simctl set screen_on true")
        decoder.stop()
        await cap.close()


async def test_a_display_that_is_on_is_never_made_again_however_often_it_is_checked(sim_phone):
    cap, events = _cap(sim_phone, power_check_s=0)
    n = await _open_settings(cap)
    for _ in range(3):
        assert await cap.session.ensure_display() == n
    assert cap.keeper is not None and cap.keeper.recreated == 0 and _notices(events) == []
    await cap.close()


# -- a whole run -----------------------------------------------------------------------------


class PowerOffDriver(ListingDriver):
    """The scripted model; after the listing of Settings came back, the phone powers the
    agent's display off (as the framework does while the model thinks)."""

    def __init__(self, steps, sim_phone, cap: PhoneCapability) -> None:
        super().__init__(steps)
        self.sim_phone = sim_phone
        self.cap = cap
        self.powered_off: int | None = None

    def reply(self, request):
        answer = super().reply(request)
        if self.powered_off is None and len(self.results) == 1:
            self.powered_off = self.cap.session.display
            self.sim_phone.shell(f"simctl display off {self.powered_off}")
        return answer


async def test_a_run_goes_on_on_the_new_display_and_its_next_action_reads_afresh(tmp_path, sim_phone):
    from mika.assembly.assembly import bind_phone
    from tests.phone.test_runs import make_run, record

    cap, _ = _cap(sim_phone, power_check_s=0)
    before = _state(sim_phone)
    driver_steps = [
        step("phone_launch_app", app=SETTINGS),
        # A number from the powered-off display's listing: never tapped on the new one.
        step("phone_tap", pick="Network & internet"),
        step("phone_tap", pick="Network & internet"),  # from the fresh listing
        "Opened the network settings.",
    ]
    driver = PowerOffDriver(driver_steps, sim_phone, cap)
    run = make_run(tmp_path, cap, driver)
    bind_phone(run.capabilities, run.emit, run.spec)
    result = await run.run()
    assert result.status.value == "answered", result.answer
    old = driver.powered_off
    assert old is not None and old > 0
    new = cap.session.display
    assert new not in (0, old)
    events = record(run)
    notices = [e["text"] for e in events if e["type"] == "notice"]
    assert len(notices) == 1 and f"powered off the agent's display {old}" in notices[0]
    # The first tap after the re-creation did not act on a number read on the old display.
    stale_tap, tap = driver.results[1], driver.results[2]
    assert stale_tap.startswith("[stale_element]") and "Nothing was done" in stale_tap, stale_tap
    assert f"display {new} ·" in stale_tap  # the listing that came back is of the new display
    assert "Effect: " in tap, tap
    after = _state(sim_phone)
    assert after["foreground"]["0"] == before["foreground"]["0"]
    await cap.close()


async def test_another_runs_powered_off_display_leaves_this_runs_alone(sim_phone):
    """Two runs, two displays (issue 13 "Parallel runs"): only the one the phone powered
    off is made again; the other run's display, id and notices are untouched."""
    a, a_events = _cap(sim_phone, power_check_s=0)
    b, b_events = _cap(sim_phone, power_check_s=0)
    first_a = await a.session.ensure_display()
    first_b = await b.session.ensure_display()
    assert first_a != first_b
    sim_phone.shell(f"simctl display off {first_a}")
    assert await b.session.ensure_display() == first_b
    assert b.keeper is not None and b.keeper.recreated == 0 and _notices(b_events) == []
    second_a = await a.session.ensure_display()
    assert second_a not in (0, first_a, first_b) and len(_notices(a_events)) == 1
    assert await b.session.ensure_display() == first_b
    displays = _state(sim_phone)["displays"]
    assert displays[str(first_b)]["state"] == "ON" and displays[str(second_a)]["state"] == "ON"
    await a.close()
    await b.close()
