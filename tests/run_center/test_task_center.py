"""TaskCenter through real files in a temp state dir and an honest run double."""

from __future__ import annotations

import asyncio
import json

import pytest

from mika.run.conversations import ConversationStore
from mika.run.outbox import CallbackChannel, DeliveryState, Outbox
from mika.run.phase import RunPhase
from mika.run.run_store import RunStore
from mika.run.task_center import Submitted, TaskCenter
from mika.runtypes.result import OutcomeStatus
from tests.run_center.doubles import RunFactory, settled


@pytest.fixture
def delivered():
    return []


@pytest.fixture
def factory():
    return RunFactory()


@pytest.fixture
async def center(tmp_path, factory, delivered):
    outbox = Outbox(tmp_path, [CallbackChannel(delivered.append, "test")])
    center = TaskCenter(factory, state_dir=tmp_path, outbox=outbox)
    yield center
    await center.aclose()


async def test_a_message_starts_a_run_with_its_turn_on_disk(center, factory, tmp_path):
    sub = center.submit("c1", "open settings")
    assert sub.outcome is Submitted.STARTED
    await settled()
    run = factory.runs[sub.run_id]
    assert run.started.is_set() and run.spec.goal == "open settings" and run.spec.conversation_id == "c1"
    conv = ConversationStore(tmp_path).get("c1")
    assert [(t.run_id, t.user, t.outcome) for t in conv.turns] == [(sub.run_id, "open settings", "running")]
    assert RunStore(tmp_path).get(sub.run_id).phase == RunPhase.RUNNING.value


async def test_steer_goes_into_the_running_run_not_a_second_task(center, factory, tmp_path):
    first = center.submit("c1", "find the cheapest flight")
    await settled()
    second = center.submit("c1", "only direct flights")
    assert second.outcome is Submitted.STEERED and second.run_id == first.run_id
    run = factory.runs[first.run_id]
    assert run.pending == ["only direct flights"]
    assert len(factory.order) == 1 and center.state().queued == ()
    assert run.take_steers() == ["only direct flights"]
    run.finish("The cheapest direct flight is 420 EUR.")
    result = await center.wait_run(first.run_id)
    assert result.status is OutcomeStatus.ANSWERED
    turn = ConversationStore(tmp_path).get("c1").turns[-1]
    assert turn.steers == ("only direct flights",) and turn.answer.startswith("The cheapest")
    assert len(factory.order) == 1  # the steer did not become another task


async def test_second_conversation_queues_and_starts_when_the_first_ends(center, factory, delivered):
    a = center.submit("c1", "task A")
    b = center.submit("c2", "task B")
    assert a.outcome is Submitted.STARTED
    assert b.outcome is Submitted.QUEUED and b.position == 1
    await settled()
    assert [r.spec.goal for r in factory.order] == ["task A"]
    factory.runs[a.run_id].finish("A done")
    await center.wait_run(a.run_id)
    await settled()
    assert [r.spec.goal for r in factory.order] == ["task A", "task B"]
    assert center.running_in("c2") == b.run_id
    factory.runs[b.run_id].finish("B done")
    await center.wait_idle()
    assert [d.text for d in delivered] == ["A done", "B done"]


async def test_queue_skips_a_busy_conversation_and_a_scheduled_task_waits_inside_it(tmp_path, factory, delivered):
    center = TaskCenter(
        factory, state_dir=tmp_path, outbox=Outbox(tmp_path, [CallbackChannel(delivered.append)]), limit=2
    )
    a = center.submit("c1", "A")
    sched = center.submit("c1", "daily report", scheduled=True)
    c = center.submit("c2", "C")
    assert a.outcome is Submitted.STARTED
    assert sched.outcome is Submitted.QUEUED  # not a steer into A
    assert c.outcome is Submitted.STARTED  # the queue skips c1's waiting task
    await settled()
    assert factory.runs[a.run_id].pending == []
    factory.runs[a.run_id].finish("A done")
    await center.wait_run(a.run_id)
    await settled()
    assert center.running_in("c1") == sched.run_id
    assert factory.runs[sched.run_id].spec.prior_turns[-1].answer == "A done"
    assert factory.runs[sched.run_id].spec.preload_groups == ("phone",)


