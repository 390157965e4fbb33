"""The agent's own display made for real on the simulated phone: started, used, made
again when its server dies, removed at the end.

DEPENDS ON the `simscrcpy` branch (the sim's scrcpy-server 3.3.4: `app_process …
Server 3.3.4`, the localabstract sockets, H.264, control messages on its display) and,
for the Android 9/12 scenario tests, the `simdisplays` branch. On a sim without them the
helper cannot start (or the scenario is unknown) and these tests fail — by design; they
are not skipped. Checked against a copy of this tree with both branches' sim changes
applied: all pass.
"""

from __future__ import annotations

import json

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.record.events import DisplayChosen, Notice
from mika.uistate import build_screen, parse_hierarchy

SETTINGS = "com.android.settings"


def _cap(sim_phone) -> tuple[PhoneCapability, list]:
    port = AdbPort(
        sim_phone.serial,
        sim_phone.server.client(),
        backend="u2",
        reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=3.0),
    )
    cap = PhoneCapability(port, display_mode="virtual")
    events: list = []
    cap.bind_run(events.append, "run-1", "conv-1")
    return cap, events


def _foreground(sim_phone) -> dict:
    return json.loads(sim_phone.shell("simctl state"))["foreground"]


async def test_the_first_phone_call_makes_a_display_the_size_of_the_main_screen(sim_phone):
    before = _foreground(sim_phone)
    cap, events = _cap(sim_phone)
    n = await cap.session.ensure_display()
    state = cap.session.display_state
    assert state.mode == "virtual" and n == state.id and n != 0
    assert [(e.mode, e.display_id) for e in events if isinstance(e, DisplayChosen)] == [("virtual", n)]
    assert not [e for e in events if isinstance(e, Notice)]  # Android 14: nothing to warn about
    size = sim_phone.shell("wm size").split(":")[-1].strip()
    assert cap.keeper is not None and cap.keeper.server is not None
    assert "x".join(map(str, cap.keeper.server.size)) == size
    # The app starts there (START_APP on the control socket); display 0 is untouched.
    result = await cap.port.launch_app(n, SETTINGS)
    assert result.exit_code == 0
    screen = await cap.session.reader.read()
    assert screen.display_id == n and screen.foreground_package == SETTINGS
    now = _foreground(sim_phone)
    assert now["0"] == before["0"] and now[str(n)].startswith(SETTINGS + "/")
    await cap.close()
    assert str(n) not in _foreground(sim_phone)  # the display is removed with its server


async def test_the_video_stream_is_handed_over_with_its_header(sim_phone):
    cap, _ = _cap(sim_phone)
    await cap.session.ensure_display()
    assert cap.keeper is not None
    got = cap.keeper.video_stream()
    assert got is not None
    header, packets = got
    assert header.codec == "h264" and (header.width, header.height) == cap.keeper.server.size
    first = next(packets)
    assert first.config and first.data.startswith(b"\x00\x00\x00\x01")  # SPS/PPS first
    await cap.close()


async def test_a_server_that_dies_is_started_again_on_a_new_display_with_a_notice(sim_phone):
    cap, events = _cap(sim_phone)
    first = await cap.session.ensure_display()
    pids = [ln.split()[1] for ln in sim_phone.shell("ps -A").splitlines() if ln.endswith(" app_process")]
    assert pids, "the display's server is not running"
    for pid in pids:
        sim_phone.shell(f"kill {pid}")
    assert cap.keeper is not None and cap.keeper.server is not None
    assert cap.keeper.server.wait_ended(10)
    second = await cap.session.ensure_display()
    assert second != first and second != 0 and cap.session.reader.display == second
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and f"display {first} went away" in notices[0]
    assert [e.display_id for e in events if isinstance(e, DisplayChosen)] == [first, second]
    await cap.close()


