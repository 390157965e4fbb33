"""The condition edge: acts only on false→true against the last known value; an unknown
(failed) check is not "false" and never moves the edge. Exhaustive over short sequences."""

from __future__ import annotations

import itertools

import pytest

from mika.runtypes.result import OutcomeStatus, RunResult
from mika.trigger.condition import ConditionOutcome, edge, judge

T, F, U = ConditionOutcome.TRUE, ConditionOutcome.FALSE, ConditionOutcome.UNKNOWN


def firings(outcomes) -> int:
    last, fired = None, 0
    for outcome in outcomes:
        act, last = edge(last, outcome)
        fired += act
    return fired


def reference(outcomes) -> int:
    # Drop the unknowns, then count rising edges, with "no value yet" as not-true.
    known = [o is T for o in outcomes if o is not U]
    return sum(1 for prev, cur in zip([False, *known], known, strict=False) if cur and not prev)


@pytest.mark.parametrize("n", range(1, 7))
def test_every_sequence_fires_on_its_rising_edges_only(n):
    for outcomes in itertools.product((T, F, U), repeat=n):
        assert firings(outcomes) == reference(outcomes), outcomes


def test_the_done_when_sequence_fires_twice():
    assert firings([F, T, T, U, F, T]) == 2


def test_unknown_keeps_the_last_value():
    assert edge(True, U) == (False, True)
    assert edge(False, U) == (False, False)
    assert edge(None, U) == (False, None)
    assert edge(False, T) == (True, True)
    assert edge(True, T) == (False, True)
    assert edge(None, T) == (True, True)


def r(answer: str, status: OutcomeStatus = OutcomeStatus.ANSWERED) -> RunResult:
    return RunResult("r1", status, answer=answer)


def test_judging_the_check_answer():
    assert judge(r("The shop lists it in stock.\nCONDITION: TRUE")) is T
    assert judge(r("Not yet.\n**CONDITION: FALSE**")) is F
    assert judge(r("condition: true")) is T
    assert judge(r("I could not load the page.\nCONDITION: UNKNOWN")) is U
    assert judge(r("It looks like it is true.")) is U  # no verdict line: not false
    assert judge(r("CONDITION: TRUE", OutcomeStatus.FAILED)) is U  # a failed check is not a verdict
    assert judge(r("CONDITION: FALSE", OutcomeStatus.NOT_DONE)) is U
    # a page quoting the marker mid-text doesn't count; the last verdict line does
    assert judge(r("The page said 'CONDITION: TRUE' in a banner.\nCONDITION: FALSE")) is F
