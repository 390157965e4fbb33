"""What the one payment judgement costs per action on the simulated phone (issue 32).

A scripted run (real TaskRun, real phone capability with its GatedPort, a real adb server
on a free port, the simulated shop with Green Tea in the cart) repeats a round of phone
actions: tap by element, tap by point, type into a field (its focus tap and its text), a
key that presses the focus (Enter in the search field) and one that presses nothing
(Back), an app launch, and a link (an intent the port resolves before judging it).

Every input the port sends is judged (`GatedPort.on_judged`): the time to read the screen
it lands on — nothing when the current read stands (the lock check's, or the tool's own
read after its previous input), a fresh dump otherwise — and, for an intent, to resolve
it; then the judgement itself: resolving what is under the point / in focus / where the
intent leads, classifying it, and the approval decision. The judgement is the figure the
issue bounds (≤ 5 ms per action); reads and resolves are device calls, shown beside it.

    uv run python benchmarks/gate_cost.py [--rounds 15] [--backend u2|dump]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._sim_bench import bench_phone
from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply
from tests.phone.driver import current_listing, number_for

TARGET_MS = 5.0

# (label in the table, tool, arguments; "pick" is an element read from the latest listing,
# "at" a point on that text in the phone's own frame)
ROUND = [
    ("tap by element", "phone_tap", {"pick": "Cart, 1 items"}),
    ("tap by point", "phone_tap", {"at": "Navigate up"}),
    ("type (focus tap + text)", "phone_type_text", {"pick": "", "role": "input", "text": "tea", "clear_first": True}),
    ("key Enter (presses the focus)", "phone_press_key", {"key": "ENTER"}),
    ("key Back (presses nothing)", "phone_press_key", {"key": "BACK"}),
    ("launch app", "phone_launch_app", {"app": "com.mika.shop"}),
    ("link (intent, resolved)", "phone_open_link", {"url": "mikashop://deal"}),
    ("key Back (presses nothing)", "phone_press_key", {"key": "BACK"}),
]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _point(world, label: str) -> tuple[int, int]:
    from mika.sim.apps.frame import build_frame

    for window in reversed(build_frame(world, 0)):
        for node in window.root.walk():
            if label in (node.text, node.desc):
                left, top, right, bottom = node.bounds
                return (left + right) // 2, (top + bottom) // 2
    raise SystemExit(f"{label!r} is not on the simulated screen")


class Script:
    def __init__(self, rounds: int, world) -> None:
        self.plan = [a for _ in range(rounds) for a in ROUND]
        self.world = world
        self.results: list[str] = []
        self.current: str | None = None  # the action whose inputs are being judged
        self.model = FunctionModel(self.reply)

    def reply(self, request) -> Reply | str:
        for part in request.messages[-1].parts if request.messages else ():
            if isinstance(part, ToolResult):
                self.results.append(part.text)
        if not self.results:
            return Reply.call("phone_launch_app", app="Shop")
        if not self.plan:
            self.current = None
            return "done"
        label, tool, args = self.plan.pop(0)
        args = dict(args)
        if "pick" in args:
            args["element"] = number_for(current_listing(self.results), args.pop("pick"), args.pop("role", None))
        if "at" in args:
            args["x"], args["y"] = _point(self.world, args.pop("at"))
        self.current = label
        return Reply.call(tool, **args)


async def _run(serial: str, client, world, backend: str, rounds: int, tmp: Path) -> dict[str, list]:
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.cap.phone import PhoneCapability
    from mika.cap.phone.adb.port import AdbPort
    from mika.cap.phone.gated_port import GatedPort, Judged
    from mika.run.task_run import RunOptions, TaskRun
    from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec

    cap = PhoneCapability(AdbPort(serial, client, backend=backend))
    script = Script(rounds, world)
    per_action: dict[str, list[list[Judged]]] = defaultdict(list)
    seen_reply = [-1]
    bind = cap.bind_gate

    def bind_and_time(gate) -> None:
        bind(gate)
        port = cap.session.port
        assert isinstance(port, GatedPort)

        def judged(j: Judged) -> None:
            if script.current is None:
                return
            calls = per_action[script.current]
            if seen_reply[0] != len(script.results):  # the first input of a new action
                seen_reply[0] = len(script.results)
                calls.append([])
            calls[-1].append(j)

        port.on_judged = judged

    cap.bind_gate = bind_and_time  # type: ignore[method-assign]
    spec = RunSpec(goal="browse the shop", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    run = TaskRun(
        spec, script.model, capabilities_for(spec, RunEnvironment(extra=[cap])), RunOptions(pacing=False, state_dir=tmp)
    )
    await run.run()
    refused = [r.split("\n", 1)[0] for r in script.results if r.startswith("[")]
    if refused:
        raise SystemExit(f"the scripted run went wrong: {refused[:3]}")
    return per_action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--backend", choices=("dump", "u2"), default="u2")
    args = parser.parse_args()
    with bench_phone("shop_cart") as phone, tempfile.TemporaryDirectory() as tmp:
        per_action = asyncio.run(_run(phone.serial, phone.client, phone.world, args.backend, args.rounds, Path(tmp)))

    print(f"{args.rounds} rounds, backend {args.backend}, simulated shop; times per action (all its inputs)")
    print()
    print(
        "| action | actions | inputs judged / action | fresh dumps / action | judgement ms median | p90 | max | read + resolve ms median |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    every: list[float] = []
    for label in dict.fromkeys(label for label, _, _ in ROUND):
        calls = per_action.get(label, [])
        if not calls:
            print(f"| {label} | 0 | – | – | – | – | – | – |")
            continue
        judge = [sum(j.judge_ms for j in call) for call in calls]
        reads = [sum(j.read_ms for j in call) for call in calls]
        every += judge
        print(
            f"| {label} | {len(calls)} | {statistics.mean(len(c) for c in calls):.1f} "
            f"| {statistics.mean(sum(j.fresh_read for j in c) for c in calls):.2f} "
            f"| {statistics.median(judge):.2f} | {_pct(judge, 0.9):.2f} | {max(judge):.2f} | {statistics.median(reads):.2f} |"
        )
    med, p90 = statistics.median(every), _pct(every, 0.9)
    print()
    print(f"all actions: judgement median {med:.2f} ms, p90 {p90:.2f} ms, max {max(every):.2f} ms")
    print(f"target: ≤ {TARGET_MS:.0f} ms per action {'met' if p90 <= TARGET_MS else 'NOT met'} (p90)")


if __name__ == "__main__":
    main()
