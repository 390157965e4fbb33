"""What knowing an app saves: one question on the simulated Market, asked along two routes.

    uv run python benchmarks/knowledge_routes.py [--rounds 3]

The main task is `market_price_aurora_lamp` ("What does the Market app charge for the Aurora
Desk Lamp?", scenario `market`). Its search sits behind an icon with no text and no
description; the visible route is a long browse. Each route is a scripted model
(mika.model.testing.FunctionModel) that reads the listings the run gives it, going through
the real TaskRun, the real phone capability and a real adb server to the simulated phone:

- informed: what knowledge/apps/com.mika.market/APP.md says: tap the middle unnamed
  top-bar button, type the name with submit, wait out "Searching…", read the price;
- uninformed: Home & Living → Lighting (the best guess, no wrong turns), then
  `phone_scroll` one page at a time until the lamp shows;
- uninformed + find: the same browse, with one `phone_scroll` `find` first (it stops at the
  look-alike "Aurora Desk Lamp Mini", so the model scrolls on from there).

Per route: tool steps, model requests, estimated input tokens summed over the requests
(mika.agent.compressor.estimate_request, what the compressor itself counts), and wall time
(median over the rounds; pacing off). Every run's answer is checked with the task's check.
The informed runs have the shipped knowledge and skills loaded, as a real run does: the
Market's block arrives once after the first Market screen and stays in the stable
context, and the lookup tools and the skill index are in every request — all of that is
in their token sums. The uninformed runs have no knowledge at all (no block, no lookup
tools, no index). The uninformed route here never tries the three unnamed icons or a wrong
category, so the gap is a lower bound.

A second table does the same for `market_order_status_pillow`: the deep link
`mikamarket://history` (informed) against Profile photo → My account → Orders.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._sim_bench import bench_phone
from mika.agent.compressor import estimate_request
from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply
from mika.runtypes.result import OutcomeStatus
from mika.sim.tasks import get_task
from tests.phone.driver import current_listing, elements_in, number_for

TASK = "market_price_aurora_lamp"
PRODUCT = "Aurora Desk Lamp"

Step = Callable[[str], "Reply | str"]


def _price(listing: str) -> str | None:
    for _n, _role, label, _ in elements_in(listing):
        if isinstance(label, str) and label.startswith(PRODUCT + " · "):
            return label.split(" · ", 1)[1]
    return None


def informed() -> list[Step]:
    return [
        lambda _: Reply.call("phone_launch_app", app="Market"),
        lambda listing: Reply.call(
            "phone_tap",
            element=[n for n, role, lab, _ in elements_in(listing) if role == "button" and lab.startswith("@")][1],
        ),
        lambda _: Reply.call("phone_type_text", text=PRODUCT, submit=True),
        lambda _: Reply.call("phone_wait", expect_gone="Searching…"),
        lambda listing: f"The Market charges {_price(listing)} for the {PRODUCT}.",
    ]


def _browse() -> list[Step]:
    return [
        lambda _: Reply.call("phone_launch_app", app="Market"),
        lambda listing: Reply.call("phone_tap", element=number_for(listing, "Home & Living")),
        lambda listing: Reply.call("phone_tap", element=number_for(listing, "Lighting")),
    ]


def _then_scroll_to_it(steps: list[Step]) -> list[Step]:
    def scroll_or_answer(listing: str) -> Reply | str:
        price = _price(listing)
        if price:
            return f"It costs {price}."
        steps.append(scroll_or_answer)
        return Reply.call("phone_scroll", direction="down")

    steps.append(scroll_or_answer)
    return steps


def uninformed() -> list[Step]:
    return _then_scroll_to_it(_browse())


def uninformed_find() -> list[Step]:
    # `find` matches text by containment: it stops at the look-alike "Aurora Desk Lamp Mini"
    # higher up the shelf, so the model scrolls on by hand from there.
    steps = [*_browse(), lambda _: Reply.call("phone_scroll", direction="down", find=PRODUCT, max_scrolls=10)]
    return _then_scroll_to_it(steps)


def _status(listing: str) -> str:
    # An order's texts share one line ("Linen Throw Pillow · Out for delivery · date · total").
    rows = elements_in(listing)
    label = next(str(lab) for _, _, lab, _ in rows if str(lab).startswith("Linen Throw Pillow · "))
    return f"It is {label.split(' · ')[1].lower()}."


def orders_informed() -> list[Step]:
    return [lambda _: Reply.call("phone_open_link", url="mikamarket://history", app="com.mika.market"), _status]


def orders_uninformed() -> list[Step]:
    # the best case without knowledge: the right three taps, no look in the inbox first
    return [
        lambda _: Reply.call("phone_launch_app", app="Market"),
        lambda listing: Reply.call("phone_tap", element=number_for(listing, "Profile photo")),
        lambda listing: Reply.call("phone_tap", element=number_for(listing, "My account")),
        lambda listing: Reply.call("phone_tap", element=number_for(listing, "Orders")),
        _status,
    ]


TASKS = {
    TASK: {"informed": informed, "uninformed": uninformed, "uninformed + find": uninformed_find},
    "market_order_status_pillow": {"informed": orders_informed, "uninformed": orders_uninformed},
}


class _Driver:
    def __init__(self, model: FunctionModel) -> None:
        self.model = model


def _scripted(steps: list[Step]) -> FunctionModel:
    def reply(request) -> Reply | str:
        # Every tool result of the run so far: knowledge read at a step (an app's notes
        # once the run is in it) comes as a message after the tool's result, so the last
        # message alone may hold none.
        seen = [p.text for m in request.messages for p in m.parts if isinstance(p, ToolResult)]
        listing = current_listing(seen)
        return steps.pop(0)(listing)

    return FunctionModel(reply)


async def _one(task_id: str, route: str, serial: str, client, tmp: Path) -> dict:
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.cap.phone import PhoneCapability
    from mika.cap.phone.adb.port import AdbPort
    from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
    from mika.run.task_run import RunOptions, TaskRun
    from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec

    task = get_task(task_id)
    model = _scripted(TASKS[task_id][route]())
    informed = route == "informed"
    knowledge = KnowledgeCatalog.load() if informed else None
    skills = SkillCatalog.load() if informed else None
    spec = RunSpec(goal=task.goal, provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED), conversation_id="b")
    cap = PhoneCapability(AdbPort(serial, client, backend="dump"))
    caps = capabilities_for(spec, RunEnvironment(extra=[cap], knowledge=knowledge, skills=skills))
    run = TaskRun(spec, model, caps, RunOptions(pacing=False, state_dir=tmp, knowledge=knowledge, skills=skills))
    t0 = time.perf_counter()
    result = await run.run()
    wall = time.perf_counter() - t0
    if result.status is not OutcomeStatus.ANSWERED or not task.succeeded(_state(client, serial), result.answer):
        raise SystemExit(f"route {route!r} did not answer the task: {result.status} {result.answer!r}")
    given = sum("knowledge/apps/com.mika.market" in r.messages[-1].text for r in model.requests[1:2])
    if informed and not given:
        raise SystemExit("the informed run never got the Market's knowledge")
    tokens = [estimate_request(r) for r in model.requests]
    steps = sum(len(m.tool_calls) for r in model.requests[-1:] for m in r.messages if m.role == "assistant")
    return {"steps": steps, "requests": len(model.requests), "tokens": tokens, "wall": wall}


def _state(client, serial: str) -> dict:
    import json

    return json.loads(client.device(serial).shell("simctl state"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    results = {t: {r: [] for r in routes} for t, routes in TASKS.items()}
    with bench_phone("market") as sim:
        client = sim.client
        dev = client.device(sim.serial)
        for _ in range(args.rounds):
            for task_id, routes in TASKS.items():
                for route in routes:
                    dev.shell("simctl reset market")
                    with tempfile.TemporaryDirectory() as tmp:
                        run = asyncio.run(_one(task_id, route, sim.serial, client, Path(tmp)))
                        results[task_id][route].append(run)

    print(f"{args.rounds} round(s) per route; informed = shipped knowledge and skills loaded")
    for task_id, routes in results.items():
        print(f"\ntask {task_id}")
        head = f"{'route':<20} {'knowledge':>9} {'steps':>5} {'requests':>8} {'est. input tokens':>18} {'wall s (median)':>16}"
        print(head)
        print("-" * len(head))
        for route, runs in routes.items():
            first = runs[0]
            wall = statistics.median(r["wall"] for r in runs)
            loaded = "yes" if route == "informed" else "no"
            print(
                f"{route:<20} {loaded:>9} {first['steps']:>5} {first['requests']:>8} {sum(first['tokens']):>18} {wall:>16.2f}"
            )


if __name__ == "__main__":
    main()
