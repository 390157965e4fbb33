"""`RunOptions`: how one run behaves, as the assembly (or a test) sets it.

Its own module so the run's parts (mika.run.acting) read it without importing the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.memory.store import MemoryStore
from mika.model.retry import RetryPolicy
from mika.record.redactor import Redactor
from mika.tool.surface import SurfaceLayer

if TYPE_CHECKING:
    from mika.knowledge.learning.learning import SkillLearning


@dataclass
class RunOptions:
    autonomous: bool = False
    pacing: bool = True  # outward pacing; tests turn it off
    # [general] pace for screen actions (dwell, careful apps' screen cap); the assembly
    # passes the setting, everything else (tests) acts at once.
    pace: str = "fast"
    app_pace: Callable[[str], str] | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    state_dir: Path | None = None  # None: no record on disk
    surface: SurfaceLayer | None = None
    redactor: Redactor | None = None
    clock: Callable[[], float] = time.monotonic
    # After delivery, judge done / partial / not possible: None = only when a light model is given.
    judge_outcome: bool | None = None
    # The seed's final check (send an answer with unread facts back once); off by default.
    review_final_answer: bool = False
    # Learned skills (seed §11): outcomes of the learned skills a run read, and a draft
    # from a verified run when [learning] skills is on. None: neither (tests, child runs).
    learning: SkillLearning | None = None
    # [memory] use: the store whose relevant items open the run; None: no memory.
    memory: MemoryStore | None = None
    # [memory] auto_extract: after an answered run of a conversation that read no web page,
    # the light model (main as fallback) proposes items from the user's words. A side call:
    # the assembly leaves it off for a scripted model.
    memory_extract: bool = False
    # App/site knowledge and skills, loaded once per process by the assembly; None: none.
    knowledge: KnowledgeCatalog | None = None
    skills: SkillCatalog | None = None
    # Lines for the user at the run's start (broken knowledge files), as warning notices.
    start_notices: tuple[str, ...] = ()
    # The behaviour before issue 16, only for benchmarks/context_cache.py's baseline in the
    # same run: no capability preloads from the task's words, and the last budgeted step
    # offers only end_not_done (which changes the tool list, so the cached prefix breaks).
    cache_baseline: bool = False
    # [run] replay (seed §9): a goal matching a recorded route is replayed before the first
    # model call, and a verified run is recorded as a route (under state_dir's routes/).
    replay: bool = False
