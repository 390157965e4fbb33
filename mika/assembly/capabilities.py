"""Which capabilities a run gets, built for its spec: the one place that knows them all."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mika.cap.general import GeneralCapability
from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.memory.store import MemoryStore
from mika.memory.utterances import NOT_THE_USER
from mika.runtypes.spec import RunOrigin, RunSpec
from mika.tool.capability import Capability
from mika.trigger.store import TriggerStore

# Runs a person started from a conversation: the only ones that may make schedules
# (not scheduled runs themselves, MCP clients or child runs).
SCHEDULING_ORIGINS = frozenset({RunOrigin.UI, RunOrigin.CLI})


@dataclass
class RunEnvironment:
    """What is available on this machine for runs: settings and attached devices."""

    autonomous: bool = False
    # Where conversations live (for history_read); None: runs outside conversations.
    state_dir: Path | None = None
    # Opens the phone capability for one run (a serial picked once per process), or None
    # when no phone is to be used.
    phone: Callable[[], Capability] | None = None
    # Builds the web capability (Mika's own browser) for one run; None when the web is
    # off or no browser can be found. Cheap: the browser starts on the first web tool.
    web: Callable[[RunSpec], Capability] | None = None
    # Builds the sandbox capability (bubblewrap around the conversation's workspace) for one
    # run; None when [sandbox] enabled is off or bwrap does not work here.
    sandbox: Callable[[RunSpec], Capability] | None = None
    # Builds the MCP capability (the tools of [mcp.servers.*]) for one run; None when no
    # server is configured. Cheap: servers are started when the run starts.
    mcp: Callable[[RunSpec], Capability] | None = None
    # Extra capabilities handed in by the caller (tests, embedding programs).
    extra: Sequence[Capability] = field(default_factory=tuple)
    # [memory] use: the store memory_search/memory_save work on; None: no memory tools.
    memory: MemoryStore | None = None
    # The catalogs behind knowledge_search/_read and skill_search/_read; None: no such tools.
    knowledge: KnowledgeCatalog | None = None
    skills: SkillCatalog | None = None


def capabilities_for(spec: RunSpec, env: RunEnvironment) -> list[Capability]:
    wanted = set(spec.capabilities)
    history = env.state_dir if spec.conversation_id and env.state_dir is not None else None
    general = GeneralCapability(
        confirmations=not env.autonomous,
        history_from=history,
        memory=env.memory,
        memory_writes=spec.provenance.origin not in NOT_THE_USER,
        knowledge=env.knowledge,
        skills=env.skills,
        schedules=_schedules(spec, env),
    )
    caps: list[Capability] = [general]
    if env.phone is not None and (not wanted or "phone" in wanted):
        caps.append(env.phone())
    if env.web is not None and (not wanted or "web" in wanted):
        caps.append(env.web(spec))
    if env.sandbox is not None and (not wanted or "sandbox" in wanted):
        caps.append(env.sandbox(spec))
    if env.mcp is not None and (not wanted or "mcp" in wanted):
        caps.append(env.mcp(spec))
    for cap in env.extra:
        if not wanted or cap.id in wanted:
            caps.append(cap)
    return caps


def _schedules(spec: RunSpec, env: RunEnvironment) -> TriggerStore | None:
    if env.state_dir is None or not spec.conversation_id or spec.provenance.origin not in SCHEDULING_ORIGINS:
        return None
    return TriggerStore(env.state_dir)
