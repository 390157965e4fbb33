"""Trial and retirement of learned skills (seed §11, `SkillOutcomes`).

A run "used" a learned skill when its record shows a `skill_read` call with that skill's
`name`. The run's outcome is good (answered and judged done), bad (judged partial or not
possible, or ended without an answer), or says nothing (stopped by the user, or no
verdict): a skill is not blamed for the user's stop or for a judge that did not answer.

A trial skill becomes active after one good run and is retired after one bad run; an
active skill is retired when 2 of its last 3 uses were bad.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from mika.knowledge.learning.drafts import DraftError, LearnedSkill, SkillDrafts
from mika.record.events import OutcomeJudged, RunEvent, ToolCalled
from mika.runtypes.result import OutcomeStatus, RunResult

log = logging.getLogger(__name__)

SKILL_READ_TOOL = "skill_read"  # engineer kuse's lookup tool; its `name` argument is the skill


def verdict_of(events: Iterable[RunEvent]) -> str:
    """The outcome judge's verdict in the record ("" when the judge did not run)."""
    verdict = ""
    for event in events:
        if isinstance(event, OutcomeJudged):
            verdict = event.verdict
    return verdict


def run_outcome(result: RunResult, events: Sequence[RunEvent]) -> str:
    """ "good", "bad", or "" (this run says nothing about the skills it read)."""
    if result.status is OutcomeStatus.STOPPED:
        return ""  # the user's stop is no verdict on the skill
    verdict = verdict_of(events)
    if result.status is OutcomeStatus.ANSWERED:
        if verdict == "done":
            return "good"
        if verdict in ("partial", "not_possible"):
            return "bad"
        return ""  # no judge, or it could not tell
    return "bad"  # failed, not done, out of budget, refused: the route did not get there


def skills_read(events: Iterable[RunEvent]) -> list[str]:
    """The skill names the run read with `skill_read`, each once, in first-read order."""
    names: list[str] = []
    for event in events:
        if isinstance(event, ToolCalled) and event.name == SKILL_READ_TOOL:
            name = event.arguments.get("name")
            if isinstance(name, str) and name and name not in names:
                names.append(name)
    return names


def apply_outcomes(drafts: SkillDrafts, result: RunResult, events: Sequence[RunEvent]) -> list[LearnedSkill]:
    """Record this run's outcome on every learned (trial or active) skill it read; the
    skills whose record changed, as they are now. Skills that are not learned ones
    (shipped, the user's own) are left alone."""
    outcome = run_outcome(result, events)
    if not outcome:
        return []
    names = skills_read(events)
    if not names:
        return []

    learned = {s.name: s for s in drafts.learned()}
    changed = []
    for name in names:
        skill = learned.get(name)
        if skill is None or skill.status == "retired":
            continue
        try:
            changed.append(drafts.record_outcome(name, outcome))
        except DraftError as exc:  # one broken entry must not keep the others' outcomes
            log.warning("learned skill %s: outcome not recorded: %s", name, exc)
    return changed
