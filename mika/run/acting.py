"""How a run acts: its tool registry, groups, approval, pacing, dispatcher and executor,
and the ToolContext its tools get — built once here for a model-driven run (TaskRun) and
for a session whose tool calls come from outside a model turn (ToolSession, the MCP
server's phone tools). Both act through the same ActionExecutor in the same order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mika.action.approval import ApprovalPolicy
from mika.action.confirmation import ConfirmationGate
from mika.action.executor import ActionExecutor
from mika.action.input_gate import InputGate
from mika.action.pace import ScreenPace
from mika.action.pacing import OutwardPacing
from mika.knowledge.notice import NoticePolicy
from mika.observe.evidence import EvidenceLedger
from mika.record.events import RunEvent, ToolsOpened
from mika.runtypes.inbox import RunInbox
from mika.runtypes.spec import RunSpec
from mika.tool.capability import Capability
from mika.tool.context import AppClaims, ToolContext, services_by_type
from mika.tool.dispatcher import ToolDispatcher
from mika.tool.groups import ToolGroups
from mika.tool.registry import ToolRegistry
from mika.tool.surface import NoSurface, join_surfaces

if TYPE_CHECKING:
    from mika.record.recorder import RunRecorder
    from mika.run.options import RunOptions


@dataclass
class Acting:
    registry: ToolRegistry
    groups: ToolGroups
    evidence: EvidenceLedger
    approval: ApprovalPolicy
    executor: ActionExecutor
    notices: NoticePolicy
    ctx: ToolContext
    # The capabilities' prompt sections by tool group (the system prompt's parts).
    sections: dict[str, str]


def build_acting(
    spec: RunSpec,
    capabilities: Sequence[Capability],
    options: RunOptions,
    *,
    inbox: RunInbox,
    emit: Callable[[RunEvent], None],
    recorder: RunRecorder | None,
    preload: Sequence[str] = (),
    app_claims: AppClaims | None = None,
) -> Acting:
    tools = [t for cap in capabilities for t in cap.tools()]
    registry = ToolRegistry.for_run(tools, spec)
    groups = ToolGroups(registry.tools, preload=tuple(preload))
    for group in groups.opened_order:
        emit(ToolsOpened(run_id=spec.id, conversation_id=spec.conversation_id, group=group, preloaded=True))
    evidence = EvidenceLedger()
    gate = None if options.autonomous else ConfirmationGate()
    approval = ApprovalPolicy(spec.provenance, gate, options.autonomous)
    # The one payment judgement of every input that reaches a screen: a capability whose
    # port sends inputs is handed it (optional `bind_gate`, looked up like `start`), and
    # its ports call it before each input they send.
    input_gate = InputGate(approval)
    for cap in capabilities:
        bind_gate = getattr(cap, "bind_gate", None)
        if bind_gate is not None:
            bind_gate(input_gate)
            input_gate.cover(cap.id)
    pacing = OutwardPacing(clock=options.clock, enabled=options.pacing)
    dispatcher = ToolDispatcher(evidence)
    screen_pace = (
        None
        if options.pace == "fast"
        else ScreenPace.for_run(options.pace, options.clock, options.app_pace or (lambda _package: ""))
    )
    executor = ActionExecutor(
        registry,
        groups,
        dispatcher,
        approval,
        pacing,
        read_only=spec.read_only,
        screen_pace=screen_pace,
        # [run] replay: a run that may become a route notes what each replayable call acted on.
        record_anchors=options.replay and options.state_dir is not None,
        gate=input_gate,
    )
    # Per run: which knowledge was given (the loop and the lookup tools share it).
    notices = NoticePolicy(options.knowledge, options.skills)
    services = services_by_type([approval, input_gate, notices, *(s for cap in capabilities for s in cap.services())])
    sections: dict[str, str] = {}
    for cap in capabilities:
        section = cap.prompt_section()
        if section and cap.group:
            sections[cap.group] = section
    # Each capability with a screen may bring its SurfaceLayer (the phone's, the web's);
    # several are joined, each call reaching only its own. An explicit one wins.
    surface = options.surface or join_surfaces({c.id: c.surface for c in capabilities if c.surface is not None})
    ctx = ToolContext(
        spec=spec,
        inbox=inbox,
        emit=emit,
        evidence=evidence,
        surface=surface or NoSurface(),
        services=services,
        clock=options.clock,
        save_frame=recorder.save_frame if recorder else None,
        apps=app_claims,
    )
    # Composite tools (do_steps) send their sub-actions back through the executor.
    ctx.perform = executor.perform
    ctx.tools = registry
    return Acting(registry, groups, evidence, approval, executor, notices, ctx, sections)
