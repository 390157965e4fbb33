"""The agent's display against the simulated phone, through a real adb server.

A helper that fails to start is made real on the phone: after Mika has read the phone as
Android 14, the sim's SDK property is set to 28, and the phone's scrcpy server (the
`simscrcpy` branch) refuses a new display as on Android 9 — or, on a sim without that
branch, `app_process` answers ClassNotFoundException. Either is a helper that fails.
"""

from __future__ import annotations

import hashlib

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.cap.phone.display.jar import DEVICE_PATH, SHA256, load_jar
from mika.cap.phone.display.server import DisplayServer, DisplayServerError, DisplaySpec, push_jar
from mika.record.events import DisplayChosen, Notice, RunStarted


def _cap(sim_phone, mode: str = "virtual") -> tuple[PhoneCapability, list]:
    port = AdbPort(
        sim_phone.serial,
        sim_phone.server.client(),
        backend="u2",
        reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=3.0),
    )
    cap = PhoneCapability(port, display_mode=mode)
    events: list = []
    cap.bind_run(events.append, "run-1", "conv-1")
    return cap, events


def _pushed(sim_phone) -> bytes | None:
    listing = sim_phone.run_adb("shell", f"ls {DEVICE_PATH}", check=False)
    if listing.returncode != 0:
        return None
    return sim_phone.adb.sync.read_bytes(DEVICE_PATH)


def test_the_verified_jar_is_pushed_byte_for_byte(sim_phone):
    push_jar(sim_phone.adb, load_jar())
    data = _pushed(sim_phone)
    assert data is not None and hashlib.sha256(data).hexdigest() == SHA256


def _refuses_new_displays(sim_phone) -> None:
    """Make the phone's server refuse: an Android 9 phone's scrcpy says "New virtual
    display is not supported before Android 10" and exits (a sim without the `simscrcpy`
    branch answers ClassNotFoundException instead: a helper that fails to start, too)."""
    sim_phone.device.world.props["ro.build.version.sdk"] = "28"


SERVER_REFUSED = ("New virtual display is not supported before Android 10", "ClassNotFoundException")


def test_a_server_that_cannot_start_is_a_clear_error_with_its_last_words(sim_phone):
    _refuses_new_displays(sim_phone)
    server = DisplayServer(sim_phone.adb, load_jar(), DisplaySpec(1080, 2400, 420))
    with pytest.raises(DisplayServerError) as err:
        server.start(timeout=10)
    assert "stopped" in str(err.value) and any(words in str(err.value) for words in SERVER_REFUSED)
    assert not server.alive


async def test_a_failed_helper_falls_back_to_display_0_with_one_notice_and_the_record_says_so(sim_phone):
    cap, events = _cap(sim_phone)
    await cap.port.info()  # read as Android 14: the keeper tries the helper…
    _refuses_new_displays(sim_phone)  # …which then refuses on the phone
    assert cap.display_plan == {"mode": "virtual", "id": -1}  # the run's first event: not made yet
    assert await cap.surface.is_locked("phone") is False  # the first phone call decides the display
    assert cap.session.display == 0 and cap.session.display_state.mode == "main"
    await cap.surface.before("phone", "phone_observe", {})
    await cap.surface.is_locked("phone")
    notices = [e for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and notices[0].level == "warning"
    assert "main screen (display 0)" in notices[0].text and "could not be started" in notices[0].text
    assert any(words in notices[0].text for words in SERVER_REFUSED)  # the server's own words
    chosen = [e for e in events if isinstance(e, DisplayChosen)]
    assert len(chosen) == 1 and (chosen[0].mode, chosen[0].display_id) == ("main", 0)
    assert "could not be started" in chosen[0].reason and chosen[0].to_dict()["type"] == "display"
    # The phone still works, on display 0.
    screen = await cap.session.reader.read()
    assert screen.display_id == 0 and screen.elements
    await cap.close()


async def test_android_9_works_on_the_main_screen_and_says_why(sim_phone):
    sim_phone.device.world.props["ro.build.version.sdk"] = "28"
    sim_phone.device.world.props["ro.build.version.release"] = "9"
    cap, events = _cap(sim_phone)
    await cap.session.ensure_display()
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and "Android 9 cannot give the agent a display of its own" in notices[0]
    assert cap.session.display_state.as_dict()["mode"] == "main"
    assert _pushed(sim_phone) is None  # nothing was pushed to a phone that cannot use it
    await cap.close()


async def test_a_read_only_run_never_makes_a_display(sim_phone):
    cap, events = _cap(sim_phone)
    cap.bind_run(events.append, "run-1", read_only=True)
    await cap.surface.is_locked("phone")
    await cap.session.reader.read()
    assert cap.keeper is not None and cap.keeper.state is None and cap.keeper.starts == 0
    assert events == [] and _pushed(sim_phone) is None
    assert cap.display_plan == {"mode": "main", "id": 0, "reason": "read-only run"}
    await cap.close()


async def test_main_mode_makes_no_display_and_says_nothing(sim_phone):
    cap, events = _cap(sim_phone, mode="main")
    await cap.surface.is_locked("phone")
    assert cap.keeper is None and events == [] and _pushed(sim_phone) is None
    assert cap.display_plan == {"mode": "main", "id": 0}
    await cap.close()


async def test_phone_results_carry_the_display(sim_phone):
    from mika.tool.declaration import ToolOutcome

    cap, _ = _cap(sim_phone)
    await cap.surface.is_locked("phone")
    out = await cap.surface.after("phone", "phone_observe", {}, None, ToolOutcome(text="ok"))
    # Whatever was decided (its own display with the `simscrcpy` sim, else display 0):
    # the result names the display the call went to.
    assert out.data["display"] == cap.session.display_state.as_dict()
    assert out.data["display"]["id"] == cap.session.display and out.data["display"]["mode"] in ("virtual", "main")
    await cap.close()


def test_run_started_carries_a_display_field():
    e = RunStarted(run_id="r", goal="g", origin="user", attendance="attended", display={"mode": "virtual", "id": -1})
    assert e.to_dict()["display"] == {"mode": "virtual", "id": -1}


def test_the_setting_is_validated():
    from mika.config.errors import ConfigError
    from mika.config.settings import parse_settings

    assert parse_settings({}).phone_display == "virtual"
    assert parse_settings({"phone": {"display": "main"}}).phone_display == "main"
    with pytest.raises(ConfigError, match=r"phone\.display"):
        parse_settings({"phone": {"display": "second"}})
    assert parse_settings({"phone": {"display": "main"}}).warnings == ()
