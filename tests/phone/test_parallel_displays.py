"""Two conversations at once on one phone, each run on a display of its own (issue 13).

The real assembly builds both runs (its TaskCenter, two in parallel), the phone is the
simulated one behind a real adb server, and each run's model is a test model that opens
one app and then holds its turn until the test has looked at the phone, so both runs are
live, on their displays, at the same moment.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mika.assembly import Assembly, SelectedModels
from mika.assembly.device import ChosenPhone, DeviceChoice
from mika.config.settings import Settings
from mika.model.messages import ModelRequest
from mika.model.testing import FunctionModel, Reply
from mika.run.outbox import Outbox
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance

CLI = RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED)
APPS = {"settings": "com.android.settings", "clock": "com.google.android.deskclock"}


def _state(sim_phone) -> dict:
    return json.loads(sim_phone.shell("simctl state"))


async def test_two_conversations_run_at_once_each_on_its_own_display(tmp_path: Path, sim_phone) -> None:
    before = _state(sim_phone)["foreground"]["0"]
    launched: set[str] = set()
    both_open = asyncio.Event()
    looked = asyncio.Event()

    async def reply(request: ModelRequest) -> Reply:
        goal = request.messages[0].text.lower()
        which = next(k for k in APPS if k in goal)
        if not any(m.tool_results for m in request.messages):
            return Reply(tool_calls=(("phone_launch_app", {"app": APPS[which]}),))
        launched.add(which)
        if len(launched) == len(APPS):
            both_open.set()
        await looked.wait()  # both runs hold their displays until the test has looked
        return Reply(text=f"{which} is open.")

    models = SelectedModels(FunctionModel(reply), None, None, lambda: None, scripted=True)
    device = DeviceChoice(tmp_path)
    device.use(ChosenPhone(sim_phone.serial, "simulated phone", "sim", is_sim=True))
    asm = Assembly(Settings(language="en", max_parallel=2), tmp_path, models, device)
    center = asm.task_center(outbox=Outbox(tmp_path, []))
    try:
        runs = [center.submit(f"c-{k}", f"open {k}", provenance=CLI) for k in APPS]
        await asyncio.wait_for(both_open.wait(), 60)
        now = _state(sim_phone)["foreground"]
        agents = {d: fg for d, fg in now.items() if d != "0"}
        assert now["0"] == before, "the user's screen was left alone"
        assert len(agents) == 2, now
        assert sorted(fg.split("/")[0] for fg in agents.values()) == sorted(APPS.values())
        looked.set()
        results = [await asyncio.wait_for(center.wait_run(r.run_id), 60) for r in runs]
    finally:
        looked.set()
        await center.aclose()
    assert [r.answer for r in results] == [f"{k} is open." for k in APPS]
    assert all(d == "0" for d in _state(sim_phone)["foreground"]), "each display went with its run"


async def test_an_app_one_run_is_driving_is_refused_to_another_until_that_run_ends(tmp_path: Path, sim_phone) -> None:
    first_has_it = asyncio.Event()
    second_was_told = asyncio.Event()
    seen: dict[str, list[str]] = {"first": [], "second": []}

    async def reply(request: ModelRequest) -> Reply:
        who = "first" if "first" in request.messages[0].text else "second"
        results = [r.text for m in request.messages for r in m.tool_results]
        seen[who] = results
        if not results:
            if who == "second":
                await first_has_it.wait()  # ask only once the first run holds Settings
            return Reply(tool_calls=(("phone_launch_app", {"app": APPS["settings"]}),))
        if who == "first":
            first_has_it.set()
            await second_was_told.wait()  # hold Settings while the second run asks for it
        else:
            second_was_told.set()
        return Reply(text=f"{who} done.")

    models = SelectedModels(FunctionModel(reply), None, None, lambda: None, scripted=True)
    device = DeviceChoice(tmp_path)
    device.use(ChosenPhone(sim_phone.serial, "simulated phone", "sim", is_sim=True))
    asm = Assembly(Settings(language="en", max_parallel=2), tmp_path, models, device)
    center = asm.task_center(outbox=Outbox(tmp_path, []))
    try:
        first = center.submit("c-1", "first: open settings", provenance=CLI)
        second = center.submit("c-2", "second: open settings", provenance=CLI)
        results = [await asyncio.wait_for(center.wait_run(r.run_id), 60) for r in (first, second)]
    finally:
        second_was_told.set()
        await center.aclose()
    assert [r.answer for r in results] == ["first done.", "second done."]
    assert seen["first"][0].startswith("Opened"), seen["first"]
    told = seen["second"][0]
    assert told.startswith("[app_busy]") and first.run_id in told and "Nothing was opened" in told, told
    assert not center.resources.app_holder(APPS["settings"]), "the app is free once the runs ended"
