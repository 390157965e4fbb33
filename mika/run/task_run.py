"""`TaskRun`: one run — assemble the tools for its spec, run the loop, do the aftercare.

It is the `TaskRunLike` the task center drives: steer / answer / confirm / hand_back go
into its inbox, cancel is a control signal, and every RunEvent reaches the subscribers
(the recorder, the TUI, headless output) and nothing else.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from mika.action.executor import ActionExecutor
from mika.agent.context import ContextBuilder
from mika.agent.intent_gate import IntentGate
from mika.agent.loop import AgentLoop
from mika.agent.model_caller import ModelCaller, side_call
from mika.agent.outcome_judge import OutcomeJudge
from mika.agent.stop_summary import StopSummary, read_record
from mika.agent.system_prompt import SystemPrompt
from mika.agent.turn_policy import TurnPolicy
from mika.memory.context import memory_block
from mika.memory.extractor import EXTRACT_TIMEOUT_S, MemoryExtractor
from mika.model.base import Model
from mika.record.events import (
    MemoryRemembered,
    Notice,
    OutcomeJudged,
    PhaseChanged,
    RouteRecorded,
    RouteReplayed,
    RunEvent,
    RunOutcome,
    RunStarted,
    SkillDrafted,
    StopSummarized,
    UserInput,
)
from mika.record.recorder import RunRecorder
from mika.replay.matcher import RouteMatcher
from mika.replay.player import PlayReport, RoutePlayer
from mika.replay.recorder import RouteRecorder
from mika.replay.store import RouteStore
from mika.run.acting import build_acting
from mika.run.contracts import EventSink
from mika.run.fault_injection import kill_point_from_env
from mika.run.options import RunOptions
from mika.run.phase import RunPhase
from mika.run.ui_text import t as ui_text
from mika.runtypes.inbox import InputKind, RunInbox, RunInput
from mika.runtypes.result import OutcomeStatus, ResultSaver, RunResult
from mika.runtypes.spec import RunOrigin, RunSpec
from mika.tool.capability import Capability
from mika.tool.context import AppClaims, ToolContext

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)


class TaskRun:
    def __init__(
        self,
        spec: RunSpec,
        model: Model,
        capabilities: Sequence[Capability],
        options: RunOptions | None = None,
        *,
        light: Model | None = None,
    ) -> None:
        self.spec = spec
        self.model = model
        # Side calls (intent, outcome judge, stop summary) prefer the light model, fall back to main.
        self.light = light
        self._events: list[RunEvent] = []
        self.capabilities = list(capabilities)
        self.options = options or RunOptions()
        self._sinks: list[EventSink] = []
        self.inbox = RunInbox(on_input=self._on_input)
        self.phase = RunPhase.QUEUED
        self.recorder: RunRecorder | None = None
        self.result: RunResult | None = None
        self.stopped_by_user = False
        # Set by the task center: saves the result for delivery before aftercare starts.
        self.on_result: ResultSaver | None = None
        # The task center's app claims (apps are one run's at a time); None: no sharing.
        self.app_claims: AppClaims | None = None
        self._closed_capabilities = False
        self._fully_replayed = False  # a route did the whole task (no model call)
        self._kill_point = kill_point_from_env()  # tests only (mika.run.fault_injection)

    # -- TaskRunLike ----------------------------------------------------------------

    def subscribe(self, sink: EventSink) -> Callable[[], None]:
        self._sinks.append(sink)
        return lambda: self._sinks.remove(sink) if sink in self._sinks else None

    def steer(self, text: str) -> bool:
        return self.inbox.steer(text)

    def answer(self, question_id: str, text: str) -> bool:
        return self.inbox.reply(RunInput(InputKind.ANSWER, text=text, question_id=question_id))

    def confirm(self, question_id: str, allowed: bool) -> bool:
        return self.inbox.reply(RunInput(InputKind.CONFIRM, question_id=question_id, allowed=allowed))

    def hand_back(self, question_id: str, done: bool) -> bool:
        return self.inbox.reply(RunInput(InputKind.HAND_BACK, question_id=question_id, done=done))

    def cancel(self, reason: str = "Stopped by the user.") -> None:
        self.stopped_by_user = True
        self.inbox.cancel(reason)

    # -- running --------------------------------------------------------------------

    def emit(self, event: RunEvent) -> None:
        if not event.ephemeral:
            self._events.append(event)  # the record the judge and the stop summary read
        for sink in list(self._sinks):
            try:
                sink(event)
            except Exception:  # one broken subscriber must not break the run
                log.exception("event subscriber failed on %s", event.type)
        if self._kill_point is not None and not event.ephemeral:
            self._kill_point.after(event.type)

    def _on_input(self, item: RunInput, state: str) -> None:
        self.emit(
            UserInput(
                run_id=self.spec.id,
                conversation_id=self.spec.conversation_id,
                kind=item.kind.value,
                text=item.text,
                state=state,
            )
        )

    def _set_phase(self, phase: RunPhase) -> None:
        self.phase = phase
        self.emit(PhaseChanged(run_id=self.spec.id, conversation_id=self.spec.conversation_id, phase=phase.value))

    async def run(self) -> RunResult:
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
                    "model": f"{self.model.provider}/{self.model.name}",
                }
            )
            self._sinks.insert(0, self.recorder)
        self._set_phase(RunPhase.PREPARING)
        self.emit(
            RunStarted(
                run_id=self.spec.id,
                conversation_id=self.spec.conversation_id,
                goal=self.spec.goal,
                origin=self.spec.provenance.origin.value,
                attendance=self.spec.provenance.attendance.value,
                capabilities=tuple(c.id for c in self.capabilities),
                read_only=self.spec.read_only,
                model=f"{self.model.provider}/{self.model.name}",
                # A capability with a screen may say which display the run works on.
                display=next((dict(d) for c in self.capabilities if (d := getattr(c, "display_plan", None))), {}),
            )
        )
        for line in opts.start_notices:
            self.emit(
                Notice(run_id=self.spec.id, conversation_id=self.spec.conversation_id, level="warning", text=line)
            )
        try:
            result = await self._run_loop()
        except asyncio.CancelledError:
            # The task itself was cancelled (the center closing): aftercare won't run, but
            # what the capabilities started (server processes, a browser) still stops.
            await asyncio.shield(self._close_capabilities())
            raise
        except Exception as exc:  # never a traceback: the run ends failed and recorded
            log.exception("run %s failed", self.spec.id)
            result = RunResult(
                self.spec.id,
                OutcomeStatus.FAILED,
                f"Internal error: {type(exc).__name__}: {exc}",
                subtype="internal_error",
            )
        return await self._aftercare(result)

    async def _close_capabilities(self) -> None:
        if self._closed_capabilities:
            return
        self._closed_capabilities = True
        for cap in self.capabilities:
            try:
                await cap.close()
            except Exception:
                log.exception("closing capability %s failed", cap.id)

    async def _start_capabilities(self) -> None:
        """A capability whose tools are known only once it has started (MCP servers: connect
        and list) may have `async start() -> notices`; it is awaited once, here, before the
        run's tool list is made and frozen. Each line it returns is a warning notice; a
        capability that fails to start costs its own tools, never the run."""
        for cap in self.capabilities:
            start = getattr(cap, "start", None)
            if start is None:
                continue
            try:
                lines = await start()
            except Exception as exc:
                log.exception("capability %s could not start", cap.id)
                lines = [f"{cap.id}: {type(exc).__name__}: {exc}"]
            for line in lines or ():
                self.emit(
                    Notice(run_id=self.spec.id, conversation_id=self.spec.conversation_id, level="warning", text=line)
                )

    async def _run_loop(self) -> RunResult:
        opts = self.options
        await self._start_capabilities()
        acting = build_acting(
            self.spec,
            self.capabilities,
            opts,
            inbox=self.inbox,
            emit=self.emit,
            recorder=self.recorder,
            preload=self._preload_groups(),
            app_claims=self.app_claims,
        )
        groups, evidence, executor, notices, ctx = (
            acting.groups,
            acting.evidence,
            acting.executor,
            acting.notices,
            acting.ctx,
        )
        sections = acting.sections
        report = await self._replay(executor, ctx)
        if report is not None and report.complete:
            return self._replayed_result(report, acting.groups.opened_order)
        handover: tuple[tuple[str, str, str, str], ...] = ()
        if report is not None:
            # The model takes over where the route stopped, told what was done and why it stopped.
            handover = (("route_progress", "mika", "trusted", report.handover_note()),)
        block = memory_block(opts.memory, self.spec.goal)
        context = ContextBuilder(
            self.spec,
            SystemPrompt(sections),
            groups,
            window=self.model.context_window,
            # Seed §7 zone 1, in its order: memory, then app/site knowledge and the skill index.
            extra_context=((block,) if block else ()) + notices.opening_context(self.spec.goal) + handover,
        )
        self._evidence = evidence
        caller = ModelCaller(
            self.model,
            self.inbox,
            self.emit,
            opts.retry,
            run_id=self.spec.id,
            conversation_id=self.spec.conversation_id,
            estimate=context.estimate,
        )
        self.loop = AgentLoop(
            context=context,
            caller=caller,
            executor=executor,
            inbox=self.inbox,
            tool_ctx=ctx,
            emit=self.emit,
            intent_gate=IntentGate(self.light),
            turn_policy=TurnPolicy(narrow_last_round=opts.cache_baseline),
            review_final_answer=opts.review_final_answer,
            notices=notices,
        )
        self.executor = executor
        self._set_phase(RunPhase.RUNNING)
        return await self.loop.run()

    def _route_store(self) -> RouteStore | None:
        """Routes are kept (and replayed) only with [run] replay on, for runs with a state
        folder, and never for a child run (it does a part of its parent's task)."""
        opts = self.options
        if not opts.replay or opts.state_dir is None or self.spec.provenance.origin is RunOrigin.CHILD:
            return None
        return RouteStore(opts.state_dir)

    async def _replay(self, executor: ActionExecutor, ctx: ToolContext) -> PlayReport | None:
        """Before the first model call: replay the route this goal repeats, if any."""
        store = self._route_store()
        if store is None or self.spec.read_only:
            return None
        try:
            routes = store.list()
            match = await RouteMatcher(self.light).match(self.spec.goal, routes)
        except Exception:  # finding a route is a shortcut: the model does the task without one
            log.exception("matching run %s to a route failed", self.spec.id)
            return None
        if match is None:
            return None
        self._set_phase(RunPhase.RUNNING)
        report = await RoutePlayer(executor, ctx).play(match)
        self.emit(
            RouteReplayed(
                run_id=self.spec.id,
                conversation_id=self.spec.conversation_id,
                step=report.done,
                route_id=match.route.id,
                steps=report.total,
                done=report.done,
                handed_over_at=report.handed_over_at,
                reason=report.reason,
                params=dict(match.params),
            )
        )
        if report.complete:
            try:
                store.used(match.route, time.time())
            except OSError as exc:
                log.warning("route %s: its use was not counted: %s", match.route.id, exc)
        return report

    def _replayed_result(self, report: PlayReport, groups: Sequence[str]) -> RunResult:
        self._fully_replayed = True
        answer = report.answer()
        key = "route_answer_recorded" if answer else "route_answer_fixed"
        self.emit(
            Notice(
                run_id=self.spec.id,
                conversation_id=self.spec.conversation_id,
                text=ui_text(key, route=report.match.route.id, steps=report.total),
            )
        )
        return RunResult(
            self.spec.id,
            OutcomeStatus.ANSWERED,
            answer or ui_text("route_done", goal=self.spec.goal, steps=report.total),
            steps=report.done,
            groups_used=tuple(groups),
        )

    def _record_route(self, result: RunResult) -> None:
        """Aftercare: a verified run becomes a route (seed §9); never fails the run."""
        store = self._route_store()
        if store is None or self._fully_replayed:
            return
        try:
            redactor = self.recorder.redactor if self.recorder is not None else self.options.redactor
            decision = RouteRecorder(store).after_run(
                self.spec.goal, self.spec.id, result, self._events, time.time(), redactor
            )
        except Exception:
            log.exception("recording the route of run %s failed", self.spec.id)
            return
        if decision.route is None:
            log.debug("no route from run %s: %s", self.spec.id, decision.reason)
            return
        self.emit(
            RouteRecorded(
                run_id=self.spec.id,
                conversation_id=self.spec.conversation_id,
                route_id=decision.route.id,
                steps=len(decision.route.steps),
                params=dict(decision.route.params),
            )
        )

    def _preload_groups(self) -> tuple[str, ...]:
        """The groups open from the first request (seed §4): those the last turn used, and
        those a capability judges this task's words to need for sure (`preload(spec,
        knowledge)`, optional: a capability without it preloads nothing)."""
        out = list(self.spec.preload_groups)
        for cap in () if self.options.cache_baseline else self.capabilities:
            ask = getattr(cap, "preload", None)
            if ask is None:
                continue
            try:
                wanted = ask(self.spec, self.options.knowledge)
            except Exception:  # a wrong guess only costs one cache break: never fail the run for it
                log.exception("capability %s could not say what to preload", cap.id)
                continue
            out.extend(g for g in wanted if g not in out)
        return tuple(out)

    async def _remember(self, result: RunResult) -> None:
        """Memory extraction (seed §12): never fails the run, never delays its answer (the
        result was saved for delivery above)."""
        opts = self.options
        if opts.memory is None or not opts.memory_extract or result.status is not OutcomeStatus.ANSWERED:
            return
        evidence = getattr(self, "_evidence", None)
        try:
            models = [self.light, self.model]
            extractor = MemoryExtractor(lambda req: side_call(models, req, EXTRACT_TIMEOUT_S), opts.memory)
            items = await extractor.run(self.spec, evidence)
        except Exception:
            log.exception("memory extraction of run %s failed", self.spec.id)
            return
        if items:
            self.emit(
                MemoryRemembered(
                    run_id=self.spec.id,
                    conversation_id=self.spec.conversation_id,
                    items=tuple(
                        {"id": i.id, "kind": i.kind.value, "text": i.text, "status": i.status.value} for i in items
                    ),
                )
            )

    def _save_result(self, result: RunResult) -> None:
        """Hand the result to whoever delivers it (the task center: run store, turn,
        outbox) before the outcome event and before any aftercare: a crash from here on
        leaves a saved answer that recovery delivers, never an "interrupted" notice."""
        if self.on_result is None:
            return
        try:
            self.on_result(result)
        except Exception:  # the center finishes it at the end, or recovery at the next start
            log.exception("saving the result of run %s failed", self.spec.id)

    async def _learn(self, result: RunResult) -> None:
        """After the judge (drafting trusts only its "done"): record the learned skills'
        outcomes and maybe draft one; never fails the delivered run."""
        if self.options.learning is None:
            return
        try:
            redactor = self.recorder.redactor if self.recorder is not None else self.options.redactor
            report = await self.options.learning.after_run(self.spec.id, self.spec.goal, result, self._events, redactor)
        except Exception:
            log.exception("learning from run %s failed", self.spec.id)
            return
        if report.drafted is not None:
            self.emit(
                SkillDrafted(
                    run_id=self.spec.id,
                    conversation_id=self.spec.conversation_id,
                    name=report.drafted.name,
                    description=report.drafted.description,
                )
            )

    async def _aftercare(self, result: RunResult) -> RunResult:
        self._set_phase(RunPhase.FINISHING)
        if result.status is OutcomeStatus.STOPPED and self.stopped_by_user:
            summary, by_model = await StopSummary([self.light, self.model]).summarize(self.spec.goal, self._events)
            self.emit(
                StopSummarized(
                    run_id=self.spec.id,
                    conversation_id=self.spec.conversation_id,
                    text=summary,
                    by_model=by_model,
                    outward=len(read_record(self._events).outward),
                )
            )
            result = replace(result, answer=summary)
        left = self.inbox.close()
        # Steers nobody read become the conversation's next task, unless the user stopped.
        unconsumed = () if result.status is OutcomeStatus.STOPPED else tuple(i.text for i in left if i.text)
        self._save_result(replace(result, unconsumed=unconsumed))
        self.emit(
            RunOutcome(
                run_id=self.spec.id,
                conversation_id=self.spec.conversation_id,
                status=result.status.value,
                answer=result.answer,
                subtype=result.subtype,
                reason=result.answer if result.status is not OutcomeStatus.ANSWERED else "",
                steps=result.steps,
                usage=result.usage,
            )
        )
        self._set_phase(RunPhase.AFTERCARE)
        judge = self.options.judge_outcome if self.options.judge_outcome is not None else self.light is not None
        # A route replayed to the end checked every step's effect itself: no judge call.
        if judge and result.status is not OutcomeStatus.STOPPED and not self._fully_replayed:
            verdict = await OutcomeJudge([self.light, self.model]).judge(
                self.spec.goal, result.status.value, result.answer, self._events
            )
            self.emit(
                OutcomeJudged(
                    run_id=self.spec.id,
                    conversation_id=self.spec.conversation_id,
                    verdict=verdict.verdict.value,
                    why=verdict.why,
                )
            )
        self._record_route(result)
        await self._learn(result)
        await self._remember(result)
        await self._close_capabilities()
        record_dir = ""
        if self.recorder is not None:
            self.recorder.close(
                {
                    "outcome": result.status.value,
                    "answer": result.answer,
                    "subtype": result.subtype,
                    "steps": result.steps,
                    "usage": result.usage,
                    "ended_at": time.time(),
                }
            )
            record_dir = str(self.recorder.dir)
        self._set_phase(RunPhase.ENDED)
        self.result = replace(result, unconsumed=unconsumed, record_dir=record_dir)
        return self.result
