"""The task center driving the real TaskRun (agent loop, inbox, recorder) with the
package's FunctionModel / ScriptedModel — no doubles of our own parts."""

from __future__ import annotations

import asyncio
import json

from mika.assembly import RunEnvironment, capabilities_for
from mika.model.testing import FunctionModel, Reply, ScriptedModel, last_tool_results
from mika.run.conversations import ConversationStore
from mika.run.outbox import CallbackChannel, DeliveryState, Outbox
from mika.run.run_store import RunStore
from mika.run.task_center import Submitted, TaskCenter
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from tests.run_center.doubles import settled


def _factory(model, state_dir, specs=None):
    def make(spec):
        if specs is not None:
            specs.append(spec)
        return TaskRun(
            spec, model, capabilities_for(spec, RunEnvironment()), RunOptions(state_dir=state_dir, pacing=False)
        )

    return make


def _all_text(request) -> str:
    return "\n".join(m.text for m in request.messages)


async def _until(predicate, timeout=5.0):
    async def poll():
        while not predicate():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


async def test_a_steer_reaches_the_real_loop_and_is_kept_in_the_turn(tmp_path):
    asked = asyncio.Event()

    async def reply(request):
        if "only direct flights" not in _all_text(request):
            asked.set()
            await asyncio.sleep(30)  # a slow model; the steer withdraws this request
        return "The cheapest direct flight is 420 EUR."

    model = FunctionModel(reply)
    delivered = []
    center = TaskCenter(
        _factory(model, tmp_path), state_dir=tmp_path, outbox=Outbox(tmp_path, [CallbackChannel(delivered.append)])
    )
    first = center.submit("c1", "find the cheapest flight to Lisbon")
    await asyncio.wait_for(asked.wait(), 5)
    steer = center.submit("c1", "only direct flights")
    assert steer.outcome is Submitted.STEERED and steer.run_id == first.run_id
    result = await asyncio.wait_for(center.wait_run(first.run_id), 10)
    await center.wait_idle()
    assert result.status is OutcomeStatus.ANSWERED
    assert "only direct flights" in _all_text(model.requests[-1])
    turn = ConversationStore(tmp_path).get("c1").turns[0]
    assert turn.steers == ("only direct flights",) and turn.answer.startswith("The cheapest direct")
    assert [d.text for d in delivered] == [result.answer]
    assert Outbox(tmp_path).state(f"answer:{first.run_id}") is DeliveryState.DELIVERED
    assert RunStore(tmp_path).get(first.run_id).phase == "ended"


async def test_the_next_run_of_a_conversation_gets_its_earlier_turns(tmp_path):
    model = ScriptedModel(["Paris is the capital of France.", "About 2.1 million people."])
    specs = []
    center = TaskCenter(_factory(model, tmp_path, specs), state_dir=tmp_path, outbox=Outbox(tmp_path, []))
    first = center.submit("c1", "what is the capital of France")
    await center.wait_run(first.run_id)
    second = center.submit("c1", "how many people live there")
    result = await center.wait_run(second.run_id)
    assert result.answer == "About 2.1 million people."
    prior = specs[1].prior_turns
    assert [(p.user, p.answer, p.outcome, p.run_id) for p in prior] == [
        ("what is the capital of France", "Paris is the capital of France.", "answered", first.run_id)
    ]
    assert "Paris is the capital of France." in _all_text(model.requests[1])


async def test_stop_ends_a_real_run_and_marks_the_turn(tmp_path):
    asked = asyncio.Event()

    async def hang(request):
        asked.set()
        await asyncio.sleep(30)
        return "never"

    center = TaskCenter(_factory(FunctionModel(hang), tmp_path), state_dir=tmp_path, outbox=Outbox(tmp_path, []))
    first = center.submit("c1", "tidy the home screen")
    await asyncio.wait_for(asked.wait(), 5)
    center.submit("c1", "and the dock")  # dropped with the stop
    center.stop("c1")
    result = await asyncio.wait_for(center.wait_run(first.run_id), 10)
    await center.wait_idle()
    assert result.status is OutcomeStatus.STOPPED
    assert ConversationStore(tmp_path).get("c1").turns[0].outcome == "stopped"
    assert center.state().queued == () and center.state().running == ()
    # The run's own record is closed and valid.
    for path in tmp_path.rglob("*.json"):
        json.loads(path.read_text())


