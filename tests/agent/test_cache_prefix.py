"""The benchmark's run, as a test of structure (not of time): between the points where
the prefix may break, what was sent comes back byte-identical."""

from __future__ import annotations

from benchmarks.context_cache import STABLE_SHARE, run


async def test_the_stable_share_stays_above_ninety_percent_except_at_breaks():
    # A screen goes out as a placeholder once it is not the latest, so the history grows
    # slowly: a window of 7k (not 24k) is what this run needs to reach compressions.
    rows = await run(7_000, 40)
    assert len(rows) >= 40
    assert any("compressed" in r["note"] for r in rows), "the run should reach a compression point"
    for r in rows:
        if not r["note"]:
            assert r["stable"] >= STABLE_SHARE, (
                f"request {r['n']}: only {r['stable']:.1%} of the previous request reused"
            )
    steady = [r for r in rows if not r["note"]]
    assert sum(r["shared"] for r in steady) / sum(r["total"] for r in steady) >= 0.85


async def test_zone_zero_changes_only_when_a_group_unfolds(make_run):
    from mika.model.messages import Image
    from mika.model.testing import Reply, ScriptedModel

    steps = [Reply.call("sim_launch", app="Shop"), Reply.call("sim_read", shot=True)]
    steps += [
        Reply.call("sim_tap", label=f"Item {i}") if i % 2 else Reply.call("sim_read", shot=True) for i in range(8)
    ]
    model = ScriptedModel([*steps, Reply.call("sim_read"), "Item 3 is the cheapest."])
    result = await make_run(model).run()
    assert result.answer == "Item 3 is the cheapest."
    zone0 = [(r.system, r.tools) for r in model.requests]
    assert zone0[0] != zone0[1]  # sim_launch unfolded the phone group
    assert all(z == zone0[1] for z in zone0[2:])
    # Only the step that took a screenshot sends it; the next request carries a line instead.
    for i, r in enumerate(model.requests):
        images = [p for m in r.messages for p in m.parts if isinstance(p, Image)]
        assert len(images) <= 1
        if images:
            assert any(isinstance(p, Image) for p in r.messages[-1].parts)
            nxt = model.requests[i + 1]
            assert not any(isinstance(p, Image) for m in nxt.messages[:-1] for p in m.parts)
            assert f"[screenshot {images[0].ref} from an earlier step, not re-sent]" in "".join(
                m.text for m in nxt.messages
            )


def test_the_opening_wraps_context_and_ends_with_the_users_words():
    from mika.agent.context import ContextBuilder
    from mika.agent.system_prompt import SystemPrompt
    from mika.runtypes.spec import Attendance, PriorTurn, RunOrigin, RunProvenance, RunSpec
    from mika.tool.groups import ToolGroups

    spec = RunSpec(
        goal="book the 9am slot",
        provenance=RunProvenance(RunOrigin.UI, Attendance.PRESENT),
        prior_turns=(PriorTurn("find a slot", "9am and 11am are free"),),
    )
    b = ContextBuilder(
        spec,
        SystemPrompt({}),
        ToolGroups([]),
        extra_context=(("knowledge", "com.clinic.app", "trusted", "Slots open at 8."),),
    )
    opening = b.build().messages[0].text
    assert opening.startswith('<context kind="earlier_turns" source="conversation" trust="trusted">\nUser: find a slot')
    assert '<context kind="knowledge" source="com.clinic.app" trust="trusted">\nSlots open at 8.\n</context>' in opening
    assert opening.endswith("\n\nbook the 9am slot")
