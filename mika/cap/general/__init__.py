"""General tools, always offered: asking, handing over, ending, waiting, confirming, and
looking up knowledge and skills when the catalogs are loaded."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mika.cap.general.ask_user import AskUser, HandToUser
from mika.cap.general.confirmation import RequestConfirmation
from mika.cap.general.history import HistoryRead
from mika.cap.general.lookup import lookup_tools
from mika.cap.general.memory_tools import MemorySave, MemorySearch
from mika.cap.general.more_tool import MoreTools
from mika.cap.general.outcome_tools import EndNotDone
from mika.cap.general.schedule_tool import ScheduleTask
from mika.cap.general.spawn_tool import SpawnAgent
from mika.cap.general.tier_preload import wants_schedules
from mika.cap.general.wait import Wait
from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.memory.store import MemoryStore
from mika.runtypes.spec import RunSpec
from mika.tool.children import ChildRuns
from mika.tool.declaration import AgentTool
from mika.trigger.store import TriggerStore


class GeneralCapability:
    id = "general"
    group = None
    surface = None  # no screen of its own

    def __init__(
        self,
        *,
        confirmations: bool,
        history_from: Path | None = None,
        memory: MemoryStore | None = None,
        memory_writes: bool = True,
        knowledge: KnowledgeCatalog | None = None,
        skills: SkillCatalog | None = None,
        children: ChildRuns | None = None,
        schedules: TriggerStore | None = None,
    ) -> None:
        # request_confirmation exists only while asking (not autonomous).
        self._confirmations = confirmations
        # history_read exists only for runs of a conversation whose turns are on disk.
        self._history_from = history_from
        # memory_search when [memory] use is on; memory_save too unless the run's words are
        # not the user's (a child run's goal is its parent model's). Read-only runs lose
        # memory_save through the registry (it is a write).
        self._memory = memory
        self._memory_writes = memory_writes
        # knowledge_* / skill_* exist when the assembly loaded the catalogs.
        self._knowledge = knowledge
        self._skills = skills
        # spawn_agent exists only when the assembly judged this run may have children
        # (an attended conversation run with the web or the sandbox; never a child).
        self._children = children
        # schedule_task only for runs a person started from a conversation (the assembly
        # hands a store to those alone); the registry also drops it from unattended runs.
        self._schedules = schedules

    def tools(self) -> Sequence[AgentTool]:
        tools: list[AgentTool] = [AskUser(), EndNotDone(), Wait(), HandToUser()]
        if self._confirmations:
            tools.insert(1, RequestConfirmation())
        if self._history_from is not None:
            tools.append(HistoryRead(self._history_from))
        tools += lookup_tools(self._knowledge, self._skills)
        if self._memory is not None:
            tools.append(MemorySearch(self._memory))
            if self._memory_writes:
                tools.append(MemorySave(self._memory))
        if self._children is not None:
            tools.append(SpawnAgent())
        if self._schedules is not None:
            tools.append(ScheduleTask(self._schedules))
        # Offered only while one of the tier's tools is in the run and the tier is folded.
        tools.append(MoreTools())
        return tools

    def prompt_section(self) -> str | None:
        return None

    def preload(self, spec: RunSpec, knowledge: KnowledgeCatalog | None = None) -> tuple[str, ...]:
        """The general tier from the first request when the task asks for something later
        or repeatedly (and this run may make schedules)."""
        return ("more",) if self._schedules is not None and wants_schedules(spec.goal) else ()

    def services(self) -> Sequence[object]:
        return () if self._children is None else (self._children,)

    async def close(self) -> None:
        return None
