"""The trigger runtime on a fake clock, with the real TaskCenter, TaskRun and outbox
(only the model is a script: no provider can run here). Each tick is driven by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.messages import ModelRequest
from mika.model.testing import FunctionModel, Reply
from mika.run.conversations import ConversationStore
from mika.run.outbox import CallbackChannel, Delivery, Outbox
from mika.run.state_lock import ProcessLease
from mika.run.task_center import TaskCenter
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.spec import RunOrigin, RunSpec
from mika.trigger.channels import ConversationChannel
from mika.trigger.definition import Timing, TimingKind, Trigger, TriggerKind, window_id
from mika.trigger.runtime import TriggerRuntime, WindowLog
from mika.trigger.store import UNKNOWN, TriggerStore

T0 = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now.timestamp()

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


class Harness:
    def __init__(self, root: Path, reply, monkeypatch) -> None:
        monkeypatch.setenv("MIKA_LANGUAGE", "en")
        self.root = root
        self.clock = Clock()
        self.specs: list[RunSpec] = []
        self.delivered: list[Delivery] = []
        self.logs: list[WindowLog] = []
        self.model = FunctionModel(reply)

        def make(spec: RunSpec) -> TaskRun:
            self.specs.append(spec)
            return TaskRun(
                spec, self.model, capabilities_for(spec, RunEnvironment()), RunOptions(state_dir=root, pacing=False)
            )

        self.conversations = ConversationStore(root)
        self.outbox = Outbox(root, [CallbackChannel(self.delivered.append), ConversationChannel(self.conversations)])
        self.center = TaskCenter(make, state_dir=root, outbox=self.outbox, conversations=self.conversations)
        self.store = TriggerStore(root, clock=self.clock)
        self.runtime = TriggerRuntime(
            self.store, outbox=self.outbox, center=self.center, clock=self.clock, on_window=self.logs.append
        )

    async def tick(self) -> list[str]:
        claimed = self.runtime.tick()
        await self.runtime.idle()
        return claimed

    def add(self, kind: TriggerKind, goal: str, timing: Timing, **kw) -> Trigger:
        trigger = Trigger(f"s{len(self.store.list()) + 1}", kind, goal, timing, conversation_id="c1", **kw)
        self.store.add(trigger)
        return trigger


def every(seconds: int, first: datetime) -> Timing:
    return Timing(TimingKind.EVERY, at=first, every_s=seconds)


def at(moment: datetime) -> Timing:
    return Timing(TimingKind.AT, at=moment)


def no_model(request: ModelRequest) -> str:
    raise AssertionError("a reminder must not call the model")


async def test_reminder_is_delivered_at_its_time_without_a_model(tmp_path, monkeypatch):
    h = Harness(tmp_path, no_model, monkeypatch)
    h.add(TriggerKind.REMINDER, "take the medicine", at(T0 + timedelta(minutes=1)))
    assert await h.tick() == []
    h.clock.advance(seconds=59)
    assert await h.tick() == []
    h.clock.advance(seconds=1)
    assert await h.tick() == [window_id("s1", T0 + timedelta(minutes=1))]
    for _ in range(3):
        h.clock.advance(minutes=5)
        assert await h.tick() == []
    assert [d.text for d in h.delivered] == ["Reminder: take the medicine"]
    assert h.delivered[0].id == "reminder:" + window_id("s1", T0 + timedelta(minutes=1))
    assert h.specs == []  # no run was made: the model (which fails if called) was never reached
    turns = h.conversations.get("c1").turns
    assert [t.answer for t in turns] == ["Reminder: take the medicine"]
    status = h.store.get("s1")
    assert status.finished and status.last_result == "Reminder: take the medicine"


async def test_task_runs_once_unattended_in_its_conversation(tmp_path, monkeypatch):
    h = Harness(tmp_path, lambda request: "The weather is sunny.", monkeypatch)
    h.add(TriggerKind.TASK, "check the weather", at(T0 + timedelta(seconds=3)))
    assert await h.tick() == []
    h.clock.advance(seconds=3)
    assert len(await h.tick()) == 1
    h.clock.advance(seconds=30)
    assert await h.tick() == []
    assert len(h.specs) == 1
    spec = h.specs[0]
    assert spec.provenance.origin is RunOrigin.TRIGGER and not spec.provenance.can_ask
    assert spec.conversation_id == "c1" and spec.goal == "check the weather"
    assert h.store.get("s1").last_result == "The weather is sunny."
    answers = [d for d in h.delivered if d.kind == "answer"]
    assert [d.text for d in answers] == ["The weather is sunny."] and answers[0].conversation_id == "c1"
    assert h.conversations.get("c1").turns[-1].answer == "The weather is sunny."
    assert [w.outcome for w in h.logs] == ["answered"]


async def test_missed_intervals_merge_into_one_run_that_says_so(tmp_path, monkeypatch):
    h = Harness(tmp_path, lambda request: "Done.", monkeypatch)
    h.add(TriggerKind.TASK, "water the plants", every(600, T0 + timedelta(minutes=10)))
    h.clock.advance(minutes=10 * 5 + 3)  # five windows came while nobody was running
    assert len(await h.tick()) == 1
    assert len(h.specs) == 1 and "missed 4 earlier time(s)" in h.specs[0].goal
    assert h.store.get("s1").next_due == T0 + timedelta(minutes=60)
    h.clock.advance(minutes=7)
    assert len(await h.tick()) == 1
    assert len(h.specs) == 2 and "missed" not in h.specs[1].goal


async def test_condition_fires_only_on_false_to_true_edges(tmp_path, monkeypatch):
    checks = iter(
        ["CONDITION: FALSE", "CONDITION: TRUE", "CONDITION: TRUE", "error", "CONDITION: FALSE", "CONDITION: TRUE"]
    )

    def reply(request: ModelRequest):
        said = " ".join(m.text for m in request.messages)
        if "scheduled check" in said:
            answer = next(checks)
            if answer == "error":
                return Reply(error=ModelError(ModelErrorKind.AUTH, "the key was refused"))
            return f"Looked at it.\n{answer}"
        return "Bought the tickets."

    h = Harness(tmp_path, reply, monkeypatch)
    h.add(
        TriggerKind.CONDITION, "buy the tickets", every(60, T0 + timedelta(minutes=1)), condition="tickets are on sale"
    )
    for _ in range(6):
        h.clock.advance(minutes=1)
        assert len(await h.tick()) == 1
    acts = [s for s in h.specs if s.conversation_id == "c1"]
    looks = [s for s in h.specs if s.conversation_id != "c1"]
    assert len(looks) == 6 and all(s.read_only and not s.provenance.can_ask for s in looks)
    assert len(acts) == 2 and all(s.goal == "buy the tickets" for s in acts)
    assert [w.outcome for w in h.logs] == [
        "check:false",
        "fired:answered",
        "check:true",
        "check:unknown",
        "check:false",
        "fired:answered",
    ]
    assert h.store.get("s1").last_value is True


async def test_when_idle_waits_for_the_conversations_run(tmp_path, monkeypatch):
    release = {"go": False}

    def reply(request: ModelRequest):
        said = " ".join(m.text for m in request.messages)
        if "long job" in said and not release["go"]:
            return Reply.call("wait", seconds=0.05)
        return "ok"

    h = Harness(tmp_path, reply, monkeypatch)
    sub = h.center.submit("c1", "a long job")
    h.add(TriggerKind.TASK, "tidy up", at(T0 + timedelta(seconds=1)), when_idle=True)
    h.clock.advance(seconds=2)
    assert h.runtime.tick() == []  # the conversation is busy: not even claimed
    assert h.store.get("s1").last_window == ""
    release["go"] = True
    await h.center.wait_run(sub.run_id)
    assert len(await h.tick()) == 1
    assert [s.goal for s in h.specs] == ["a long job", "tidy up"]


async def test_paused_triggers_wait_and_run_now_runs_once(tmp_path, monkeypatch):
    h = Harness(tmp_path, lambda request: "ok", monkeypatch)
    h.add(TriggerKind.TASK, "ping", every(60, T0 + timedelta(minutes=1)))
    h.store.pause("s1")
    h.clock.advance(minutes=3)
    assert await h.tick() == []
    h.store.request_run("s1")
    assert len(await h.tick()) == 1
    assert await h.tick() == []
    assert len(h.specs) == 1


async def test_a_dead_processes_task_window_is_reported_unknown_once(tmp_path, monkeypatch):
    h = Harness(tmp_path, no_model, monkeypatch)
    h.add(TriggerKind.TASK, "post the report", at(T0 + timedelta(seconds=1)))
    dead = ProcessLease(tmp_path).acquire()
    other = TriggerStore(tmp_path, lease=dead, clock=h.clock)
    due = T0 + timedelta(seconds=1)
    assert other.claim("s1", window_id("s1", due), due=due, following=None)
    dead.release()  # killed: the kernel drops its lease
    h.clock.advance(seconds=5)
    assert h.runtime.recover() == [window_id("s1", due)]
    assert h.runtime.recover() == []  # once
    assert await h.tick() == []  # and never run again
    told = [d.text for d in h.delivered]
    assert told == [
        "The scheduled task “post the report” was interrupted while it ran (Mika was stopped). "
        "Its result is unknown — Mika won't repeat it."
    ]
    assert h.store.get("s1").windows[window_id("s1", due)]["state"] == UNKNOWN
    assert h.conversations.get("c1").turns[-1].answer == told[0]


async def test_a_dead_processes_reminder_is_delivered_again_at_most_once(tmp_path, monkeypatch):
    h = Harness(tmp_path, no_model, monkeypatch)
    h.add(TriggerKind.REMINDER, "stand up", at(T0 + timedelta(seconds=1)))
    due = T0 + timedelta(seconds=1)
    dead = ProcessLease(tmp_path).acquire()
    other = TriggerStore(tmp_path, lease=dead, clock=h.clock)
    assert other.claim("s1", window_id("s1", due), due=due, following=None)
    dead.release()
    h.runtime.recover()
    h.runtime.recover()
    assert [d.id for d in h.delivered] == [f"reminder:{window_id('s1', due)}"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_result_unknown_in_both_languages(lang):
    from mika.trigger.texts import t

    text = t("result_unknown", lang, goal="x")
    assert ("won't repeat" in text) if lang == "en" else ("不会自动重复" in text)
