"""Input tokens a whole run costs: does the prompt grow with every step? (issue 16, target 2)

    uv run python benchmarks/run_tokens.py [--steps 10 40]

A scripted model drives the real TaskRun, the real phone capability and a real adb server
against the simulated phone (scenario `market`): launch the Market, open Home & Living →
Lighting, scroll the shelf down until the Aurora Desk Lamp shows, then keep looking (up,
a fresh look, down, a fresh look) until the step budget is spent, and answer the lamp's
price (checked with the task's own check). Scrolls move every element number, so they
go out as full listings; a fresh look at an unchanged screen goes out as a delta. The same script
runs twice in the same process:

- before: every screen stays whole in the history, every screen is a full listing and
  every step's runtime line stays (`mika.agent.history.SCREEN_WINDOW = None`,
  `mika.cap.phone.fenced.DELTAS = False`, `mika.agent.history.DROP_OLD_RUNTIME = False`);
- after: the shipped behaviour (a screen goes out as a placeholder once it is not the
  latest, unless a delta still builds on it; a screen that differs little from the one
  before sent as a delta; only the current step's runtime line).

Per run it prints the summed estimated input tokens over all main requests
(`mika.agent.compressor.estimate_request`, what the compressor counts; a 128k window, so
no compression happens in either run), split into zone 0 (system prompt and tool
definitions, which this part does not change) and the history, the last request's size,
how many screens went out as deltas over the run, and the share of all
input a provider could serve from its prompt cache (the byte-identical prefix shared
with the previous request, as benchmarks/context_cache.py measures it).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._sim_bench import bench_phone
from benchmarks.context_cache import common_prefix, openai_chat_body, tokens
from benchmarks.knowledge_routes import _price, _state
from mika.agent.compressor import estimate_fixed, estimate_request
from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply
from mika.runtypes.result import OutcomeStatus
from mika.sim.tasks import get_task
from mika.uistate.delta import delta_base
from tests.phone.driver import current_listing, number_for

TASK = "market_price_aurora_lamp"
GOAL_40 = 200_000


def _script(steps: int):
    """A reply function: open the shelf, scroll down until the lamp shows, then go on
    looking (scroll up / down, each followed by a fresh look, as a careful model checks a
    screen again), and answer on the last step."""
    seen: list[str] = []
    state = {"n": 0, "price": None, "cycle": 0}

    def reply(request) -> Reply | str:
        for part in request.messages[-1].parts if request.messages else ():
            if isinstance(part, ToolResult):
                seen.append(part.text)
        listing = current_listing(seen)
        state["price"] = state["price"] or _price(listing)
        n = state["n"]
        state["n"] += 1
        if n == 0:
            return Reply.call("phone_launch_app", app="Market")
        if n == 1:
            return Reply.call("phone_tap", element=number_for(listing, "Home & Living"))
        if n == 2:
            return Reply.call("phone_tap", element=number_for(listing, "Lighting"))
        if n >= steps - 1:
            return f"The Market charges {state['price']} for the Aurora Desk Lamp."
        if state["price"] is None:
            return Reply.call("phone_scroll", direction="down")
        state["cycle"] += 1
        return [
            Reply.call("phone_observe"),
            Reply.call("phone_scroll", direction="up"),
            Reply.call("phone_observe"),
            Reply.call("phone_scroll", direction="down"),
        ][state["cycle"] % 4]

    return reply


async def _one(steps: int, serial: str, client, tmp: Path) -> dict:
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.cap.phone import PhoneCapability
    from mika.cap.phone.adb.port import AdbPort
    from mika.run.task_run import RunOptions, TaskRun
    from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec

    task = get_task(TASK)
    model = FunctionModel(_script(steps))
    spec = RunSpec(goal=task.goal, provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED), conversation_id="b")
    cap = PhoneCapability(AdbPort(serial, client, backend="dump"))
    caps = capabilities_for(spec, RunEnvironment(extra=[cap]))
    run = TaskRun(spec, model, caps, RunOptions(pacing=False, state_dir=tmp))
    result = await run.run()
    answered = result.status is OutcomeStatus.ANSWERED and task.succeeded(_state(client, serial), result.answer)
    totals = [estimate_request(r) for r in model.requests]
    fixed = sum(estimate_fixed(r.system, r.tools) for r in model.requests)
    # Each step's new results sit in its request's last message: count the screens sent as deltas.
    deltas = sum(
        delta_base(p.text) is not None for r in model.requests if r.messages for p in r.messages[-1].tool_results
    )
    shared = 0
    prev_body = None
    for r in model.requests:
        body, images = openai_chat_body(r)
        if prev_body is not None:
            shared += tokens(body, images, common_prefix(prev_body, body))
        prev_body = body
    cache_total = sum(tokens(*openai_chat_body(r)) for r in model.requests)
    return {
        "requests": len(model.requests),
        "total": sum(totals),
        "fixed": fixed,
        "deltas": deltas,
        "last": totals[-1],
        "cacheable": shared / cache_total if cache_total else 0.0,
        "uncached": cache_total - shared,
        "answered": answered,
        "answer": result.answer,
    }


def _modes():
    import mika.agent.history as history
    import mika.cap.phone.fenced as fenced

    shipped = (history.SCREEN_WINDOW, fenced.DELTAS, history.DROP_OLD_RUNTIME)

    def before() -> None:
        history.SCREEN_WINDOW = None
        fenced.DELTAS = False
        history.DROP_OLD_RUNTIME = False

    def after() -> None:
        history.SCREEN_WINDOW, fenced.DELTAS, history.DROP_OLD_RUNTIME = shipped

    return {"before": before, "after": after}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[10, 40])
    args = parser.parse_args()
    rows = []
    with bench_phone("market") as sim:
        client = sim.client
        dev = client.device(sim.serial)
        for steps in args.steps:
            for mode, apply in _modes().items():
                apply()
                dev.shell("simctl reset market")
                with tempfile.TemporaryDirectory() as tmp:
                    rows.append((steps, mode, asyncio.run(_one(steps, sim.serial, client, Path(tmp)))))

    print(f"run tokens · scripted Market run on the simulated phone · task {TASK}")
    head = (
        f"{'steps':>5} {'mode':<7} {'requests':>8} {'input tok':>10} {'vs before':>9} {'zone 0':>8} "
        f"{'history':>8} {'vs before':>9} {'last req':>9} {'deltas':>6} {'cacheable':>9} {'uncached':>9}  answer"
    )
    print(head)
    print("-" * len(head))
    base: dict[int, dict] = {}
    for steps, mode, r in rows:
        if mode == "before":
            base[steps] = r
        b = base.get(steps, r)
        history = r["total"] - r["fixed"]
        ratio, h_ratio = r["total"] / b["total"], history / (b["total"] - b["fixed"])
        ok = "correct" if r["answered"] else f"WRONG: {r['answer']!r}"
        print(
            f"{steps:>5} {mode:<7} {r['requests']:>8} {r['total']:>10,} {ratio:>8.2f}x {r['fixed']:>8,} "
            f"{history:>8,} {h_ratio:>8.2f}x {r['last']:>9,} {r['deltas']:>6} {r['cacheable']:>8.1%} {r['uncached']:>9,}  {ok}"
        )
    print(
        "zone 0 = system prompt + tool definitions, summed over the requests (the same in both modes); "
        "history = the rest; deltas = screens sent as a delta over the run; "
        "uncached = input not in the prefix shared with the previous request (what a prompt cache cannot serve)"
    )
    for steps, mode, r in rows:
        if steps == 40 and mode == "after":
            verdict = "meets" if r["total"] <= GOAL_40 else "misses"
            print(f"goal: a 40-step run ≤ {GOAL_40:,} input tokens — {r['total']:,} {verdict} it")
    return 0 if all(r["answered"] for _, _, r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
