"""Fixtures of the sandbox tests: real bubblewrap, a workspace in a tmp state folder, and a
ToolContext to call the tools with.

Without a working bwrap the tests skip with the reason; CI installs Debian's bubblewrap and
sets MIKA_REQUIRE_SANDBOX=1, so there a missing or broken bwrap fails instead of skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mika.cap.sandbox import SandboxCapability, Workspace
from mika.cap.sandbox.bwrap import BwrapSandbox, sandbox_problem
from mika.observe.evidence import EvidenceLedger
from mika.runtypes.inbox import RunInbox
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.tool.context import ToolContext, services_by_type


@pytest.fixture(scope="session")
def bwrap_ok() -> None:
    problem = sandbox_problem()
    if problem:
        if os.environ.get("MIKA_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"MIKA_REQUIRE_SANDBOX=1 but the sandbox cannot run: {problem}")
        pytest.skip(f"no sandbox here: {problem}")


@pytest.fixture
def port(bwrap_ok) -> BwrapSandbox:
    return BwrapSandbox(network=False)


@pytest.fixture
def state(tmp_path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def workspace(state) -> Workspace:
    ws = Workspace.for_conversation(state, "conv1")
    ws.ensure()
    return ws


@pytest.fixture
def cap(port, workspace, tmp_path) -> SandboxCapability:
    return SandboxCapability(port, workspace, cpu_seconds=30, share_dir=tmp_path / "Downloads" / "Mika")


def tool_ctx(cap: SandboxCapability, events: list | None = None, *, read_only: bool = False) -> ToolContext:
    spec = RunSpec(
        goal="x",
        provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED),
        conversation_id="conv1",
        read_only=read_only,
    )
    sink = events if events is not None else []
    return ToolContext(
        spec=spec,
        inbox=RunInbox(),
        emit=sink.append,
        evidence=EvidenceLedger(),
        services=services_by_type(cap.services()),
    )


def tool(cap: SandboxCapability, name: str):
    return next(t for t in cap.tools() if t.name == name)