async def test_unconsumed_steers_become_the_next_task(center, factory, tmp_path):
    first = center.submit("c1", "book a table")
    await settled()
    center.submit("c1", "for four people")
    center.submit("c1", "at 8pm")
    factory.runs[first.run_id].finish("Could not reach the restaurant.", OutcomeStatus.NOT_DONE)
    await center.wait_run(first.run_id)
    await settled()
    assert len(factory.order) == 2
    follow = factory.order[1]
    assert follow.spec.conversation_id == "c1"
    assert follow.spec.goal == "for four people\n\nat 8pm"
    turns = ConversationStore(tmp_path).get("c1").turns
    assert turns[0].steers == ()  # never reached the model, so not part of that turn
    assert turns[1].user == "for four people\n\nat 8pm"


async def test_stop_drops_unconsumed_steers_and_marks_the_turn_at_once(center, factory, tmp_path, delivered):
    first = center.submit("c1", "clean up my photos")
    await settled()
    center.submit("c1", "and the videos")
    assert center.stop("c1")
    # Marked stopped before the run has even finished.
    assert ConversationStore(tmp_path).get("c1").turns[0].outcome == "stopped"
    result = await center.wait_run(first.run_id)
    await center.wait_idle()
    assert result.status is OutcomeStatus.STOPPED
    assert factory.runs[first.run_id].cancelled
    assert len(factory.order) == 1  # the steer was dropped, no next task
    assert delivered == []  # the user saw it stop; nothing is sent
    assert RunStore(tmp_path).get(first.run_id).phase == RunPhase.ENDED.value


async def test_stop_summary_is_written_into_the_turn_afterwards(tmp_path, factory):
    gate = asyncio.Event()

    async def summarize(spec, result):
        await gate.wait()
        return "Before stopping: opened the gallery, deleted 3 photos."

    center = TaskCenter(factory, state_dir=tmp_path, stop_summary=summarize, outbox=Outbox(tmp_path, []))
    first = center.submit("c1", "clean up")
    await settled()
    center.stop("c1")
    await center.wait_run(first.run_id)
    # The next task is not held up by the summary.
    nxt = center.submit("c1", "now the downloads")
    assert nxt.outcome is Submitted.STARTED
    assert first.run_id in center.state().summarizing
    assert ConversationStore(tmp_path).get("c1").turns[0].answer == "Stopped."
    gate.set()
    factory.runs[nxt.run_id].finish("ok")
    await center.wait_idle()
    turn = ConversationStore(tmp_path).get("c1").turns[0]
    assert turn.outcome == "stopped" and turn.answer.startswith("Before stopping")


async def test_message_after_the_inbox_closed_is_queued_as_next_task(center, factory):
    first = center.submit("c1", "A")
    await settled()
    run = factory.runs[first.run_id]
    run.closed = True  # the loop closed its inbox and is writing the answer
    late = center.submit("c1", "one more thing")
    assert late.outcome is Submitted.QUEUED
    run.finish("A done")
    await center.wait_run(first.run_id)
    await settled()
    assert factory.order[-1].spec.goal == "one more thing"


async def test_answer_is_saved_then_delivered_once(center, factory, tmp_path, delivered):
    first = center.submit("c1", "what's the weather")
    await settled()
    factory.runs[first.run_id].finish("Sunny, 21°C.")
    await center.wait_idle()
    outbox = Outbox(tmp_path)
    assert outbox.state(f"answer:{first.run_id}") is DeliveryState.DELIVERED
    record = RunStore(tmp_path).get(first.run_id)
    assert record.answer_saved and record.answer == "Sunny, 21°C." and record.phase == "ended"
    assert [d.id for d in delivered] == [f"answer:{first.run_id}"]


async def test_events_of_every_run_reach_center_subscribers(center, factory):
    seen = []
    center.subscribe(seen.append)
    a = center.submit("c1", "A")
    await settled()
    factory.runs[a.run_id].finish("done")
    await center.wait_idle()
    assert [e.type for e in seen] == ["run_started", "outcome"]
    assert all(e.run_id == a.run_id and e.conversation_id == "c1" for e in seen)


async def test_a_run_that_cannot_be_built_fails_its_turn_and_the_queue_moves_on(center, factory, tmp_path, delivered):
    factory.fail_next = RuntimeError("no device attached")
    a = center.submit("c1", "A")
    b = center.submit("c2", "B")
    await settled()
    result = await center.wait_run(a.run_id)
    assert result.status is OutcomeStatus.FAILED and "no device attached" in result.answer
    assert ConversationStore(tmp_path).get("c1").turns[0].outcome == "failed"
    await settled()
    assert center.running_in("c2") == b.run_id


