"""Issue 14, "show that it helps": the shipped knowledge of the simulated Market
(`knowledge/apps/com.mika.market/APP.md`, search behind an unlabeled icon) reaches the
model once, right after the run's first Market screen, and stays there; the Chinese task
that names the app (集市) gets it in the opening instead. The catalog is the real shipped
one; the run is the real TaskRun on the simulated phone through a real adb server, with a
scripted model taking the informed route (benchmarks/knowledge_routes.py measures the two).
"""

from __future__ import annotations

import json
from pathlib import Path

from mika.assembly import RunEnvironment, capabilities_for
from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.model.messages import ModelRequest, Text
from mika.model.testing import Reply
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.sim.tasks import get_task
from tests.phone.test_runs import world_state
from tests.sim_world.test_knowledge_task import PRICE, _cap, _price_line, _scripted, _unnamed_buttons, market

__all__ = ["market"]  # the fixture, shared with the Market's own tests

MARKET = "com.mika.market"
HEAD = f'<context kind="app_knowledge" source="knowledge/apps/{MARKET}" trust="trusted">'


def run_for(tmp_path: Path, sim_phone, model, goal: str) -> TaskRun:
    knowledge, skills = KnowledgeCatalog.load(), SkillCatalog.load()  # the shipped ones
    assert knowledge.get(MARKET) is not None and knowledge.get(MARKET).origin == "shipped"
    spec = RunSpec(goal=goal, provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED), conversation_id="c-m")
    caps = capabilities_for(spec, RunEnvironment(extra=[_cap(sim_phone)], knowledge=knowledge, skills=skills))
    opts = RunOptions(pacing=False, state_dir=tmp_path / "state", knowledge=knowledge, skills=skills)
    return TaskRun(spec, model, caps, opts)


def blocks(request: ModelRequest) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, m in enumerate(request.messages)
        for j, p in enumerate(m.parts)
        if isinstance(p, Text) and HEAD in p.text
    ]


def given(run: TaskRun) -> list[tuple[str, str, str]]:
    lines = (Path(run.result.record_dir) / "events.jsonl").read_text().splitlines()
    return [(e["id"], e["origin"], e["reason"]) for e in map(json.loads, lines) if e["type"] == "knowledge_given"]


def informed_route(zh: bool = False):
    def answer(listing: str) -> str:
        price = _price_line(listing, "Aurora Desk Lamp")
        return (
            f"集市里 Aurora Desk Lamp 卖 {price}。" if zh else f"The Market charges {price} for the Aurora Desk Lamp."
        )

    return [
        lambda _: Reply.call("phone_launch_app", app="Market"),
        lambda listing: Reply.call("phone_tap", element=_unnamed_buttons(listing)[1]),
        lambda _: Reply.call("phone_type_text", text="Aurora Desk Lamp", submit=True),
        lambda _: Reply.call("phone_wait", expect_gone="Searching…"),
        answer,
    ]


async def test_the_market_knowledge_arrives_once_at_the_first_market_screen(tmp_path, market):
    task = get_task("market_price_aurora_lamp")
    model, _seen = _scripted(informed_route())
    run = run_for(tmp_path, market, model, task.goal)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert task.succeeded(world_state(market), result.answer) and PRICE in result.answer
    requests = model.requests
    assert blocks(requests[0]) == []  # "the Market app" names no entry: nothing at the start
    first = blocks(requests[1])
    assert len(first) == 1
    at, part = first[0]
    block = requests[1].messages[at].parts[part].text
    assert "com.mika.market:id/a7c" in block and "Search" in block  # the route the model needed
    for later in requests[2:]:
        assert blocks(later) == first
        assert later.messages[:at] == requests[1].messages[:at]
    assert given(run) == [(MARKET, "shipped", "screen")]


async def test_the_chinese_task_names_the_market_and_gets_it_in_the_opening(tmp_path, market):
    task = get_task("market_price_aurora_lamp_zh")
    model, _seen = _scripted(informed_route(zh=True))
    run = run_for(tmp_path, market, model, task.goal)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert blocks(model.requests[0]) == [(0, 0)]
    assert model.requests[0].messages[0].text.endswith(task.goal)
    for later in model.requests[1:]:
        assert blocks(later) == [(0, 0)]  # never a second copy after the first Market screen
    assert given(run) == [(MARKET, "shipped", "task")]
