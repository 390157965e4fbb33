"""What a recorded route saves: three simulated tasks done by the model, then replayed.

    uv run python benchmarks/replay_routes.py [--rounds 3]

Tasks: `settings_dark_mode_on` (Settings › Display › Dark theme), `clock_alarm_weekdays_0730`
(one intent call) and `chat_reply_xiaoming` (微聊: open the chat, type CJK, send). Each round,
on a phone reset to the task's scenario:

- model-driven: the task's reference solution as the main model (a scripted model that
  picks elements off the listings it is sent), through the real TaskRun, phone capability
  and adb server to the simulated phone, `[run] replay` on; the outcome judge (a scripted
  light model saying "done") verifies it and aftercare records the route;
- replay: the phone is reset, the same goal runs with a main model that fails if called;
  a scripted light model answers the route match with the recorded route's id (the
  production path when a light model is set; without one, an exact goal match needs no
  call at all) and the route is replayed step by step.

Per task and way: main-model calls, light-model calls, wall time (median over the rounds;
pacing off, fast pace). Every run's end state is checked with the task's check.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._sim_bench import bench_phone
from mika.model.testing import FunctionModel, ScriptedModel
from mika.runtypes.result import OutcomeStatus
from mika.sim.tasks import get_task

TASKS = ("settings_dark_mode_on", "clock_alarm_weekdays_0730", "chat_reply_xiaoming")


def _never(request) -> str:
    raise SystemExit(f"the main model was called during a replay (purpose {request.purpose})")


async def _run(goal: str, model, light, serial: str, client, state: Path):
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.cap.phone import PhoneCapability
    from mika.cap.phone.adb.port import AdbPort
    from mika.run.task_run import RunOptions, TaskRun
    from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec

    spec = RunSpec(goal=goal, provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED), conversation_id="b")
    cap = PhoneCapability(AdbPort(serial, client, backend="dump"))
    caps = capabilities_for(spec, RunEnvironment(extra=[cap]))
    opts = RunOptions(pacing=False, state_dir=state, replay=True, judge_outcome=True)
    run = TaskRun(spec, model, caps, opts, light=light)
    t0 = time.perf_counter()
    result = await run.run()
    return result, time.perf_counter() - t0


def _one(task_id: str, serial: str, client, dev) -> dict:
    from mika.assembly.models import load_reference_script
    from mika.replay.store import RouteStore

    task = get_task(task_id)
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        script_file = state / "script.json"
        script_file.write_text(json.dumps(task.solution), encoding="utf-8")
        for c in task.prepare_commands():
            dev.shell(c)
        main = load_reference_script(script_file)
        judge = ScriptedModel(["done\nThe record shows it."])
        result, wall = asyncio.run(_run(task.goal, main, judge, serial, client, state))
        if result.status is not OutcomeStatus.ANSWERED or not task.succeeded(_state(dev)):
            raise SystemExit(f"{task_id}: the model-driven run did not do the task: {result.answer!r}")
        routes = RouteStore(state).list()
        if len(routes) != 1:
            raise SystemExit(f"{task_id}: no route was recorded")
        out["model"] = {"main": len(main.requests), "light": len(judge.requests), "wall": wall}

        for c in task.prepare_commands():
            dev.shell(c)
        never = FunctionModel(_never)
        light = ScriptedModel([json.dumps({"route": routes[0].id, "params": routes[0].params})])
        result, wall = asyncio.run(_run(task.goal, never, light, serial, client, state))
        if result.status is not OutcomeStatus.ANSWERED or not task.succeeded(_state(dev)):
            raise SystemExit(f"{task_id}: the replay did not do the task: {result.answer!r}")
        out["replay"] = {"main": len(never.requests), "light": len(light.requests), "wall": wall}
        out["steps"] = len(routes[0].steps)
    return out


def _state(dev) -> dict:
    return json.loads(dev.shell("simctl state"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("MIKA_RUN_PACE", "fast")
    results: dict[str, list[dict]] = {t: [] for t in TASKS}
    with bench_phone("default") as sim:
        client = sim.client
        dev = client.device(sim.serial)
        for _ in range(args.rounds):
            for task_id in TASKS:
                results[task_id].append(_one(task_id, sim.serial, client, dev))

    print(f"{args.rounds} round(s) per task; wall time is the median")
    print(f"{'task':<28} {'way':<13} {'steps':>5} {'main calls':>10} {'light calls':>11} {'wall s':>7}")
    for task_id, runs in results.items():
        for way in ("model", "replay"):
            label = "model-driven" if way == "model" else "replay"
            main_calls = runs[-1][way]["main"]
            light_calls = runs[-1][way]["light"]
            wall = statistics.median(r[way]["wall"] for r in runs)
            print(f"{task_id:<28} {label:<13} {runs[-1]['steps']:>5} {main_calls:>10} {light_calls:>11} {wall:>7.2f}")


if __name__ == "__main__":
    main()
