"""The Linux sandbox capability (seed §6 sandbox): a per-conversation workspace behind
bubblewrap, its tools, and the hook the phone bridge uses to reach every command.

`port.py` is the line between the tools and what runs commands (`SandboxPort`); `bwrap.py`
the one implementation. `workspace.py` checks every path the file tools are given;
`guard.py` stops a command loop and ends the run's commands once its CPU time is spent;
`session.py` is one run's sandbox (the service the tools find), with `extras`, the
per-command binds and variables another part of the run adds (the bridge's socket).

Group "sandbox": run_command opens it (EntryKind.OPENS); a read-only run has no
run_command, so the group has no entry and is open from the start (seed §4); a workspace
that already holds files preloads it (`preload`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from mika.cap.sandbox.guard import SandboxGuard
from mika.cap.sandbox.port import Bind, CommandResult, Extras, SandboxPort, SandboxUnavailable
from mika.cap.sandbox.session import ExtrasProvider, SandboxSession
from mika.cap.sandbox.tools.bundled import BundledScripts, RunBundledScript
from mika.cap.sandbox.tools.command import RunCommand
from mika.cap.sandbox.tools.files import ReadFile, SearchFiles, WriteFile
from mika.cap.sandbox.tools.share import ShareFile
from mika.cap.sandbox.workspace import Workspace
from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.resources import prompt
from mika.runtypes.spec import RunSpec
from mika.tool.declaration import AgentTool

__all__ = [
    "Bind",
    "CommandResult",
    "Extras",
    "ExtrasProvider",
    "SandboxCapability",
    "SandboxPort",
    "SandboxSession",
    "SandboxUnavailable",
    "Workspace",
    "open_sandbox",
]

log = logging.getLogger(__name__)


class SandboxCapability:
    id = "sandbox"
    group = "sandbox"
    surface = None

    def __init__(
        self,
        port: SandboxPort,
        workspace: Workspace,
        *,
        cpu_seconds: float = 300,
        knowledge: KnowledgeCatalog | None = None,
        skills: SkillCatalog | None = None,
        extras: Sequence[ExtrasProvider] = (),
        share_dir: Path | None = None,
    ) -> None:
        self.port = port
        self.workspace = workspace
        self.session = SandboxSession(port, workspace, SandboxGuard(float(cpu_seconds)), extras, share_dir)
        tools: list[AgentTool] = [RunCommand(), ReadFile(), WriteFile(), SearchFiles(), ShareFile()]
        if knowledge is not None or skills is not None:
            tools.append(RunBundledScript(BundledScripts(knowledge, skills)))
        self._tools = tools

    def tools(self) -> Sequence[AgentTool]:
        return list(self._tools)

    def prompt_section(self) -> str | None:
        return prompt("capabilities/sandbox.md")

    def services(self) -> Sequence[object]:
        return (self.session,)

    def preload(self, spec: RunSpec, knowledge: KnowledgeCatalog | None = None) -> tuple[str, ...]:
        """Open from the first request when the conversation's workspace already holds
        files (seed: 带着工作区里的文件时的沙箱), or when the run is read-only (no
        run_command: the group has no entry to open it)."""
        if spec.read_only:
            return (self.group,)
        if self.workspace.has_files():
            log.info("run %s preloads the sandbox tools: its workspace holds files", spec.id)
            return (self.group,)
        return ()

    def add_extras(self, provider: ExtrasProvider) -> None:
        """The bridge's hook: `provider(ctx)` is entered around every command of this run."""
        self.session.add_extras(provider)

    async def close(self) -> None:
        return None


def open_sandbox(
    state_dir: Path,
    conversation_id: str,
    *,
    network: bool,
    cpu_seconds: float,
    knowledge: KnowledgeCatalog | None = None,
    skills: SkillCatalog | None = None,
    extras: Sequence[ExtrasProvider] = (),
    share_dir: Path | None = None,
) -> SandboxCapability:
    """The sandbox for one run of a conversation, over bubblewrap (nothing starts until a
    command runs). Raises SandboxUnavailable without bwrap."""
    from mika.cap.sandbox.bwrap import BwrapSandbox

    return SandboxCapability(
        BwrapSandbox(network=network),
        Workspace.for_conversation(state_dir, conversation_id),
        cpu_seconds=cpu_seconds,
        knowledge=knowledge,
        skills=skills,
        extras=extras,
        share_dir=share_dir,
    )
