"""`ToolSession`: tool calls that come from outside a model turn (an MCP client driving
the phone itself), each sent through the run's ActionExecutor with the caller's Origin.

A session is a run without a model: it has a spec (its provenance says who can approve),
the capabilities the assembly opened for it, one record (`runs/<time>-<id>/`, the same
events a model's run writes) and the same guards, effects, staleness checks and payment
rule as a model's calls, because it acts through the same executor (mika.run.acting).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

from mika.action.confirmation import Consent, setting_consent
from mika.action.origin import Origin
from mika.model.messages import ToolCall
from mika.record.events import RunEvent, RunOutcome, RunStarted
from mika.record.recorder import RunRecorder
from mika.run.acting import Acting, build_acting
from mika.run.task_run import RunOptions
from mika.runtypes.inbox import RunInbox
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import RunSpec
from mika.tool.capability import Capability
from mika.tool.declaration import AgentTool, ToolOutcome

log = logging.getLogger(__name__)


class ToolSession:
    def __init__(self, spec: RunSpec, capabilities: Sequence[Capability], options: RunOptions | None = None) -> None:
        self.spec = spec
        self.capabilities = list(capabilities)
        self.options = options or RunOptions()
        self.inbox = RunInbox()
        self._sinks: list[Callable[[RunEvent], None]] = []
        self.recorder: RunRecorder | None = None
        self._acting: Acting | None = None
        self.calls = 0
        self.closed = False
        # One call at a time: element numbers and consents are about "the screen now".
        self._lock = asyncio.Lock()

    # -- events -----------------------------------------------------------------------

    def subscribe(self, sink: Callable[[RunEvent], None]) -> Callable[[], None]:
        self._sinks.append(sink)
        return lambda: self._sinks.remove(sink) if sink in self._sinks else None

    def emit(self, event: RunEvent) -> None:
        for sink in list(self._sinks):
            try:
                sink(event)
            except Exception:  # one broken subscriber must not break the session
                log.exception("event subscriber failed on %s", event.type)

    # -- life -------------------------------------------------------------------------

    def start(self) -> None:
        """Open the record and the acting parts; called on the event loop that will act."""
        if self._acting is not None:
            return
        self.inbox.bind(asyncio.get_running_loop())
        opts = self.options
        if opts.state_dir is not None:
            self.recorder = RunRecorder(opts.state_dir, self.spec.id, opts.redactor)
            self.recorder.begin(
                {
                    "goal": self.spec.goal,
                    "conversation_id": self.spec.conversation_id,
                    "origin": self.spec.provenance.origin.value,
                    "started_at": time.time(),
                    "model": "",
                }
            )
            self._sinks.insert(0, self.recorder)
        self._acting = build_acting(
            self.spec, self.capabilities, opts, inbox=self.inbox, emit=self.emit, recorder=self.recorder
        )
        self.emit(
            RunStarted(
                run_id=self.spec.id,
                conversation_id=self.spec.conversation_id,
                goal=self.spec.goal,
                origin=self.spec.provenance.origin.value,
                attendance=self.spec.provenance.attendance.value,
                capabilities=tuple(c.id for c in self.capabilities),
                read_only=self.spec.read_only,
                model="",
            )
        )

    @property
    def acting(self) -> Acting:
        if self._acting is None:
            raise RuntimeError("the tool session is not started")
        return self._acting

    def tool(self, name: str) -> AgentTool | None:
        return self.acting.registry.get(name)

    async def call(self, name: str, arguments: dict[str, Any], origin: Origin = Origin.MCP) -> ToolOutcome:
        """One tool call through the action entry; each call is a step of the record."""
        if self.closed:
            return ToolOutcome.error("session_closed", "This tool session has ended.")
        self.start()
        acting = self.acting
        async with self._lock:
            self.calls += 1
            acting.ctx.step = self.calls
            call = ToolCall(id=f"{origin.value}-{secrets.token_hex(4)}", name=name, arguments=dict(arguments))
            return await acting.executor.perform(call, acting.ctx, origin)

    def grant(self, *, app: str, amount: str, what: str, origin: Origin = Origin.MCP, setting: str = "") -> bool:
        """A person's consent, given outside a model turn (an MCP client's elicitation),
        for exactly the next matching payment step started by `origin`; False when this
        session has no confirmation gate (autonomous mode: nothing is asked)."""
        gate = self.acting.approval.gate
        if gate is None:
            return False
        if setting:  # a risky setting change (the held-back step named it)
            gate.grant(setting_consent(setting, what, self.calls, frozenset({origin})))
            return True
        gate.grant(Consent(app=app, kind="", amount=amount, what=what, step=self.calls, spent_by=frozenset({origin})))
        return True

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._acting is not None:
            answer = f"Tool session ended after {self.calls} call(s)."
            self.emit(
                RunOutcome(
                    run_id=self.spec.id,
                    conversation_id=self.spec.conversation_id,
                    status=OutcomeStatus.ANSWERED.value,
                    answer=answer,
                    steps=self.calls,
                )
            )
        for cap in self.capabilities:
            try:
                await cap.close()
            except Exception:
                log.exception("closing capability %s failed", cap.id)
        if self.recorder is not None:
            self.recorder.close({"outcome": OutcomeStatus.ANSWERED.value, "steps": self.calls, "ended_at": time.time()})
