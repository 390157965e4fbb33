"""Faults from the simulated phone: each run recovers or ends with a clear reason and a
complete record (run.json closed, every tool_call matched by a tool_result)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort, PortError
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.runtypes.result import OutcomeStatus
from mika.sim.faults import FaultSpec
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record, results_of


@pytest.fixture(params=["auto", "dump"], ids=["default", "dump"])
def backend(request) -> str:
    """Every fault is tried on the default path (uiautomator2's JSON-RPC, as runs read the
    screen) and on plain `uiautomator dump`."""
    return request.param


def port_for(phone, backend: str = "auto", total: float = 3.0, **kw) -> AdbPort:
    return AdbPort(
        phone.serial,
        phone.server.client(),
        backend=backend,
        reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=total),
        **kw,
    )


def cap_for(phone, backend: str = "auto", total: float = 3.0) -> PhoneCapability:
    return PhoneCapability(port_for(phone, backend, total))


VIA = {"auto": "uiautomator2", "dump": "uiautomator dump"}


def assert_faulted_on_path(cap: PhoneCapability, phone, backend: str, fault: str) -> None:
    """The fault hit the path under test (not a fallback that dodged it)."""
    assert cap.port.last_dump_via == VIA[backend]
    assert phone.device.world.pending[fault] == 0, f"{fault} was never consumed"


def assert_complete(run) -> list[dict]:
    events = record(run)
    summary = json.loads((Path(run.result.record_dir) / "run.json").read_text())
    assert summary["state"] == "ended"
    calls = [e["call_id"] for e in events if e["type"] == "tool_call"]
    done = [e["call_id"] for e in events if e["type"] == "tool_result"]
    assert sorted(calls) == sorted(done), "every step recorded whole"
    assert events[-1]["type"] in ("outcome", "phase")
    return events


def simctl(phone, spec: str) -> None:
    phone.shell(f"simctl fault {spec}")


class TestFaults:
    @pytest.mark.parametrize("fault", [FaultSpec(null_root=2), FaultSpec(idle_timeout=2)], ids=["null_root", "idle"])
    async def test_busy_dumps_are_retried(self, tmp_path, sim_phone_factory, fault, backend):
        phone = sim_phone_factory(faults=fault)
        driver = ListingDriver([step("phone_observe"), "ok"])
        cap = cap_for(phone, backend)
        run = make_run(tmp_path, cap, driver)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        assert "Screen v1" in driver.results[0]
        assert_complete(run)
        assert_faulted_on_path(cap, phone, backend, "null_root" if fault.null_root else "idle_timeout")

    async def test_garbage_xml_is_read_again(self, tmp_path, sim_phone_factory, backend):
        phone = sim_phone_factory(faults=FaultSpec(bad_xml=1))
        driver = ListingDriver([step("phone_observe"), "ok"])
        cap = cap_for(phone, backend)
        run = make_run(tmp_path, cap, driver)
        await run.run()
        assert driver.results[0].startswith("Screen v1 · com.android.launcher3")
        assert_complete(run)
        assert_faulted_on_path(cap, phone, backend, "bad_xml")

    async def test_garbage_xml_every_time_is_a_clear_tool_error(self, tmp_path, sim_phone_factory, backend):
        phone = sim_phone_factory(faults=FaultSpec(bad_xml=50))
        driver = ListingDriver([step("phone_observe"), "gave up"])
        cap = cap_for(phone, backend)
        run = make_run(tmp_path, cap, driver)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        assert "could not be read after 3 tries" in driver.results[0]
        obs = results_of(assert_complete(run), "phone_observe")[0]
        assert obs["code"] == "screen_unreadable" and not obs["ok"]
        assert cap.port.last_dump_via == VIA[backend]
        assert phone.device.world.pending["bad_xml"] == 47  # three reads, each on the path under test

    async def test_a_corrupted_screenshot_is_taken_again(self, tmp_path, sim_phone_factory, backend):
        phone = sim_phone_factory(faults=FaultSpec(bad_png=1))
        driver = ListingDriver([step("phone_screenshot"), "ok"])
        run = make_run(tmp_path, cap_for(phone, backend), driver)
        await run.run()
        assert "Screenshot of the phone's screen attached" in driver.results[0]
        events = assert_complete(run)
        assert results_of(events, "phone_screenshot")[0]["frame"]

    async def test_corrupted_screenshots_every_time_say_why(self, tmp_path, sim_phone_factory, backend):
        phone = sim_phone_factory(faults=FaultSpec(bad_png=10))
        driver = ListingDriver([step("phone_screenshot"), "ok"])
        run = make_run(tmp_path, cap_for(phone, backend), driver)
        await run.run()
        shot = results_of(assert_complete(run), "phone_screenshot")[0]
        assert shot["code"] == "screenshot_failed" and "screenshot" in shot["text"].lower()

    async def test_slow_dumps_still_complete(self, tmp_path, sim_phone_factory, backend):
        phone = sim_phone_factory(faults=FaultSpec(slow_ms=150))
        driver = ListingDriver([step("phone_launch_app", app="Clock"), "ok"])
        run = make_run(tmp_path, cap_for(phone, backend), driver)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        assert "Opened Clock" in driver.results[0]
        assert_complete(run)

    async def test_a_surprise_dialog_stops_a_batch(self, tmp_path, sim_phone, backend):
        driver = ListingDriver(
            [
                step("phone_launch_app", app="Clock"),
                step(
                    "do_steps",
                    steps=[
                        {
                            "tool": "phone_tap",
                            "args": {"x": 5, "y": 1200},
                            "wait": {"expect": "Timer started", "timeout_s": 10},
                        },
                        {"tool": "phone_back", "args": {}},
                        {"tool": "phone_back", "args": {}},
                    ],
                ),
                "A dialog came up; stopping.",
            ]
        )
        run = make_run(tmp_path, cap_for(sim_phone, backend), driver)

        def on_event(e):
            if e.type == "tool_result" and e.name == "phone_tap":
                # While the batch's first step waits, a dialog pops up over the app.
                threading.Timer(0.3, lambda: sim_phone.shell("simctl fault dialog=rate")).start()

        run.subscribe(on_event)
        await run.run()
        batch = driver.results[1]
        assert "stopped=dialog" in batch and "Stopped after step 1" in batch, batch
        assert "Steps 2, 3 were not done" in batch
        events = assert_complete(run)
        steps = [e for e in events if e["type"] == "tool_call" and e["name"] != "do_steps"]
        assert [(e["name"], e["origin"]) for e in steps[-1:]] == [("phone_tap", "batch")]

    async def test_a_dropped_connection_reconnects_and_goes_on(self, tmp_path, sim_phone, backend):
        cap = cap_for(sim_phone, backend, total=10.0)
        driver = ListingDriver([step("phone_observe"), step("phone_launch_app", app="Clock"), "ok"])
        run = make_run(tmp_path, cap, driver)
        orig = driver.reply

        def reply(request):
            if (
                len(driver.results) == 0
                and request.messages
                and any(getattr(p, "name", "") == "phone_observe" for p in request.messages[-1].parts)
            ):
                sim_phone.running.drop_connections()
            return orig(request)

        driver.model.fn = reply
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED, driver.results
        assert "Opened Clock" in driver.results[1]
        assert_complete(run)

    async def test_a_drop_during_an_action_is_said_in_its_result(self, tmp_path, sim_phone, backend):
        cap = cap_for(sim_phone, backend, total=10.0)
        driver = ListingDriver([step("phone_observe"), step("phone_scroll", direction="down"), "ok"])
        run = make_run(tmp_path, cap, driver)

        def on_event(e):
            if e.type == "tool_call" and e.name == "phone_scroll":
                sim_phone.shell("simctl fault drop_after=1")  # the call's next command drops the link

        run.subscribe(on_event)
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED, driver.results
        scrolled = driver.results[1]
        assert "connection dropped and came back" in scrolled or scrolled.startswith("[device_reconnected]"), scrolled
        assert_complete(run)

    async def test_a_phone_that_does_not_come_back_ends_the_run(self, tmp_path, sim_phone_factory, backend):
        phone = sim_phone_factory()
        cap = cap_for(phone, backend, total=1.0)
        driver = ListingDriver([step("phone_observe"), step("phone_launch_app", app="Clock"), "unreachable"])
        run = make_run(tmp_path, cap, driver)
        orig = driver.reply

        def reply(request):
            if len(driver.results) == 0 and len(driver.model.requests) == 2:
                phone.running.close()  # the phone is gone for good
            return orig(request)

        driver.model.fn = reply
        result = await run.run()
        assert result.status is OutcomeStatus.DEVICE_UNAVAILABLE
        assert "did not come back" in result.answer or "stopped answering" in result.answer
        assert_complete(run)


async def test_an_action_cut_by_a_drop_is_not_repeated_blindly(sim_phone, backend):
    port = port_for(sim_phone, backend, total=10.0)
    await port.info()
    sim_phone.shell("simctl fault drop_after=1")  # the next command's OPEN drops the connection
    from mika.cap.phone.adb.port import DeviceReconnected

    with pytest.raises(DeviceReconnected, match="may or may not have happened"):
        await port.tap(0, 540, 1200)
    # Reads go on as usual once it is back.
    assert "hierarchy" in await port.dump_hierarchy(0)


@pytest.mark.parametrize("fault", ["null_root", "idle_timeout"])
async def test_a_dump_that_stays_busy_is_reported_not_hung(sim_phone_factory, backend, fault):
    phone = sim_phone_factory(faults=FaultSpec(**{fault: 20}))
    port = port_for(phone, backend, sleep=lambda s: None)
    from mika.cap.phone.adb.port import DumpFailed

    with pytest.raises(DumpFailed, match="could not dump its screen after 4 tries"):
        await port.dump_hierarchy(0)


# --- faults only the uiautomator2 path has: its server failing, actions through it ---------------


async def _started(phone, backend: str = "auto") -> AdbPort:
    """A port whose uiautomator2 server is up (faults set after this hit real calls)."""
    port = port_for(phone, backend, sleep=lambda s: None)
    assert "<node" in await port.dump_hierarchy(0)
    assert port.last_dump_via == "uiautomator2"
    return port


@pytest.mark.parametrize("fault", ["rpc_error", "http_500"])
async def test_one_u2_server_failure_is_mended_by_its_restart(sim_phone, fault):
    port = await _started(sim_phone)
    simctl(sim_phone, f"{fault}=1")
    assert "<node" in await port.dump_hierarchy(0)
    # uiautomator2's client restarted its server and asked again: still the u2 path.
    assert port.last_dump_via == "uiautomator2"
    assert sim_phone.device.world.pending[fault] == 0
    await port.close()


@pytest.mark.parametrize("fault", ["rpc_error", "http_500"])
async def test_a_u2_server_that_keeps_failing_falls_back_to_uiautomator_dump(sim_phone, fault):
    port = await _started(sim_phone)
    simctl(sim_phone, f"{fault}=2")  # the call and the client's one retry after its restart
    assert "<node" in await port.dump_hierarchy(0)
    assert port.last_dump_via == "uiautomator dump"
    assert sim_phone.device.world.pending[fault] == 0
    # The next read tries uiautomator2 again (one bad spell does not retire it).
    assert "<node" in await port.dump_hierarchy(0)
    assert port.last_dump_via == "uiautomator2"
    await port.close()


@pytest.mark.parametrize(("fault", "said"), [("rpc_error", "UiAutomation not connected"), ("http_500", "500")])
async def test_backend_u2_says_which_failure_it_met(sim_phone, fault, said):
    port = await _started(sim_phone, backend="u2")
    simctl(sim_phone, f"{fault}=2")
    with pytest.raises(PortError, match="uiautomator2 could not read the screen") as caught:
        await port.dump_hierarchy(0)
    assert said in str(caught.value) and "Traceback" not in str(caught.value)
    await port.close()


async def _focus_a_note_field(phone, port: AdbPort) -> PhoneCapability:
    cap = PhoneCapability(port)
    await port.launch_app(0, "com.mika.notes")
    screen = await cap.reader.read()
    new = next(e for e in screen.elements if e.role == "button" and ("New" in e.label or "新" in e.label))
    await port.tap(0, *new.centre)
    screen = await cap.reader.read()
    field = next(e for e in screen.elements if e.node.editable)
    await port.tap(0, *field.centre)
    return cap


async def test_typing_through_u2_outlasts_a_busy_moment(sim_phone):
    port = await _started(sim_phone)
    cap = await _focus_a_note_field(sim_phone, port)
    simctl(sim_phone, "idle_timeout=2")  # the field lookup times out twice waiting for idle
    assert await port.type_text(0, "你好") == "set_text"
    assert sim_phone.device.world.pending["idle_timeout"] == 0
    screen = await cap.reader.read()
    assert next(e for e in screen.elements if e.node.editable and e.node.focused).node.text == "你好"
    await cap.close()


async def test_typing_through_a_u2_that_stays_busy_is_a_clear_error(sim_phone):
    port = await _started(sim_phone)
    cap = await _focus_a_note_field(sim_phone, port)
    simctl(sim_phone, "idle_timeout=50")
    with pytest.raises(PortError) as caught:
        await port.type_text(0, "你好")
    message = str(caught.value)
    assert "uiautomator2 could not find the focused field on the phone after 3 tries" in message
    assert "TimeoutException" in message and "phone_observe" in message
    assert sim_phone.device.world.pending["idle_timeout"] == 47
    await cap.close()


async def test_typing_through_a_dead_u2_server_is_a_clear_error(sim_phone):
    port = await _started(sim_phone)
    simctl(sim_phone, "rpc_error=50")
    with pytest.raises(PortError, match=r"uiautomator2 could not find the focused field .*UiAutomation not connected"):
        await port.type_text(0, "你好")
    await port.close()


async def test_clear_text_through_a_failing_u2_is_a_clear_error(sim_phone):
    port = await _started(sim_phone)
    simctl(sim_phone, "rpc_error=50")
    with pytest.raises(PortError, match="uiautomator2 could not clear the field"):
        await port.clear_text(0)
    await port.close()
