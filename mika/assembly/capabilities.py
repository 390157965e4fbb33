"""Which capabilities a run gets, built for its spec: the one place that knows them all."""

from __future__ import annotations

from mika.assembly.children import offers_children
from mika.assembly.environment import RunEnvironment
from mika.cap.general import GeneralCapability
from mika.memory.utterances import NOT_THE_USER
from mika.runtypes.spec import RunOrigin, RunSpec
from mika.tool.capability import Capability
from mika.trigger.store import TriggerStore

# Runs a person started from a conversation: the only ones that may make schedules
# (not scheduled runs themselves, MCP clients or child runs).
SCHEDULING_ORIGINS = frozenset({RunOrigin.UI, RunOrigin.CLI})


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
        children=env.children if env.children is not None and offers_children(spec, env) else None,
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
