"""What this machine offers runs: settings and attached devices (`RunEnvironment`).

Its own module so that both the capability list (mika.assembly.capabilities) and the
child runs (mika.assembly.children) can read it without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.memory.store import MemoryStore
from mika.runtypes.spec import RunSpec
from mika.tool.capability import Capability
from mika.tool.children import ChildRuns


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
    # spawn_agent's children (mika.assembly.children); offered only where offers_children says.
    children: ChildRuns | None = None
