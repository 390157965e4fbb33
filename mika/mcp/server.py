"""`McpFace`: Mika offered to MCP clients, on the SDK's low-level server.

Tools: `run_task` (a whole phone task, on the assembly's TaskCenter like every face's
runs: progress per step, cancellation stops the run, payment steps asked through the
client's elicitation or refused) and the phone's own tools for clients that drive the
phone themselves — their names, descriptions and schemas are the phone capability's
declarations, and every call goes through the action entry with `Origin.MCP`
(mika.run.tool_session). Resources: `mika://screen` and `mika://runs/{id}`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from typing import IO, Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from mika import __version__
from mika.action.approval import BLOCKED
from mika.action.approval_summary import ScreenSummary
from mika.action.origin import Origin
from mika.assembly import Assembly
from mika.mcp.approval import PendingQuestions, ask_payment_step, can_elicit, declares_elicitation
from mika.mcp.listing import INSTRUCTIONS, PHONE_TOOLS, tool_entries
from mika.mcp.texts import t
from mika.record.events import ApprovalEvent, ConfirmationAsked, RunEvent, ToolCalled
from mika.record.recorder import find_run, read_events
from mika.run.conversations import BadConversationId, ConversationStore
from mika.run.outbox import Delivery, Outbox
from mika.run.result_view import result_dict
from mika.run.task_center import TaskCenter
from mika.run.tool_session import ToolSession
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.terminal_text import for_terminal
from mika.tool.declaration import AgentTool, ToolOutcome

log = logging.getLogger(__name__)

SCREEN_URI = "mika://screen"
RUNS_TEMPLATE = "mika://runs/{id}"


class _McpChannel:
    """Deliveries of run_task's own runs travel in the tool result; anything else (an
    answer an earlier, interrupted process left unsaid) is a line on stderr."""

    name = "mcp"

    def __init__(self, err: IO[str]) -> None:
        self.err = err
        self.current: set[str] = set()

    def send(self, delivery: Delivery) -> None:
        if delivery.run_id in self.current and not delivery.recovered:
            return
        self.err.write(for_terminal(f"[{delivery.conversation_id or 'mika'}] {delivery.display_text}") + "\n")
        self.err.flush()


class McpFace:
    def __init__(self, asm: Assembly, err: IO[str]) -> None:
        self.asm = asm
        self.err = err
        self.channel = _McpChannel(err)
        self.conversations = ConversationStore(asm.state_dir)
        self.outbox = Outbox(asm.state_dir, [self.channel])
        self.center: TaskCenter = asm.task_center(outbox=self.outbox, conversations=self.conversations, limit=1)
        # The phone sessions of clients driving the phone themselves: one for clients
        # that can be asked about payments, one for those that cannot (their provenance).
        self._sessions: dict[bool, ToolSession] = {}
        self.questions = PendingQuestions()
        self.server: Server[Any] = Server(
            "mika",
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_templates,
            on_read_resource=self._read_resource,
        )

    @property
    def has_phone(self) -> bool:
        return bool(self.asm.device.serial)

    # -- the phone sessions ----------------------------------------------------------------

    def session(self, attended: bool) -> ToolSession:
        found = self._sessions.get(attended)
        if found is None:
            provenance = RunProvenance(RunOrigin.MCP, Attendance.PRESENT if attended else Attendance.UNATTENDED)
            spec = RunSpec(goal=t("session_goal"), provenance=provenance, capabilities=("phone",))
            found = self.asm.make_tool_session(spec)
            found.start()
            self._sessions[attended] = found
        return found

    def phone_tools(self) -> list[AgentTool]:
        if not self.has_phone:
            return []
        session = self.session(attended=False)
        return [tool for name in PHONE_TOOLS if (tool := session.tool(name)) is not None]

    # -- tools --------------------------------------------------------------------------------

    async def _list_tools(self, rctx: Any, params: Any) -> types.ListToolsResult:
        # The same entries the front desk answers the first tools/list with (mika.mcp.listing).
        tools = []
        for entry in tool_entries(self.has_phone):
            hints = entry["annotations"]
            tools.append(
                types.Tool(
                    name=entry["name"],
                    description=entry["description"],
                    input_schema=entry["inputSchema"],
                    annotations=types.ToolAnnotations(
                        read_only_hint=hints["readOnlyHint"],
                        destructive_hint=hints["destructiveHint"],
                        open_world_hint=hints["openWorldHint"],
                    ),
                )
            )
        return types.ListToolsResult(tools=tools)

    async def _call_tool(
        self, rctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        args = dict(params.arguments or {})
        if params.name == "run_task":
            return await self.run_task(rctx, args)
        if params.name in PHONE_TOOLS and self.has_phone:
            return await self.phone_call(rctx, params.name, args, params)
        offered = ", ".join(["run_task", *(t.name for t in self.phone_tools())])
        return _error("unknown_tool", f"There is no tool named {params.name!r}. Tools: {offered}.")

    async def phone_call(
        self, rctx: Any, name: str, args: dict[str, Any], params: Any = None
    ) -> types.CallToolResult | types.InputRequiredResult:
        attended = declares_elicitation(rctx)
        session = self.session(attended)
        answered = self.questions.answer(params, name, args) if attended else None
        if answered is not None:
            # The retry of a call whose payment step was put to the client's user.
            question, allowed = answered
            if not allowed:
                return _tool_result(ToolOutcome.error("refused", t("pay_declined")))
            seen = question.seen
            _grant(session, seen)
            return _tool_result(await session.call(name, args, Origin.MCP))
        outcome = await session.call(name, args, Origin.MCP)
        if outcome.code == "confirmation_required" and attended:
            # A payment step held back: the client's user sees what the screen showed.
            seen = session.acting.approval.seen or ScreenSummary(
                amount=str(outcome.data.get("amount", "")), app=str(outcome.data.get("app", ""))
            )
            session.acting.approval.seen = None
            if not rctx.session.can_send_request:
                return self.questions.ask(name, args, seen)  # 2026-07-28: asked in the result
            if await ask_payment_step(rctx, seen.line()):
                _grant(session, seen)
                outcome = await session.call(name, args, Origin.MCP)
            else:
                outcome = ToolOutcome.error("refused", t("pay_declined"))
        elif outcome.code == "approval_unavailable":
            outcome = ToolOutcome.error("approval_unavailable", f"{outcome.text}\n\n{t('pay_unavailable')}")
        return _tool_result(outcome)

    async def run_task(self, rctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        goal = args.get("goal")
        if not isinstance(goal, str) or not goal.strip():
            return _error("bad_arguments", "run_task needs 'goal': the task in words, e.g. 'turn on dark mode'.")
        max_steps = args.get("max_steps") or 0
        if not isinstance(max_steps, int) or max_steps < 0:
            return _error("bad_arguments", "'max_steps' must be a positive whole number.")
        conversation_id = args.get("conversation_id")
        if conversation_id:
            if not isinstance(conversation_id, str) or not _known(self.conversations, conversation_id):
                return _error("unknown_conversation", t("no_conversation", id=conversation_id))
        else:
            conversation_id = self.conversations.create().id
        attended = can_elicit(rctx)
        provenance = RunProvenance(RunOrigin.MCP, Attendance.PRESENT if attended else Attendance.UNATTENDED)
        events: asyncio.Queue[RunEvent] = asyncio.Queue()
        run_ids: set[str] = set()
        blocked: list[str] = []

        def sink(event: RunEvent) -> None:
            if event.run_id in run_ids:
                events.put_nowait(event)

        unsubscribe = self.center.subscribe(sink)
        submission = self.center.submit(
            conversation_id,
            goal,
            provenance=provenance,
            read_only=bool(args.get("read_only", False)),
            step_budget=max_steps,
        )
        run_id = submission.run_id
        run_ids.add(run_id)
        self.channel.current.add(run_id)
        pump = asyncio.create_task(self._pump(rctx, events, conversation_id, max_steps, blocked))
        finished = False
        try:
            result = await self.center.wait_run(run_id)
            finished = True
        finally:
            if not finished:
                # The client cancelled the call (or went away): the run stops cleanly and its
                # record is closed before this handler lets go.
                self.center.stop(conversation_id)
                with anyio.CancelScope(shield=True):
                    await self.center.wait_run(run_id)
            unsubscribe()
            await _drain(pump, events)
            self.channel.current.discard(run_id)
        not_paid = bool(blocked)
        data = result_dict(result, conversation_id, not_paid=not_paid)
        data["resource"] = f"mika://runs/{run_id}"
        if not_paid:
            data["approval"] = blocked[0]
        text = data["answer"] or result.status.value
        if not_paid and not attended:
            text = f"{text}\n\n{t('pay_unavailable')}"
        summary = f"{text}\n\n(outcome: {result.status.value}; run {run_id}; conversation {conversation_id})"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=summary)],
            structured_content=data,
            is_error=False,
        )

    async def _pump(
        self,
        rctx: Any,
        events: asyncio.Queue[RunEvent],
        conversation_id: str,
        max_steps: int,
        blocked: list[str],
    ) -> None:
        """The run's events → progress notifications (one per step) and payment questions."""
        while True:
            event = await events.get()
            try:
                if isinstance(event, ToolCalled):
                    args = json.dumps(event.arguments, ensure_ascii=False)
                    message = f"step {event.step}: {event.name} {args if len(args) < 120 else args[:117] + '...'}"
                    await rctx.session.report_progress(event.step, max_steps or None, message)
                elif isinstance(event, ApprovalEvent) and event.decision in BLOCKED:
                    blocked.append(event.decision)
                elif isinstance(event, ConfirmationAsked):
                    shown = ScreenSummary(
                        item=event.screen_item or event.what,
                        amount=event.screen_amount or event.amount,
                        app=event.screen_app or event.app,
                        button=event.screen_button,
                    ).line()
                    allowed = await ask_payment_step(rctx, shown)
                    if not allowed:
                        blocked.append("refused")
                    self.center.confirm(conversation_id, event.question_id, allowed)
            except Exception:  # a client that went away must not break the run
                log.exception("MCP progress for %s failed", event.run_id)
            finally:
                events.task_done()

    # -- resources ----------------------------------------------------------------------------

    async def _list_resources(self, rctx: Any, params: Any) -> types.ListResourcesResult:
        resources = []
        if self.has_phone:
            resources.append(
                types.Resource(
                    uri=SCREEN_URI,
                    name="screen",
                    description="The phone's current screen as Mika's numbered listing.",
                    mime_type="text/plain",
                )
            )
        return types.ListResourcesResult(resources=resources)

    async def _list_templates(self, rctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=RUNS_TEMPLATE,
                    name="run",
                    description="A run's record: its summary (run.json) and every event, as JSON.",
                    mime_type="application/json",
                )
            ]
        )

    async def _read_resource(self, rctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == SCREEN_URI and self.has_phone:
            outcome = await self.session(declares_elicitation(rctx)).call("phone_observe", {}, Origin.MCP)
            # The whole listing (the observation), never a delta against an earlier look.
            text = outcome.observations[-1].text if outcome.observations else outcome.text
            return _text_resource(uri, text, "text/plain")
        prefix = "mika://runs/"
        if uri.startswith(prefix) and uri[len(prefix) :]:
            run_id = uri[len(prefix) :]
            run_dir = find_run(self.asm.state_dir, run_id) if run_id.isalnum() else None
            if run_dir is None:
                raise types_error(t("no_run", id=run_id))
            from mika.atomic_write import read_json

            body = {"run": read_json(run_dir / "run.json", {}) or {}, "events": read_events(run_dir)}
            return _text_resource(uri, json.dumps(body, ensure_ascii=False, indent=1), "application/json")
        raise types_error(t("unknown_resource", uri=uri))

    # -- the end ------------------------------------------------------------------------------

    async def aclose(self) -> None:
        for session in list(self._sessions.values()):
            try:
                await session.close()
            except Exception:
                log.exception("closing an MCP phone session failed")
        self._sessions.clear()
        await self.center.aclose()


def _known(conversations: ConversationStore, conversation_id: str) -> bool:
    try:
        return conversations.exists(conversation_id)
    except BadConversationId:  # not a conversation id at all (a path, odd characters)
        return False


def types_error(message: str) -> Exception:
    from mcp.shared.exceptions import MCPError

    return MCPError(code=types.INVALID_PARAMS, message=message)


def _text_resource(uri: str, text: str, mime: str) -> types.ReadResourceResult:
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])


