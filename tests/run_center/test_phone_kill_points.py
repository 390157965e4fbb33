"""The kill loop of test_kill_points.py on the simulated phone: `mika --no-ui --device
sim` opens an app through the test's real adb server, then answers. SIGKILL after every
recorded event (the phone step adds tools_opened, observation and sources events) and
inside every state write of the run; each outcome is told exactly once after restart.

The two loops take about a minute together (more on a loaded machine), so they are
`slow`; the default run keeps two phone points (after the phone step's result, after
the outcome) — the loops on general tools in test_kill_points.py run by default.
"""

from __future__ import annotations

import pytest

from tests.run_center.test_kill_points import KillPoint, Scenario, _every_point, _loop, _report, make_reference

PHONE = Scenario(
    device="sim", step=("phone_launch_app", {"app": "Settings"}), goal="open the settings", answer="Settings is open."
)


@pytest.fixture(scope="module")
def phone_reference(tmp_path_factory, adb_server):
    ref = make_reference(tmp_path_factory, PHONE)
    assert "observation" in ref.events  # the phone really was read
    return ref


def test_phone_run_killed_after_its_step_and_after_its_outcome(tmp_path, adb_server):
    told = _loop(
        tmp_path,
        [
            KillPoint("after the phone step's result", event="tool_result:1", restart="headless"),
            KillPoint("after the outcome", event="outcome:1"),
        ],
        PHONE,
    )
    assert told == {"after the phone step's result": "interrupted", "after the outcome": "answer"}


@pytest.mark.slow
def test_kill_at_every_event_boundary_of_a_phone_run(tmp_path, phone_reference):
    ref = phone_reference
    points = [p for p in _every_point(ref) if p.event and not p.recovery_kill]
    told = _loop(tmp_path, points, PHONE)
    after_outcome = ref.events.index("outcome") + 1
    assert [told[f"after event {n} ({ref.events[n - 1]})"] for n in range(1, len(ref.events) + 1)] == (
        ["interrupted"] * (after_outcome - 1) + ["answer"] * (len(ref.events) - after_outcome + 1)
    )
    _report(told)


@pytest.mark.slow
def test_kill_inside_every_state_write_of_a_phone_run(tmp_path, phone_reference):
    points = [p for p in _every_point(phone_reference) if p.replace_n and not p.recovery_kill]
    told = _loop(tmp_path, points, PHONE)
    assert len(told) == len(phone_reference.writes)
    assert {"nothing", "interrupted", "answer", "uncertain"} <= set(told.values()), told
    _report(told)
