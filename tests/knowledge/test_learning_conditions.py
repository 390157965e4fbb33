"""When a run may become a skill draft: each condition at its edge, and which learned
skills a run used and how it went (trial / retirement input). Pure functions over
real event types."""

from __future__ import annotations

import itertools

import pytest

from mika.knowledge.learning.conditions import MIN_ACTIONS, acting_calls, should_draft
from mika.knowledge.learning.outcomes import run_outcome, skills_read
from mika.record.events import (
    OutcomeJudged,
    RunEvent,
    RunStarted,
    TakeoverEvent,
    ToolCalled,
    ToolFinished,
)
from mika.runtypes.result import OutcomeStatus, RunResult

_ids = itertools.count(1)


def call(name: str = "phone_tap", risk: str = "write", origin: str = "model", **kw) -> list[RunEvent]:
    cid = f"c{next(_ids)}"
    return [
        ToolCalled(
            run_id="r", call_id=cid, name=name, risk=risk, origin=origin, arguments=kw.pop("arguments", {}), **kw
        ),
        ToolFinished(run_id="r", call_id=cid, name=name, ok=True),
    ]


def record(actions: int = MIN_ACTIONS, verdict: str = "done", origin: str = "cli", extra=()) -> list[RunEvent]:
    events: list[RunEvent] = [RunStarted(run_id="r", goal="g", origin=origin, attendance="present")]
    for _ in range(actions):
        events += call()
    events += list(extra)
    if verdict:
        events.append(OutcomeJudged(run_id="r", verdict=verdict))
    return events


ANSWERED = RunResult("r", OutcomeStatus.ANSWERED, "Done.")


def test_a_verified_answered_run_with_enough_actions_is_drafted() -> None:
    decision = should_draft(True, ANSWERED, record())
    assert decision and decision.reason == "ok"


def test_off_by_default_means_no_draft() -> None:
    decision = should_draft(False, ANSWERED, record())
    assert not decision and "[learning] skills" in decision.reason


@pytest.mark.parametrize("status", [s for s in OutcomeStatus if s is not OutcomeStatus.ANSWERED])
def test_only_answered_runs(status: OutcomeStatus) -> None:
    decision = should_draft(True, RunResult("r", status, "x"), record())
    assert not decision and status.value in decision.reason


@pytest.mark.parametrize("verdict", ["", "partial", "not_possible", "unknown"])
def test_only_runs_the_judge_said_done(verdict: str) -> None:
    assert not should_draft(True, ANSWERED, record(verdict=verdict))


def test_a_later_verdict_wins() -> None:
    events = [*record(verdict="done"), OutcomeJudged(run_id="r", verdict="partial")]
    assert not should_draft(True, ANSWERED, events)


def test_the_action_count_edge() -> None:
    assert MIN_ACTIONS == 5
    assert should_draft(True, ANSWERED, record(actions=MIN_ACTIONS))
    decision = should_draft(True, ANSWERED, record(actions=MIN_ACTIONS - 1))
    assert not decision and "only 4 acting" in decision.reason


def test_reads_and_control_calls_are_not_actions() -> None:
    extra = []
    for _ in range(10):
        extra += call("phone_read", risk="read")
        extra += call("hand_to_user", risk="read", control=True)
        extra += call("end_not_done", risk="write", control=True)
    assert not should_draft(True, ANSWERED, record(actions=MIN_ACTIONS - 1, extra=extra))
    # external (sending, posting) counts like write
    assert should_draft(True, ANSWERED, record(actions=MIN_ACTIONS - 1, extra=call("phone_send", risk="external")))


def test_a_composite_counts_as_its_steps_not_one_more() -> None:
    # do_steps with 4 taps: the container and 4 batch calls would be 5 if both counted.
    outer = ToolCalled(run_id="r", call_id="outer", name="do_steps", risk="write")
    steps = []
    for _ in range(4):
        steps += call(origin="batch")
    events = [outer, *steps, ToolFinished(run_id="r", call_id="outer", name="do_steps", ok=True)]
    assert [c.origin for c in acting_calls(events)] == ["batch"] * 4
    assert not should_draft(True, ANSWERED, record(actions=0, extra=events))
    assert should_draft(True, ANSWERED, record(actions=1, extra=events))


@pytest.mark.parametrize("state", ["skipped", "cancelled"])
def test_a_skipped_takeover_means_no_draft(state: str) -> None:
    takeover = TakeoverEvent(run_id="r", question_id="h-1", reason="login", message="log in", state=state)
    decision = should_draft(True, ANSWERED, record(extra=[takeover]))
    assert not decision and "takeover" in decision.reason


def test_a_skipped_takeover_seen_only_in_the_tool_result_counts_too() -> None:
    finished = ToolFinished(run_id="r", call_id="h", name="hand_to_user", ok=False, code="takeover_skipped")
    assert not should_draft(True, ANSWERED, record(extra=[finished]))


def test_a_takeover_the_user_finished_is_fine() -> None:
    takeover = [
        TakeoverEvent(run_id="r", question_id="h-1", reason="login", message="log in", state=s)
        for s in ("asked", "done")
    ]
    assert should_draft(True, ANSWERED, record(extra=takeover))


def test_a_replayed_run_is_not_drafted() -> None:
    decision = should_draft(True, ANSWERED, record(origin="replay"))
    assert not decision and "replay" in decision.reason
    # Replayed steps inside a run started otherwise give it away as well.
    assert not should_draft(True, ANSWERED, record(extra=call(origin="replay")))
    for origin in ("ui", "cli", "trigger", "mcp"):
        assert should_draft(True, ANSWERED, record(origin=origin))


class TestOutcomes:
    def test_skills_read_are_named_once_in_order(self) -> None:
        events = (
            call("skill_read", risk="read", arguments={"name": "b-skill"})
            + call("skill_read", risk="read", arguments={"name": "a-skill"})
            + call("skill_read", risk="read", arguments={"name": "b-skill"})
            + call("skill_read", risk="read", arguments={"name": 7})
            + call("skill_search", risk="read", arguments={"name": "c-skill"})
        )
        assert skills_read(events) == ["b-skill", "a-skill"]

    def test_good_bad_and_silent_runs(self) -> None:
        assert run_outcome(ANSWERED, record(verdict="done")) == "good"
        assert run_outcome(ANSWERED, record(verdict="partial")) == "bad"
        assert run_outcome(ANSWERED, record(verdict="not_possible")) == "bad"
        assert run_outcome(ANSWERED, record(verdict="unknown")) == ""
        assert run_outcome(ANSWERED, record(verdict="")) == ""
        assert run_outcome(RunResult("r", OutcomeStatus.STOPPED), record()) == ""  # the user's stop
        assert run_outcome(RunResult("r", OutcomeStatus.NOT_DONE), record()) == "bad"
        assert run_outcome(RunResult("r", OutcomeStatus.FAILED), record(verdict="")) == "bad"


def test_a_run_that_followed_a_skill_it_read_is_not_drafted_again() -> None:
    extra = call("skill_read", risk="read", arguments={"name": "reply-to-chat"})
    decision = should_draft(True, ANSWERED, record(extra=extra))
    assert not decision and "followed a skill" in decision.reason
    # Searching for one (and finding nothing to follow) is no reason to skip.
    assert should_draft(True, ANSWERED, record(extra=call("skill_search", risk="read", arguments={"query": "x"})))
