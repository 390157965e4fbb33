"""The trial rule of learned skills (seed §11): how one more use moves a skill's status.

A trial skill becomes active after one good run and is retired after one bad run; an
active skill is retired when 2 of its last 3 uses were bad. Its own module: the store
(mika.knowledge.learning.drafts) applies it, and the outcome reader
(mika.knowledge.learning.outcomes) uses the store.
"""

from __future__ import annotations

WINDOW = 3  # the uses an active skill is judged on
BAD_TO_RETIRE = 2  # bad uses within WINDOW that retire an active skill


def next_status(status: str, outcomes: tuple[str, ...], outcome: str) -> tuple[str, tuple[str, ...]]:
    """(status, last outcomes) after one more use ending `outcome` ("good" / "bad")."""
    kept = (*outcomes, outcome)[-WINDOW:]
    if status == "retired":
        return status, tuple(outcomes)
    if status == "trial":
        return ("active" if outcome == "good" else "retired"), kept
    if kept.count("bad") >= BAD_TO_RETIRE:
        return "retired", kept
    return "active", kept
