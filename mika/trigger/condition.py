"""A condition trigger's check and its edge (seed §10 ConditionOutcome).

The check is a read-only, unattended run (web and sandbox only, as the seed has it) whose
goal is prompts/roles/condition_check.md: the model looks and ends its answer with one
line `CONDITION: TRUE|FALSE|UNKNOWN`. That line is read here, by a fixed rule — no second
model call judges it. Anything but an answered run with exactly that line is UNKNOWN:
a failed, stopped or garbled check is never taken for "false".

The task runs only on a false→true edge against the last known value. UNKNOWN leaves the
last known value where it was, so error between false and true still fires once, and
true → error → true fires nothing. No known value yet counts as "not true": a condition
that already holds at the first check fires once.
"""

from __future__ import annotations

import enum
import re

from mika.resources import prompt
from mika.runtypes.result import OutcomeStatus, RunResult

_VERDICT = re.compile(r"^\W*CONDITION\W*:\W*(TRUE|FALSE|UNKNOWN)\W*$", re.I | re.M)
CHECK_CAPABILITIES = ("web", "sandbox")


class ConditionOutcome(enum.Enum):
    TRUE = "true"
    FALSE = "false"
    UNKNOWN = "unknown"


def check_goal(condition: str) -> str:
    return prompt("roles/condition_check.md").replace("{condition}", " ".join(condition.split()))


def check_conversation_id(trigger_id: str) -> str:
    """Checks run in a conversation of their own, so the trigger's conversation only holds
    what the user asked for (the task's runs), not one turn per look."""
    return f"{trigger_id}-checks"


def is_check_conversation(conversation_id: str) -> bool:
    return conversation_id.endswith("-checks")


def judge(result: RunResult) -> ConditionOutcome:
    if result.status is not OutcomeStatus.ANSWERED:
        return ConditionOutcome.UNKNOWN
    verdicts = _VERDICT.findall(result.answer)
    if not verdicts:
        return ConditionOutcome.UNKNOWN
    return ConditionOutcome(verdicts[-1].lower())  # the last line is the verdict asked for


def edge(last: bool | None, outcome: ConditionOutcome) -> tuple[bool, bool | None]:
    """(act now?, the new last known value)."""
    if outcome is ConditionOutcome.UNKNOWN:
        return False, last
    now = outcome is ConditionOutcome.TRUE
    return (now and last is not True), now
