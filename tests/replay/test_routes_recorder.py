"""`record_route` over event lists: each condition that keeps a run from becoming a route."""

from __future__ import annotations

import pytest

from mika.record.events import OutcomeJudged, RouteStepSeen, RunStarted, TakeoverEvent, ToolCalled, ToolFinished
from mika.record.redactor import Redactor
from mika.replay.recorder import record_route
from mika.runtypes.result import OutcomeStatus, RunResult

GOAL = "在微聊里回复小明：好的，七点见"
ANCHOR = {"label": "小明", "resource_id": "", "role": "item", "desc": ""}


def run_events(*, verdict="done", anchored=True, effect="done", ok=True, origin="cli", extra=()):
    calls = [
        ("c1", "phone_launch_app", {"app": "微聊"}, {}, "place_changed"),
        ("c2", "phone_tap", {"element": 4}, ANCHOR, "place_changed"),
        ("c3", "phone_type_text", {"text": "好的，七点见"}, {}, effect),
    ]
    out = [RunStarted(run_id="r", goal=GOAL, origin=origin, attendance="unattended")]
    for cid, name, args, anchor, eff in calls:
        out.append(ToolCalled(run_id="r", call_id=cid, name=name, arguments=args, risk="write"))
        out.append(
            RouteStepSeen(
                run_id="r", call_id=cid, name=name, place={"app": "com.mika.chat"}, anchor=anchor, anchored=anchored
            )
        )
        out.append(ToolFinished(run_id="r", call_id=cid, name=name, ok=ok, effect=eff))
    out.extend(extra)
    if verdict:
        out.append(OutcomeJudged(run_id="r", verdict=verdict))
    return out


ANSWERED = RunResult("r", OutcomeStatus.ANSWERED, "已回复小明：好的，七点见")


def test_a_verified_run_becomes_a_route_with_the_goals_values_as_parameters():
    d = record_route("abcd0001", GOAL, "r", ANSWERED, run_events(), 5.0)
    assert d.route is not None, d.reason
    r = d.route
    assert r.params == {"p1": "微聊", "p2": "好的，七点见"}
    assert [s.args for s in r.steps] == [{"app": "{p1}"}, {}, {"text": "{p2}"}]
    assert r.steps[1].anchor == ANCHOR and r.answer == "已回复小明：{p2}" and r.source_run == "r"


@pytest.mark.parametrize(
    ("kw", "result", "why"),
    [
        ({"verdict": "partial"}, ANSWERED, "not verified done (verdict: partial)"),
        ({"verdict": ""}, ANSWERED, "verdict: none"),
        ({}, RunResult("r", OutcomeStatus.NOT_DONE, "x"), "not answered"),
        ({"anchored": False}, ANSWERED, "acted on a point"),
        ({"ok": False}, ANSWERED, "did not end ok"),
        ({"effect": "weird"}, ANSWERED, "nobody checked"),
        ({"origin": "replay"}, ANSWERED, "was a replay"),
        (
            {"extra": (TakeoverEvent(run_id="r", question_id="q", reason="login", message="", state="skipped"),)},
            ANSWERED,
            "takeover was skipped",
        ),
    ],
)
def test_runs_that_are_not_verified_routes_are_not_recorded(kw, result, why):
    d = record_route("abcd0001", GOAL, "r", result, run_events(**kw), 5.0)
    assert d.route is None and why in d.reason


def test_a_call_without_a_route_step_is_not_replayable():
    events = [e for e in run_events() if not (isinstance(e, RouteStepSeen) and e.call_id == "c2")]
    assert "not a replayable tool" in record_route("abcd0001", GOAL, "r", ANSWERED, events, 5.0).reason


def test_a_typed_secret_never_goes_into_a_route():
    redactor = Redactor()
    redactor.add_secret("好的，七点见")
    d = record_route("abcd0001", GOAL, "r", ANSWERED, run_events(), 5.0, redactor)
    assert d.route is None and "secret" in d.reason
