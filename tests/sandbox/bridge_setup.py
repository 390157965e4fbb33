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
    autonomous: bool = False,
) -> BridgeRun:
    sandbox.add_extras((bridge or SandboxBridge()).extras)
    spec = RunSpec(goal="x", provenance=RunProvenance(RunOrigin.CLI, attendance), conversation_id="conv1")
    extra = [c for c in (phone, sandbox) if c is not None]
    caps = capabilities_for(spec, RunEnvironment(extra=extra))
    run = BridgeRun(acting=None)  # type: ignore[arg-type]
    run.acting = build_acting(
        spec,
        caps,
        RunOptions(pacing=False, autonomous=autonomous),
        inbox=RunInbox(),
        emit=run.events.append,
        recorder=None,
    )
    return run


def element_number(text: str, label: str, *, prefix: bool = False) -> int:
    """The number of the element labelled `label` in a `mika phone dump` printed by a command."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                row = json.loads(line)
            except ValueError:
                continue
            found = str(row.get("label", "")) if isinstance(row, dict) else ""
            if found == label or (prefix and found.startswith(label)):
                return int(row["n"])
    raise AssertionError(f"no element {label!r} in:\n{text}")


def exit_code(out: ToolOutcome) -> int | None:
    return out.data.get("exit_code")


# A raw client (not bin/mika): sends what it is told, so the server's own checks are seen.
# argv: token ("env" = this command's) and an optional request size to pad to.
RAW_CLIENT = """
import json, os, socket, sys
token = os.environ.get("MIKA_BRIDGE_TOKEN", "") if sys.argv[1] == "env" else sys.argv[1]
req = {"token": token, "op": sys.argv[2] if len(sys.argv) > 2 else "apps", "args": {}}
if len(sys.argv) > 3:
    req["pad"] = "x" * int(sys.argv[3])
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[4] if len(sys.argv) > 4 else os.environ["MIKA_BRIDGE"])
s.sendall((json.dumps(req) + "\\n").encode())
out = b""
while True:
    c = s.recv(65536)
    if not c:
        break
    out += c
print(out.decode().strip())
"""


def last_json(text: str) -> dict[str, Any]:
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            return dict(json.loads(line))
    raise AssertionError(f"no JSON line in:\n{text}")
