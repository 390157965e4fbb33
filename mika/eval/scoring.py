"""How one task run is scored: its check over the phone's state AND its expected outcome.

    done      the run answered
    answer    the run answered, and the check reads the answer (path `answer`)
    handoff   the run stopped for the user: a payment step held back (approval
              unavailable or refused, nothing paid) or it ended not-done as blocked,
              at a login or at a captcha
    not_done  the run ended not-done (with its reason)

A failed task gets one category, the first that applies: script_mismatch, model_error,
device_error, run_failed, budget, wrong_outcome, check_failed. The runner adds timeout,
config_error, crashed, interrupted; no_solution and needs_person are tasks not run
(nothing to score).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mika.sim.tasks import SimTask

CATEGORIES = (
    "check_failed",  # the outcome was the expected one, the phone's state (or answer) was not
    "wrong_outcome",  # e.g. "done" on an impossible task, an answer where a handoff was due
    "budget",  # the step budget ran out
    "model_error",  # the provider failed
    "script_mismatch",  # a model script did not fit the run (a pick matched nothing, out of replies)
    "device_error",  # the simulated phone was lost or could not be prepared
    "run_failed",  # the run failed otherwise (a guard, an internal fault)
    "config_error",  # the headless run refused its configuration (exit 2: a bad model or config)
    "crashed",  # the headless run ended without a result, or the harness failed
    "timeout",  # the task took longer than --timeout
    "interrupted",  # the evaluation was stopped (Ctrl+C) while the task ran
    "no_solution",  # --model reference, and the task has no reference solution
    "needs_person",  # --model reference, and the solution needs a person present (not run)
)
# Rows of tasks that were not run: not scored (neither passed nor failed).
NOT_RUN = frozenset({"no_solution", "needs_person"})
HANDOFF_SUBTYPES = frozenset({"blocked", "login_incomplete", "captcha_incomplete"})


@dataclass(frozen=True)
class Score:
    passed: bool
    category: str  # "" when passed
    check_passed: bool | None  # None: not checked (the run did not get that far)
    outcome_ok: bool | None


def outcome_matches(expect: str, outcome: str, subtype: str, not_paid: bool) -> bool:
    if expect in ("done", "answer"):
        return outcome == "answered" and not not_paid
    if expect == "handoff":
        return not_paid or outcome == "approval_refused" or (outcome == "not_done" and subtype in HANDOFF_SUBTYPES)
    if expect == "not_done":
        return outcome == "not_done"
    return False


def score(task: SimTask, result: dict[str, Any], state: dict[str, Any] | None, model_kinds: frozenset[str]) -> Score:
    """`result` is the headless result object (mika.headless.result_dict); `state` the
    phone's `simctl state` after the run (None when it could not be read)."""
    outcome, subtype = str(result.get("outcome", "")), str(result.get("subtype", ""))
    if outcome == "failed":
        if subtype == "script_mismatch":
            return Score(False, "script_mismatch", None, None)
        return Score(False, "model_error" if subtype in model_kinds else "run_failed", None, None)
    if outcome == "device_unavailable" or state is None:
        return Score(False, "device_error", None, None)
    if outcome == "budget_exhausted":
        return Score(False, "budget", None, None)
    answer = str(result.get("answer", "")) if task.expect == "answer" else None
    check = task.succeeded(state, answer)
    ok = outcome_matches(task.expect, outcome, subtype, bool(result.get("not_paid")))
    if not ok:
        return Score(False, "wrong_outcome", check, False)
    if not check:
        return Score(False, "check_failed", False, True)
    return Score(True, "", True, True)
