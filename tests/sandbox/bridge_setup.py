"""A run with the simulated phone (through the real adb server) and real bubblewrap, and the
bridge between them, built the way runs are (`build_acting`: the one action entry); the
commands go through run_command like the model's."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mika.action.origin import Origin
from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.cap.sandbox import SandboxCapability
from mika.cap.sandbox.bridge import SandboxBridge
from mika.model.messages import ToolCall
from mika.run.acting import Acting, build_acting
from mika.run.task_run import RunOptions
from mika.runtypes.inbox import RunInbox
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.tool.declaration import ToolOutcome


def phone_capability(phone) -> PhoneCapability:
    port = AdbPort(
        phone.serial,
        phone.server.client(),
        backend="u2",
        reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=3.0),
    )
    return PhoneCapability(port)


@dataclass
class BridgeRun:
    acting: Acting
    events: list[Any] = field(default_factory=list)
    _n: int = 0

    async def command(self, command: str, timeout: int = 60) -> ToolOutcome:
        self._n += 1
        self.acting.ctx.step = self._n
        call = ToolCall(f"cmd-{self._n}", "run_command", {"command": command, "timeout": timeout})
        return await self.acting.executor.perform(call, self.acting.ctx, Origin.MODEL)

    def calls(self, origin: str = "sandbox") -> list[Any]:
        return [e for e in self.events if getattr(e, "type", "") == "tool_call" and e.origin == origin]

    def results(self, name: str) -> list[Any]:
        return [e for e in self.events if getattr(e, "type", "") == "tool_result" and e.name == name]


def bridge_run(
    sandbox: SandboxCapability,
    phone: PhoneCapability | None,
    *,
    attendance: Attendance = Attendance.UNATTENDED,
    bridge: SandboxBridge | None = None,
) -> BridgeRun:
    sandbox.add_extras((bridge or SandboxBridge()).extras)
    spec = RunSpec(goal="x", provenance=RunProvenance(RunOrigin.CLI, attendance), conversation_id="conv1")
    extra = [c for c in (phone, sandbox) if c is not None]
    caps = capabilities_for(spec, RunEnvironment(extra=extra))
    run = BridgeRun(acting=None)  # type: ignore[arg-type]
    run.acting = build_acting(
        spec, caps, RunOptions(pacing=False), inbox=RunInbox(), emit=run.events.append, recorder=None
    )
    return run


def element_number(text: str, label: str) -> int:
    """The number of the element labelled `label` in a `mika phone dump` printed by a command."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and row.get("label") == label:
                return int(row["n"])
    raise AssertionError(f"no element {label!r} in:\n{text}")


def exit_code(out: ToolOutcome) -> int | None:
    return out.data.get("exit_code")