def _error(code: str, text: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content={"ok": False, "code": code, "text": text},
        is_error=True,
    )


def _tool_result(outcome: ToolOutcome) -> types.CallToolResult:
    content: list[Any] = [types.TextContent(type="text", text=outcome.text)]
    if outcome.image is not None:
        content.append(
            types.ImageContent(
                type="image", data=base64.b64encode(outcome.image.data).decode("ascii"), mime_type=outcome.image.mime
            )
        )
    data = {"ok": outcome.ok, "code": outcome.code, "effect": outcome.effect, "tree_blind": outcome.tree_blind}
    for key in ("version", "package", "activity", "elements"):
        if key in outcome.data:
            data[key] = outcome.data[key]
    return types.CallToolResult(content=content, structured_content=data, is_error=not outcome.ok)


async def _drain(pump: asyncio.Task[None], events: asyncio.Queue[RunEvent]) -> None:
    """Let the pump tell what the run emitted last (its final steps), then stop it."""
    with anyio.CancelScope(shield=True):
        try:
            await asyncio.wait_for(events.join(), timeout=5)
        except TimeoutError:
            log.info("MCP progress: the last events were not all told within 5 s")
        pump.cancel()
        try:
            await pump
        except asyncio.CancelledError:
            pass  # the pump's own end


def _grant(session: ToolSession, seen: ScreenSummary) -> None:
    """The client's user said yes to what they were shown: a payment step, or the change
    of a risky setting (then `seen.button` names it)."""
    setting = seen.button if seen.kind == "setting" else ""
    session.grant(app=seen.app, amount=seen.amount, what=seen.item or seen.button, origin=Origin.MCP, setting=setting)
