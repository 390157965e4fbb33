"""`record_route`: after a run, make a Route of it — only when it was answered and verified.

All must hold (seed §9: 路线只从办成且核实过的运行里记录): the run was answered; the
outcome judge said "done"; it acted at least once; every acting call was a replayable
tool whose place and anchor were read before it ran (RouteStepSeen, anchored) — no
coordinates; every call ended ok with a checked effect; no takeover
was skipped; it was not itself a replay; nothing it typed is a secret the run's redactor
knows (a password never goes into a route file). A pure function over the run's events,
so each edge is a test; `RouteRecorder` saves what it returns.

Parameters come from the goal: a value of a step's arguments that the goal spells
literally (typed text, a contact's name, the 7 and 30 of "7:30") becomes `{pN}`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mika.knowledge.learning.conditions import acting_calls, replayed, takeover_skipped
from mika.knowledge.learning.outcomes import verdict_of
from mika.record.events import RouteStepSeen, RunEvent, ToolFinished
from mika.record.redactor import Redactor
from mika.replay.route import Route, RouteStep, normalise
from mika.replay.store import RouteStore
from mika.runtypes.result import OutcomeStatus, RunResult

_TARGET_KEYS = ("element", "x", "y", "x1", "y1", "x2", "y2")  # the anchor says what to act on
# "": a tool that checks itself (an alarm read back). "no_effect" with an ok result: the
# step found its work already done (a scroll to "Display" with Display on screen); kept,
# and at replay it must end ok again, the next step's place and anchor checking the rest.
_CHECKED = ("done", "place_changed", "", "no_effect")
_NUMBER = re.compile(r"(?<!\d)\d+(?!\d)")


@dataclass(frozen=True)
class RecordDecision:
    route: Route | None
    reason: str  # why not (or "ok"), for the log line

    def __bool__(self) -> bool:
        return self.route is not None


def record_route(
    route_id: str,
    goal: str,
    run_id: str,
    result: RunResult,
    events: Sequence[RunEvent],
    now: float,
    redactor: Redactor | None = None,
) -> RecordDecision:
    def no(reason: str) -> RecordDecision:
        return RecordDecision(None, reason)

    if result.status is not OutcomeStatus.ANSWERED:
        return no(f"the run was not answered ({result.status.value})")
    verdict = verdict_of(events)
    if verdict != "done":
        return no(f"the run was not verified done (verdict: {verdict or 'none'})")
    if takeover_skipped(events):
        return no("a takeover was skipped")
    if replayed(events):
        return no("the run was a replay")
    calls = acting_calls(events)
    if not calls:
        return no("the run did not act")
    seen = {e.call_id: e for e in events if isinstance(e, RouteStepSeen)}
    finished = {e.call_id: e for e in events if isinstance(e, ToolFinished)}
    raw: list[tuple[str, dict[str, Any], RouteStepSeen, str]] = []
    for index, call in enumerate(calls, 1):
        step = seen.get(call.call_id)
        if step is None:
            return no(f"step {index} ({call.name}) is not a replayable tool")
        if not step.anchored:
            return no(f"step {index} ({call.name}) acted on a point, not an element a route can find again")
        end = finished.get(call.call_id)
        if end is None or not end.ok:
            return no(f"step {index} ({call.name}) did not end ok")
        if end.effect not in _CHECKED:
            return no(f"step {index} ({call.name}) had an effect nobody checked ({end.effect})")
        args = {k: v for k, v in call.arguments.items() if k not in _TARGET_KEYS}
        raw.append((call.name, args, step, end.effect))
    if redactor is not None:
        text = json.dumps([a for _, a, _, _ in raw], ensure_ascii=False)
        if redactor.text(text) != text:
            return no("the run typed a secret (a route file never holds one)")
    params = _params(goal, [a for _, a, _, _ in raw])
    steps = tuple(
        RouteStep(tool=name, args=_template(args, params), place=dict(s.place), anchor=dict(s.anchor), effect=effect)
        for name, args, s, effect in raw
    )
    place = next((dict(s.place) for _, _, s, _ in raw if s.place), {})
    return RecordDecision(
        Route(
            id=route_id,
            goal=goal,
            normalised_goal=normalise(goal),
            params=params,
            place=place,
            steps=steps,
            answer=_answer_template(result.answer, params),
            created=now,
            source_run=run_id,
        ),
        "ok",
    )


def _values(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [x for v in value for x in _values(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _values(v)]
    return [value]


def _params(goal: str, all_args: list[dict[str, Any]]) -> dict[str, str]:
    """{pN: value} for each distinct argument value the goal spells, in order of use."""
    folded = goal.casefold()
    numbers = {int(n) for n in _NUMBER.findall(goal)}
    found: list[str] = []
    for args in all_args:
        for v in _values(args):
            if isinstance(v, bool):
                continue
            if isinstance(v, int) and v in numbers:
                text = str(v)
            elif isinstance(v, str) and len(v.strip()) >= 2 and v.strip().casefold() in folded:
                text = v
            else:
                continue
            if text not in found:
                found.append(text)
    return {f"p{i}": v for i, v in enumerate(found, 1)}


def _template(value: Any, params: dict[str, str]) -> Any:
    by_value = {v: k for k, v in params.items()}
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and str(value) in by_value:
        return "{" + by_value[str(value)] + "}"
    if isinstance(value, str) and value in by_value:
        return "{" + by_value[value] + "}"
    if isinstance(value, list):
        return [_template(v, params) for v in value]
    if isinstance(value, dict):
        return {k: _template(v, params) for k, v in value.items()}
    return value


def _answer_template(answer: str, params: dict[str, str]) -> str:
    out = answer
    for name, value in sorted(params.items(), key=lambda kv: -len(kv[1])):
        if value.isdigit():
            out = re.sub(rf"(?<![\d{{p]){re.escape(value)}(?!\d)", "{" + name + "}", out)
        else:
            out = out.replace(value, "{" + name + "}")
    return out


@dataclass
class RouteRecorder:
    """Aftercare's part: record the run's route when it qualifies, never failing the run."""

    store: RouteStore

    def after_run(
        self,
        goal: str,
        run_id: str,
        result: RunResult,
        events: Sequence[RunEvent],
        now: float,
        redactor: Redactor | None = None,
    ) -> RecordDecision:
        decision = record_route(RouteStore.new_id(), goal, run_id, result, events, now, redactor)
        if decision.route is None:
            return decision
        # The same goal recorded again replaces the older route: one route per goal.
        for old in self.store.list():
            if old.normalised_goal == decision.route.normalised_goal:
                self.store.delete(old.id)
        self.store.save(decision.route)
        return decision
