"""`SkillLearning`: the aftercare step of a run that joins outcomes and drafting.

TaskRun calls `after_run` once, after the outcome judge. First the learned skills the
run read get its outcome (trial → active / retired); then, if learning is on and the run
qualifies (`conditions.should_draft`), a draft is written and stored for the user to
accept. Nothing here can fail the run: the answer was delivered before aftercare began.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mika.knowledge.catalog import SkillCatalog
from mika.knowledge.learning.conditions import should_draft
from mika.knowledge.learning.drafter import SkillDrafter
from mika.knowledge.learning.drafts import MAX_PENDING, DraftError, LearnedSkill, SkillDraft, SkillDrafts
from mika.knowledge.learning.outcomes import apply_outcomes
from mika.model.base import Model
from mika.record.events import RunEvent
from mika.record.redactor import Redactor
from mika.runtypes.result import RunResult

log = logging.getLogger(__name__)


def _catalog_names() -> set[str]:
    # Shipped and the user's own skills: a learned one with the same name would be
    # hidden behind them in the catalog, so a clash gets a suffix.
    return {s.name for s in SkillCatalog.load().skills()}


@dataclass(frozen=True)
class LearningReport:
    drafted: SkillDraft | None = None
    changed: tuple[LearnedSkill, ...] = ()


@dataclass
class SkillLearning:
    drafts: SkillDrafts
    # Light first, then main; empty for a scripted main model (its replies are the run's).
    models: Sequence[Model | None] = ()
    draft_skills: bool = False  # [learning] skills
    taken_names: Callable[[], set[str]] = field(default=_catalog_names)

    async def after_run(
        self,
        run_id: str,
        goal: str,
        result: RunResult,
        events: Sequence[RunEvent],
        redactor: Redactor | None = None,  # the run's: it knows the passwords typed in it
    ) -> LearningReport:
        changed: tuple[LearnedSkill, ...] = ()
        try:
            changed = tuple(apply_outcomes(self.drafts, result, events))
        except (DraftError, OSError) as exc:
            log.warning("learned skills: the outcome of run %s was not recorded: %s", run_id, exc)
        drafted = None
        decision = should_draft(self.draft_skills, result, events)
        if decision and not any(m is not None for m in self.models):
            log.debug("no skill draft from run %s: no model for side calls (a scripted model)", run_id)
        elif decision:
            drafted = await self._draft(run_id, goal, events, redactor)
        else:
            log.debug("no skill draft from run %s: %s", run_id, decision.reason)
        return LearningReport(drafted, changed)

    async def _draft(
        self, run_id: str, goal: str, events: Sequence[RunEvent], redactor: Redactor | None
    ) -> SkillDraft | None:
        try:
            if len(self.drafts.pending()) >= MAX_PENDING:
                log.info("no skill draft from run %s: %d drafts are already waiting", run_id, MAX_PENDING)
                return None
        except DraftError as exc:
            log.warning("no skill draft from run %s: %s", run_id, exc)
            return None
        text = await SkillDrafter(self.models).draft(goal, events, redactor)
        if text is None:
            return None
        try:
            return self.drafts.add(
                text.name, text.description, text.body, run_id=run_id, goal=goal, taken=self.taken_names()
            )
        except (DraftError, OSError) as exc:
            log.warning("skill draft from run %s not stored: %s", run_id, exc)
            return None