async def test_android_12_is_told_the_main_screens_focus_may_blink(sim_phone):
    sim_phone.device.world.props["ro.build.version.sdk"] = "31"
    sim_phone.device.world.props["ro.build.version.release"] = "12"
    cap, events = _cap(sim_phone)
    n = await cap.session.ensure_display()
    assert n != 0 and cap.session.display_state.mode == "virtual"
    notices = [e for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and "focus of your main screen may blink" in notices[0].text
    await cap.session.ensure_display()
    assert len([e for e in events if isinstance(e, Notice)]) == 1  # said once per run
    await cap.close()


async def test_taps_and_keys_go_to_the_agents_display(sim_phone):
    cap, _ = _cap(sim_phone)
    n = await cap.session.ensure_display()
    await cap.port.launch_app(n, SETTINGS)
    screen = await cap.session.reader.read()
    target = next(e for e in screen.elements if e.label and e.node.clickable and e.package == SETTINGS)
    before0 = _foreground(sim_phone)["0"]
    await cap.port.tap(n, *target.centre)
    after = await cap.session.reader.read()
    assert after.version != screen.version  # the tap changed the agent's display
    await cap.port.key(n, "BACK")
    back = await cap.session.reader.read()
    assert back.version != after.version
    assert _foreground(sim_phone)["0"] == before0
    await cap.close()


async def test_text_goes_into_the_field_on_the_agents_display_only(sim_phone):
    cap, _ = _cap(sim_phone)
    n = await cap.session.ensure_display()
    await cap.port.launch_app(n, SETTINGS)
    screen = await cap.session.reader.read()
    field = next(e for e in screen.elements if e.node.editable)
    await cap.port.tap(n, *field.centre)
    await cap.session.reader.read()
    method = await cap.port.type_text(n, "wifi 无线")
    assert method == "set_text"  # the focused field is display N's: set-text, no clipboard
    typed = await cap.session.reader.read()
    assert any("wifi 无线" in (node.text or "") for node in typed.tree.nodes())
    main = build_screen(parse_hierarchy(await cap.port.dump_hierarchy(0)), display_id=0)
    assert main.tree.windows and not any("wifi 无线" in (node.text or "") for node in main.tree.nodes())
    await cap.close()


async def test_two_runs_get_two_displays_on_one_phone(sim_phone):
    (a, _), (b, _) = _cap(sim_phone), _cap(sim_phone)
    na, nb = await a.session.ensure_display(), await b.session.ensure_display()
    assert 0 not in (na, nb) and na != nb
    await a.port.launch_app(na, SETTINGS)
    await b.port.launch_app(nb, "com.google.android.deskclock")
    fg = _foreground(sim_phone)
    assert fg[str(na)].startswith(SETTINGS + "/") and fg[str(nb)].startswith("com.google.android.deskclock/")
    await a.close()
    assert str(na) not in _foreground(sim_phone) and str(nb) in _foreground(sim_phone)
    await b.close()


# The older phones as the `simdisplays` branch's scenarios play them (build props,
# `input -d` refused on 9, dumps without display-id before API 30).


async def test_the_android_9_scenario_runs_on_the_main_screen_with_one_notice(sim_phone_factory):
    phone = sim_phone_factory(scenario="android9")
    cap, events = _cap(phone)
    assert await cap.session.ensure_display() == 0
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and "Android 9 cannot give the agent a display of its own" in notices[0]
    assert [(e.mode, e.display_id) for e in events if isinstance(e, DisplayChosen)] == [("main", 0)]
    screen = await cap.session.reader.read()
    assert screen.display_id == 0 and screen.elements
    await cap.close()


async def test_the_android_12_scenario_gets_its_display_and_the_blink_notice(sim_phone_factory):
    phone = sim_phone_factory(scenario="android12")
    before = _foreground(phone)
    cap, events = _cap(phone)
    n = await cap.session.ensure_display()
    assert n != 0 and cap.session.display_state.mode == "virtual"
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and "Android 12" in notices[0] and "may blink" in notices[0]
    await cap.port.launch_app(n, SETTINGS)
    screen = await cap.session.reader.read()
    assert screen.display_id == n and screen.foreground_package == SETTINGS
    assert _foreground(phone)["0"] == before["0"]
    await cap.close()
