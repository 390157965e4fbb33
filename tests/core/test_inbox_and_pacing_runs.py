"""RunInbox semantics, and outward pacing inside a real run."""

from __future__ import annotations

import asyncio
import threading

from mika.assembly import RunEnvironment, capabilities_for
from mika.model.testing import Reply, ScriptedModel
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.inbox import InputKind, RunInbox, RunInput
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.core.toy import ToyCapability, ToyWorld


async def test_close_unless_steered_never_loses_a_last_moment_message():
    inbox = RunInbox()
    inbox.bind(asyncio.get_running_loop())
    assert inbox.steer("wait, one more")
    assert not inbox.close_unless_steered()
    assert [s.text for s in inbox.take_steers()] == ["wait, one more"]
    assert inbox.close_unless_steered()
    assert not inbox.steer("after closing")  # becomes the next task, not lost here


async def test_steers_from_another_thread_wake_the_loop():
    inbox = RunInbox()
    inbox.bind(asyncio.get_running_loop())
    t = threading.Thread(target=inbox.steer, args=("from a worker",))
    t.start()
    await asyncio.wait_for(inbox.steer_signal.wait(), 2)
    t.join()
    assert inbox.has_steers()


async def test_cancel_is_a_signal_not_a_queued_message():
    inbox = RunInbox()
    inbox.bind(asyncio.get_running_loop())
    inbox.steer("a")
    inbox.cancel()
    assert inbox.cancelled.is_set()
    assert [s.text for s in inbox.take_steers()] == ["a"]


async def test_a_reply_resolves_only_its_question():
    inbox = RunInbox()
    inbox.bind(asyncio.get_running_loop())
    waiter = asyncio.create_task(inbox.wait_reply("q1"))
    await asyncio.sleep(0)
    assert not inbox.reply(RunInput(InputKind.ANSWER, text="x", question_id="nope"))
    assert inbox.reply(RunInput(InputKind.ANSWER, text="yes", question_id="q1"))
    assert (await waiter).text == "yes"


async def test_a_steer_during_outward_pacing_skips_the_action_and_records_the_wait(tmp_path):
    world = ToyWorld(screen="Chat · Send")
    model = ScriptedModel(
        [
            Reply.call("toy_open", page=world.screen),
            Reply.call("toy_tap", label="Send"),
            Reply.call("toy_tap", label="Send"),
            "stopped sending",
        ]
    )
    spec = RunSpec(goal="send twice", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    caps = capabilities_for(spec, RunEnvironment(extra=[ToyCapability(world)]))
    # The run's clock is ours to move, so the wait it records is exact, not timed.
    now = [1000.0]
    run = TaskRun(spec, model, caps, RunOptions(pacing=True, state_dir=tmp_path, clock=lambda: now[0]))
    events = []
    run.subscribe(events.append)
    pausing = asyncio.Event()

    async def pacing_sleep(seconds: float) -> None:
        pausing.set()  # the pacing pause before the second Send has begun
        await asyncio.sleep(seconds)

    def watch_the_pause(_event) -> None:
        # The run builds its tool context when it starts; its sleep is the pause's seam.
        loop = getattr(run, "loop", None)
        if loop is not None:
            loop.ctx.sleep = pacing_sleep

    run.subscribe(watch_the_pause)
    task = asyncio.create_task(run.run())
    await asyncio.wait_for(pausing.wait(), 5)
    now[0] += 0.2  # 200 ms of the pause go by
    run.steer("don't send it twice")
    await asyncio.wait_for(task, 5)
    taps = [e for e in events if e.type == "tool_result" and e.name == "toy_tap"]
    assert [t.code for t in taps] == ["done", "skipped_for_new_message"]
    assert taps[1].wait_ms == 200
    assert world.taps == ["Send"]