async def test_delete_stops_the_run_waits_and_late_writes_stay_dropped(center, factory, tmp_path):
    store = ConversationStore(tmp_path)
    a = center.submit("c1", "A")
    center.submit("c1", "queued after A", scheduled=True)
    await settled()
    store.workspace("c1").mkdir(parents=True)
    (store.workspace("c1") / "note.txt").write_text("x")
    removed = []
    assert await center.delete_conversation("c1", remove_schedules=lambda cid: removed.append(cid) or 1)
    assert removed == ["c1"]
    assert factory.runs[a.run_id].cancelled
    assert not store.exists("c1") and not store.workspace("c1").exists()
    assert center.state().queued == () and center.state().running == ()
    # A late title or summary does not bring it back.
    assert store.set_title("c1", "Late title") is False
    assert store.update_turn("c1", a.run_id, answer="late") is False
    assert not store.exists("c1")


async def test_parallel_limit_is_clamped_by_displays(tmp_path, factory):
    center = TaskCenter(factory, state_dir=tmp_path, outbox=Outbox(tmp_path, []), limit=3)
    assert center.limit == 3
    assert center.set_limit(3, displays=2) == 2
    assert center.set_limit(9, displays=5) == 3
    assert center.set_limit(0) == 1
    center.set_limit(2)
    subs = [center.submit(f"c{i}", f"T{i}") for i in range(3)]
    assert [s.outcome for s in subs] == [Submitted.STARTED, Submitted.STARTED, Submitted.QUEUED]
    await center.aclose()


async def test_state_files_are_valid_json_after_a_busy_session(center, factory, tmp_path):
    for i in range(3):
        sub = center.submit("c1", f"T{i}")
        await settled()
        center.submit("c1", "more")
        factory.runs[sub.run_id].take_steers()
        factory.runs[sub.run_id].finish(f"done {i}")
        await center.wait_run(sub.run_id)
    await center.wait_idle()
    for path in tmp_path.rglob("*.json"):
        json.loads(path.read_text())
    assert len(ConversationStore(tmp_path).get("c1").turns) == 3


async def test_delete_waits_bounded_for_a_run_that_ignores_stop(center, factory, tmp_path):
    store = ConversationStore(tmp_path)
    a = center.submit("c1", "A")
    await settled()
    run = factory.runs[a.run_id]
    run.cancel = lambda: None  # a run stuck in a blocking call: the stop does not land yet
    assert await center.delete_conversation("c1", wait_s=0.05)
    assert not store.exists("c1")
    run.finish("finished after all")  # its end arrives after the delete
    await center.wait_run(a.run_id)
    await center.wait_idle()
    assert not store.exists("c1")  # the late turn end did not bring it back
    assert RunStore(tmp_path).get(a.run_id).phase == RunPhase.ENDED.value


async def test_a_bad_conversation_id_is_refused_before_anything_is_written(center, tmp_path):
    from mika.run.conversations import BadConversationId

    with pytest.raises(BadConversationId):
        center.submit("../escape", "x")
    assert center.state().running == () and RunStore(tmp_path).all() == []


async def test_a_title_is_made_once_after_the_first_turn_and_a_rename_wins(tmp_path, factory):
    gate = asyncio.Event()
    asked = []

    async def make_title(spec, result):
        asked.append(spec.conversation_id)
        await gate.wait()
        return "“Lisbon weekend”"

    center = TaskCenter(factory, state_dir=tmp_path, outbox=Outbox(tmp_path, []), title_maker=make_title)
    store = ConversationStore(tmp_path)
    for cid in ("c1", "c2"):
        sub = center.submit(cid, "plan a weekend in Lisbon")
        await settled()
        factory.runs[sub.run_id].finish("Here is a plan.")
        await center.wait_run(sub.run_id)
    store.rename("c2", "My trip")  # the user names c2 while its title is being made
    gate.set()
    await center.wait_idle()
    assert store.get("c1").title == "Lisbon weekend"
    assert store.get("c2").title == "My trip"
    again = center.submit("c1", "and the hotel")
    await settled()
    factory.runs[again.run_id].finish("ok")
    await center.wait_idle()
    assert asked == ["c1", "c2"]  # not asked again once it has a title
