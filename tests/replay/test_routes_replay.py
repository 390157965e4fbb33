"""Issue 19's Done-when for routes, on the simulated phone through a real adb server:
record a route from a scripted run, reset the phone, replay the same goal with a model
that fails the test if called, and reach the same checked state; a changed screen makes
the replay hand over at the right step, and the model then gets the progress note."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

from mika.assembly import RunEnvironment, capabilities_for
from mika.assembly.models import load_reference_script
from mika.model.messages import ModelRequest
from mika.model.retry import RetryPolicy
from mika.model.testing import FunctionModel, ScriptedModel
from mika.replay.store import RouteStore
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.sim.tasks import get_task
from tests.phone.test_fenced_results import default_cap


def never_called(request: ModelRequest) -> str:
    raise AssertionError(f"the model was called during a replay (purpose {request.purpose})")


def judge_done() -> ScriptedModel:
    # The outcome judge's verdict: a route is recorded only from a run judged done.
    return ScriptedModel(["done\nThe record shows the change."])


def make(
    tmp_path: Path,
    sim_phone,
    model,
    goal: str,
    *,
    light=None,
    judge: bool = True,
    attendance: Attendance = Attendance.UNATTENDED,
    origin: RunOrigin = RunOrigin.CLI,
) -> TaskRun:
    spec = RunSpec(goal=goal, provenance=RunProvenance(origin, attendance), conversation_id="c-routes")
    caps = capabilities_for(spec, RunEnvironment(extra=[default_cap(sim_phone)]))
    opts = RunOptions(
        pacing=False,
        state_dir=tmp_path,
        retry=RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0),
        replay=True,
        judge_outcome=judge,
    )
    return TaskRun(spec, model, caps, opts, light=light)


def reference(tmp_path: Path, task_id: str):
    task = get_task(task_id)
    path = tmp_path / f"{task_id}.json"
    path.write_text(json.dumps(task.solution), encoding="utf-8")
    return task, load_reference_script(path)


def events_of(run: TaskRun) -> list[dict]:
    d = Path(run.result.record_dir)  # type: ignore[union-attr]
    return [json.loads(line) for line in (d / "events.jsonl").read_text().splitlines()]


def reset(sim_phone, task) -> None:
    for command in task.prepare_commands():
        sim_phone.shell(command)


async def record_dark_mode(tmp_path, sim_phone):
    task, script = reference(tmp_path, "settings_dark_mode_on")
    reset(sim_phone, task)
    run = make(tmp_path, sim_phone, script, task.goal, light=judge_done())
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert task.succeeded(sim_phone.device.world.state())
    recorded = [e for e in events_of(run) if e["type"] == "route_recorded"]
    assert len(recorded) == 1, [e for e in events_of(run) if e["type"] in ("outcome_judged", "route_step")]
    return task, RouteStore(tmp_path).get(recorded[0]["route_id"])


async def test_a_recorded_route_replays_the_task_with_no_model_call(tmp_path, sim_phone):
    task, route = await record_dark_mode(tmp_path, sim_phone)
    assert [s.tool for s in route.steps] == ["phone_launch_app", "phone_scroll", "phone_tap", "phone_tap"]
    assert route.steps[3].anchor["label"].startswith("Dark theme")
    assert all("element" not in s.args for s in route.steps)
    reset(sim_phone, task)
    assert not task.succeeded(sim_phone.device.world.state())

    run = make(tmp_path, sim_phone, FunctionModel(never_called), task.goal, judge=True)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert task.succeeded(sim_phone.device.world.state())
    events = events_of(run)
    replayed = [e for e in events if e["type"] == "route_replayed"]
    assert replayed and replayed[0]["done"] == 4 and replayed[0]["handed_over_at"] == 0
    calls = [e for e in events if e["type"] == "tool_call"]
    assert len(calls) == 4 and {c["origin"] for c in calls} == {"replay"}
    assert not [e for e in events if e["type"] in ("model_request", "outcome_judged")]
    assert result.answer == "Dark mode is on."  # the recorded answer
    assert RouteStore(tmp_path).get(route.id).uses == 1
    # A replayed run is never recorded as a route of its own.
    assert not [e for e in events if e["type"] == "route_recorded"]


async def test_a_changed_screen_hands_over_at_that_step_with_the_progress_note(tmp_path, sim_phone):
    task, route = await record_dark_mode(tmp_path, sim_phone)
    reset(sim_phone, task)
    # The Display page's switch is renamed: the route's last anchor is not on the screen.
    rename_on_screen(sim_phone, "com.android.settings", "Display", "Dark theme", "Night theme")
    seen: list[ModelRequest] = []

    def model(request: ModelRequest) -> str:
        seen.append(request)
        return "I stopped here."

    run = make(tmp_path, sim_phone, FunctionModel(model), task.goal, judge=False)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED
    replayed = next(e for e in events_of(run) if e["type"] == "route_replayed")
    assert replayed["done"] == 3 and replayed["handed_over_at"] == 4
    assert "Dark theme" in replayed["reason"] and "not on the screen" in replayed["reason"]
    opening = seen[0].messages[0].text
    assert "stopped at step 4 of 4" in opening and "Dark theme" in opening and route.id in opening
    assert not task.succeeded(sim_phone.device.world.state())


def rename_on_screen(sim_phone, package: str, screen: str, old: str, new: str) -> None:
    """A new version of the app: one label of one screen says something else (the
    world's copy only: the app files and other tests' phones keep theirs)."""
    world = sim_phone.device.world
    app = world.apps[package]
    screens = copy.deepcopy(app.screens)
    assert _rename(screens[screen].spec, old, new), f"no {old!r} on {package}'s {screen} screen"
    world.apps = {**world.apps, package: dataclasses.replace(app, screens=screens)}
    world.changed()


def _rename(value, old: str, new: str) -> int:
    """Rename a label everywhere in the sim's app definitions (in place)."""
    count = 0
    if isinstance(value, dict):
        for k, v in value.items():
            if v == old:
                value[k] = new
                count += 1
            else:
                count += _rename(v, old, new)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if v == old:
                value[i] = new
                count += 1
            else:
                count += _rename(v, old, new)
    return count
