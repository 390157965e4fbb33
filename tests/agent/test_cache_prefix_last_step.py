"""The last budgeted step keeps the tool list (issue 16, target 3).

Dropping every tool but end_not_done on the last step changed zone 0, so the whole cached
prefix broke on that request. Now the tools stay as they were and the runtime zone says
it is the last step; what protects the budget is that only an answer or end_not_done is
taken on that step: any other call is refused before it reaches the executor (nothing is
tapped, nothing recorded as run), with a clear result.
"""

from __future__ import annotations

from mika.model.messages import ToolResult
from mika.model.testing import Reply, ScriptedModel
from mika.resources import prompt
from mika.runtypes.result import OutcomeStatus

LAST = "This is the last step of the step budget"


def _events(run) -> list:
    events: list = []
    run.subscribe(events.append)
    return events


def _refused_results(run) -> list[ToolResult]:
    return [
        p
        for m in run.loop.context.history.messages
        for p in m.parts
        if isinstance(p, ToolResult) and p.text == prompt("feedback/last_step_refused.md")
    ]


async def test_the_last_step_offers_the_same_tools_as_the_step_before_and_says_it_is_the_last(make_run):
    steps = [Reply.call("sim_launch", app="Shop"), Reply.call("sim_read"), Reply.call("sim_tap", label="Item 1")]
    model = ScriptedModel([*steps, "Item 1 is open."])
    run = make_run(model, budget=4)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED and result.answer == "Item 1 is open."
    last, before = model.requests[3], model.requests[2]
    assert last.tools == before.tools and last.system == before.system
    assert "sim_tap" in [t.name for t in last.tools]
    # Said at the very end (zone 3), after the step's own runtime line, in that request only.
    assert last.messages[-1].parts[-1].text == prompt("feedback/last_step.md")
    assert not any(LAST in m.text for r in model.requests[:3] for m in r.messages)
    # Everything the step before sent comes back unchanged, but for its runtime line (only
    # the current step's is sent): the prefix holds.
    assert last.messages[: len(before.messages) - 1] == before.messages[:-1]
    kept = before.messages[-1].parts
    assert kept[-1].text.startswith("[step ") and last.messages[len(before.messages) - 1].parts == kept[:-1]
    # The note is not written into the history (it would otherwise stay in every later request).
    assert not any(LAST in m.text for m in run.loop.context.history.messages)


async def test_an_answer_on_the_last_step_stands_where_a_reminder_would_have_eaten_it(make_run):
    """The tap before was never read back: on any other step that answer goes back once
    (read_back); on the last one there is no step left to act on the reminder."""
    steps = [Reply.call("sim_launch", app="Shop"), Reply.call("sim_tap", label="Item 1")]
    model = ScriptedModel([*steps, "Item 1 is open."])
    result = await make_run(model, budget=3).run()
    assert result.status is OutcomeStatus.ANSWERED and result.answer == "Item 1 is open."
    unbudgeted = ScriptedModel([*steps, "Item 1 is open.", Reply.call("sim_read"), "Item 1 is open."])
    await make_run(unbudgeted).run()
    assert "sim_tap" in unbudgeted.requests[3].messages[-1].text  # the reminder this rule skips on the last step


async def test_a_tap_on_the_last_step_is_refused_and_never_run(make_run, world):
    model = ScriptedModel(
        [
            Reply.call("sim_launch", app="Shop"),
            Reply.call("sim_tap", label="Item 1"),
            Reply.call("sim_tap", label="Buy"),
        ]
    )
    run = make_run(model, budget=3)
    events = _events(run)
    result = await run.run()
    assert world.taps == ["Item 1"]  # the last step's tap did not reach the phone
    assert result.status is OutcomeStatus.BUDGET_EXHAUSTED
    refused = _refused_results(run)
    assert [r.name for r in refused] == ["sim_tap"] and all(r.is_error for r in refused)
    assert "last step of the step budget" in refused[0].text and "end_not_done" in refused[0].text
    called = [e for e in events if e.type == "tool_call"]
    assert [e.arguments for e in called if e.name == "sim_tap"] == [{"label": "Item 1"}]  # only the first tap ran
    assert not any(LAST in m.text for m in run.loop.context.history.messages)


async def test_every_route_around_the_last_step_is_refused(make_run, world):
    """A tap hidden before end_not_done, an unknown name, a batch and a question: none runs."""
    sneaky = Reply.calls(
        ("sim_tap", {"label": "Pay"}),
        ("sim_tapp", {"label": "Pay"}),
        ("do_steps", {"steps": [{"tool": "sim_tap", "args": {"label": "Pay"}}]}),
        ("ask_user", {"question": "Pay now?"}),
        ("end_not_done", {"subtype": "blocked", "message": "Out of steps before paying."}),
    )
    model = ScriptedModel([Reply.call("sim_launch", app="Shop"), sneaky])
    run = make_run(model, budget=2)
    result = await run.run()
    assert world.taps == []
    assert [r.name for r in _refused_results(run)] == ["sim_tap", "sim_tapp", "do_steps", "ask_user"]
    # Giving up is what the last step is for: it runs and ends the run as not done.
    assert result.status is OutcomeStatus.NOT_DONE and "Out of steps before paying." in result.answer


async def test_a_budget_of_one_says_so_in_the_first_request_with_the_usual_tools(make_run):
    model = ScriptedModel(["Nothing to do."])
    await make_run(model, budget=1).run()
    plain = ScriptedModel(["Nothing to do."])
    await make_run(plain).run()
    assert model.requests[0].tools == plain.requests[0].tools
    assert model.requests[0].messages[-1].parts[-1].text == prompt("feedback/last_step.md")
    assert model.requests[0].messages[:-1] == plain.requests[0].messages[:-1]


async def test_the_benchmark_baseline_is_the_old_narrowed_last_step(make_run):
    """RunOptions.cache_baseline exists only for benchmarks/context_cache.py: it must really be the old behaviour."""
    model = ScriptedModel([Reply.call("sim_launch", app="Shop"), "done"])
    await make_run(model, budget=2, cache_baseline=True).run()
    assert [t.name for t in model.requests[1].tools] == ["end_not_done"]
    assert not any(LAST in m.text for r in model.requests for m in r.messages)


def test_the_loop_texts_exist():
    assert prompt("feedback/last_step.md").startswith(LAST)
    assert prompt("feedback/last_step_refused.md").startswith("Not run:")
