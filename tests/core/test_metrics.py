"""RunMetrics.of is a pure function of the recorded events."""

from __future__ import annotations

from mika.record.metrics import RunMetrics


def ev(t, at, **kw):
    return {"type": t, "at": at, "run_id": "r1", **kw}


def test_metrics_split_time_into_thinking_reading_acting_other():
    events = [
        ev("run_started", 100.0),
        ev(
            "model_reply",
            102.0,
            requested_at=100.5,
            replied_at=102.0,
            usage={"input": 1000, "output": 50, "cached": 800},
        ),
        ev("tool_call", 102.0, call_id="a", name="toy_read", risk="read", origin="model"),
        ev("tool_result", 102.5, call_id="a", name="toy_read", duration_ms=500, wait_ms=0),
        ev(
            "model_reply",
            104.0,
            requested_at=103.0,
            replied_at=104.0,
            usage={"input": 1200, "output": 20, "cached": 1000},
        ),
        ev("tool_call", 104.0, call_id="b", name="toy_tap", risk="write", origin="model"),
        ev("tool_result", 105.0, call_id="b", name="toy_tap", duration_ms=1000, wait_ms=3000),
        ev("tool_call", 105.0, call_id="c", name="wait", risk="read", origin="model", control=True),
        ev("tool_result", 106.0, call_id="c", name="wait", duration_ms=1000, wait_ms=0),
        ev(
            "model_reply",
            107.0,
            requested_at=106.0,
            replied_at=107.0,
            usage={"input": 1300, "output": 30, "cached": 0},
            usage_reported=False,
        ),
        ev("outcome", 110.0, status="answered", steps=3),
    ]
    m = RunMetrics.of(events)
    assert m.total_ms == 10_000
    assert m.first_feedback_ms == 2000
    assert m.model_round_trips == 3
    assert (m.input_tokens, m.output_tokens, m.cached_tokens) == (3500, 100, 1800)
    assert m.calls_without_usage == 1
    assert m.thinking_ms == 3500
    assert m.reading_ms == 500 and m.acting_ms == 1000 and m.waiting_ms == 3000
    assert m.other_ms == 10_000 - 3500 - 500 - 1000
    assert m.outcome == "answered" and m.steps == 3


def test_an_unfinished_run_is_measured_to_its_last_event():
    m = RunMetrics.of([ev("run_started", 0.0), ev("activity", 1.5, text="x")])
    assert m.outcome == "unfinished" and m.total_ms == 1500 and m.first_feedback_ms == 1500
