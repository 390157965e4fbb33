"""`RunMetrics.of(events)`: a pure summary of one run (seed §13 每件事一份小结).

All times count from the run_started event. First feedback is the earliest model reply
whose actions ran (its replied-at time) or the earliest activity. Model thinking is the
sum of request durations; reading / acting are top-level tool durations by declared risk
(control calls — wait, ask, confirm, hand over — count as neither); other is the rest.

Steps are the outcome's count; a run with no outcome (killed, or still running) has taken
the highest step its events reached — but a model request, its retries and its
cancellation carry the step they ask for, which the loop takes only once a reply arrives,
so those don't count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

# Events the model caller emits before the step they name is taken (mika/agent/model_caller.py).
_ASKING = frozenset({"model_request", "model_error", "model_cancelled"})


@dataclass(frozen=True)
class RunMetrics:
    run_id: str
    outcome: str
    total_ms: int
    first_feedback_ms: int | None
    model_round_trips: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    calls_without_usage: int
    thinking_ms: int
    reading_ms: int
    acting_ms: int
    waiting_ms: int
    other_ms: int
    steps: int
    judged: str = ""

    @staticmethod
    def of(events: Iterable[dict[str, Any]]) -> RunMetrics:
        evs = list(events)
        start = next((e["at"] for e in evs if e.get("type") == "run_started"), evs[0]["at"] if evs else 0.0)
        run_id = next((e.get("run_id", "") for e in evs), "")
        outcome_ev = next((e for e in reversed(evs) if e.get("type") == "outcome"), None)
        end = outcome_ev["at"] if outcome_ev else (evs[-1]["at"] if evs else start)
        total = int(max(0.0, end - start) * 1000)

        replies = [e for e in evs if e.get("type") == "model_reply" and e.get("purpose", "main") == "main"]
        thinking = sum(max(0.0, e.get("replied_at", 0) - e.get("requested_at", 0)) for e in replies)
        first_candidates = [e["replied_at"] - start for e in replies if e.get("replied_at")]
        first_candidates += [e["at"] - start for e in evs if e.get("type") == "activity"]
        first = int(min(first_candidates) * 1000) if first_candidates else None

        inp = sum(e.get("usage", {}).get("input", 0) for e in replies)
        out = sum(e.get("usage", {}).get("output", 0) for e in replies)
        cached = sum(e.get("usage", {}).get("cached", 0) for e in replies)
        no_usage = sum(1 for e in replies if not e.get("usage_reported", True))

        calls = {e["call_id"]: e for e in evs if e.get("type") == "tool_call"}
        reading = acting = waiting = 0
        for e in evs:
            if e.get("type") != "tool_result":
                continue
            call = calls.get(e["call_id"], {})
            if call.get("origin", "model") not in ("model", "replay"):
                continue  # sub-steps are inside their composite call's duration
            waiting += int(e.get("wait_ms", 0))
            if call.get("control"):
                continue
            if call.get("risk", "read") == "read":
                reading += int(e.get("duration_ms", 0))
            else:
                acting += int(e.get("duration_ms", 0))
        thinking_ms = int(thinking * 1000)
        other = max(0, total - thinking_ms - reading - acting)
        judged = next((e.get("verdict", "") for e in reversed(evs) if e.get("type") == "outcome_judged"), "")
        return RunMetrics(
            run_id=run_id,
            outcome=outcome_ev.get("status", "unfinished") if outcome_ev else "unfinished",
            total_ms=total,
            first_feedback_ms=first,
            model_round_trips=len(replies),
            input_tokens=inp,
            output_tokens=out,
            cached_tokens=cached,
            calls_without_usage=no_usage,
            thinking_ms=thinking_ms,
            reading_ms=reading,
            acting_ms=acting,
            waiting_ms=waiting,
            other_ms=other,
            steps=int(outcome_ev.get("steps", 0)) if outcome_ev else _steps_taken(evs),
            judged=judged,
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _steps_taken(evs: list[dict[str, Any]]) -> int:
    return max((int(e.get("step") or 0) for e in evs if e.get("type") not in _ASKING), default=0)