async def test_two_conversations_with_real_runs_queue_in_order(tmp_path):
    gate = asyncio.Event()

    async def reply(request):
        text = _all_text(request)
        if "first" in text:
            await gate.wait()
            return "first done"
        return "second done"

    specs = []
    center = TaskCenter(
        _factory(FunctionModel(reply), tmp_path, specs), state_dir=tmp_path, outbox=Outbox(tmp_path, [])
    )
    a = center.submit("c1", "the first task")
    b = center.submit("c2", "the second task")
    assert b.outcome is Submitted.QUEUED
    await settled(20)
    assert len(specs) == 1
    gate.set()
    assert (await center.wait_run(b.run_id)).answer == "second done"
    assert [s.id for s in specs] == [a.run_id, b.run_id]


async def test_an_answer_reaches_the_question_the_real_run_asked(tmp_path):
    model = ScriptedModel([Reply.call("ask_user", question="Which city?"), "Booked for Porto."])
    center = TaskCenter(_factory(model, tmp_path), state_dir=tmp_path, outbox=Outbox(tmp_path, []))
    asked = []
    center.subscribe(lambda e: asked.append(e) if e.type == "question" else None)
    first = center.submit("c1", "book a hotel")
    await _until(lambda: asked)
    assert not center.answer("c2", asked[0].question_id, "Porto")  # another conversation: nothing waits
    assert center.answer("c1", asked[0].question_id, "Porto")
    result = await asyncio.wait_for(center.wait_run(first.run_id), 10)
    assert result.answer == "Booked for Porto."
    assert any("Porto" in text for text in last_tool_results(model.requests[-1]))


async def test_the_answer_is_saved_and_delivered_before_the_outcome_judge_and_a_stop_then_does_not_unsay_it(tmp_path):
    """Aftercare (here the outcome judge, on the light model) starts only once the
    answer is in the run store, in the turn and delivered; pressing stop while the judge
    works cuts the aftercare short but leaves the answer told and the turn answered."""
    judging, release = asyncio.Event(), asyncio.Event()

    async def light(request):
        if request.purpose == "judge":
            judging.set()
            await release.wait()
            return "done\nthe record shows it"
        return "unknown"

    main = ScriptedModel(["The parcel arrives tomorrow."])
    delivered = []

    def make(spec):
        return TaskRun(
            spec,
            main,
            capabilities_for(spec, RunEnvironment()),
            RunOptions(state_dir=tmp_path, pacing=False),
            light=FunctionModel(light),
        )

    center = TaskCenter(make, state_dir=tmp_path, outbox=Outbox(tmp_path, [CallbackChannel(delivered.append)]))
    sub = center.submit("c1", "when does the parcel arrive?")
    await asyncio.wait_for(judging.wait(), 5)
    # The judge is still thinking: everything the user needs is on disk and told.
    saved = RunStore(tmp_path).get(sub.run_id)
    assert saved.answer_saved and (saved.status, saved.answer) == ("answered", "The parcel arrives tomorrow.")
    assert [d.text for d in delivered] == ["The parcel arrives tomorrow."]
    assert Outbox(tmp_path).state(f"answer:{sub.run_id}") is DeliveryState.DELIVERED
    turn = ConversationStore(tmp_path).get("c1").turns[0]
    assert (turn.outcome, turn.answer) == ("answered", "The parcel arrives tomorrow.")

    assert center.stop("c1")
    release.set()
    result = await asyncio.wait_for(center.wait_run(sub.run_id), 10)
    await center.wait_idle()
    assert result.status is OutcomeStatus.ANSWERED and result.answer == "The parcel arrives tomorrow."
    turn = ConversationStore(tmp_path).get("c1").turns[0]
    assert (turn.outcome, turn.answer) == ("answered", "The parcel arrives tomorrow.")
    record = RunStore(tmp_path).get(sub.run_id)
    assert (record.phase, record.status) == ("ended", "answered")
    assert len(delivered) == 1
