"""`AgentLoop`: schedules the run; every judgement lives in its own class.

Per step: take steers → build the request (ContextBuilder compresses when it must) →
ask the model (a steer cancels and re-asks; an overflow is retried once, harsher) → a
reply without tool calls is the answer (after TurnPolicy, grounding and a last look at
the inbox under its lock) → otherwise, the first time a UI run wants to act, IntentGate
may turn it into a chat reply → each call goes through the ActionExecutor, results go
back into the history (with StuckAdvice when going in circles, and after them the
knowledge of an app or site the step read for the first time: NoticePolicy), StopRules
may end the run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from mika.action.executor import ActionExecutor
from mika.action.origin import Origin
from mika.agent.context import CompressionDone, ContextBuilder, context_block
from mika.agent.grounding import Grounding
from mika.agent.history import ResultInfo, ResultKind
from mika.agent.intent_gate import Intent, IntentGate
from mika.agent.model_caller import ModelCaller, RunCancelled
from mika.agent.stop_rules import Stop, StopRules
from mika.agent.stuck_advice import StuckAdvice
from mika.agent.turn_policy import TurnPolicy
from mika.knowledge.notice import Given, NoticePolicy
from mika.model.errors import ModelError
from mika.model.messages import Image, Message, ModelRequest, ModelResponse, Part, Text, ToolCall, ToolResult, Usage
from mika.observe.evidence import AnswerSources
from mika.observe.observation import Observation, ObsKind, Trust
from mika.record.events import (
    Compressed,
    GroundingChecked,
    IntentJudged,
    KnowledgeGiven,
    ObservationMade,
    RunEvent,
    SourcesChosen,
)
from mika.resources import prompt
from mika.runtypes.inbox import RunInbox
from mika.runtypes.result import OutcomeStatus, RunResult
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool
from mika.tool.dispatcher import skipped_text
from mika.tool.outcome import EndRun, ToolOutcome
from mika.tool.race import Interrupted, race


@dataclass
class LoopState:
    step: int = 0
    usage: Usage = field(default_factory=lambda: Usage(0, 0, 0, 0))
    answer: str = ""


class AgentLoop:
    def __init__(
        self,
        *,
        context: ContextBuilder,
        caller: ModelCaller,
        executor: ActionExecutor,
        inbox: RunInbox,
        tool_ctx: ToolContext,
        emit: Callable[[RunEvent], None],
        stop_rules: StopRules | None = None,
        turn_policy: TurnPolicy | None = None,
        stuck_advice: StuckAdvice | None = None,
        intent_gate: IntentGate | None = None,
        review_final_answer: bool = False,
        notices: NoticePolicy | None = None,
    ) -> None:
        self.context = context
        self.caller = caller
        self.executor = executor
        self.inbox = inbox
        self.ctx = tool_ctx
        self.emit = emit
        self.stop_rules = stop_rules or StopRules()
        self.turn_policy = turn_policy or TurnPolicy()
        self.stuck_advice = stuck_advice or StuckAdvice()
        self.intent_gate = intent_gate or IntentGate(light=None)
        # The seed keeps the final check off: grounding is recorded, an answer is sent back only when on.
        self.review_final_answer = review_final_answer
        self._review_given = False
        self._place = ""  # the last place a read came from, for the runtime state
        # Which knowledge the model gets and when (seed §11); None: no knowledge in this run.
        self.notices = notices
        self._found: list[Given] = []  # knowledge found by this step's reads
        self.state = LoopState()
        self.spec = context.spec
        self.turn_policy.user_said(self.spec.goal)
        self.context.on_compressed = self._on_compressed

    def _base(self) -> dict[str, Any]:
        return {"run_id": self.spec.id, "conversation_id": self.spec.conversation_id, "step": self.state.step}

    def _result(
        self, status: OutcomeStatus, answer: str, subtype: str = "", sources: Iterable[dict[str, Any]] = ()
    ) -> RunResult:
        return RunResult(
            run_id=self.spec.id,
            status=status,
            answer=answer,
            subtype=subtype,
            steps=self.state.step,
            usage=self.state.usage.as_dict(),
            sources=tuple(sources),
            groups_used=tuple(g for g in self.executor.groups.opened_order),
        )

    def _on_compressed(self, done: CompressionDone) -> None:
        self.emit(
            Compressed(
                **self._base(), before_tokens=done.before_tokens, after_tokens=done.after_tokens, level=done.level
            )
        )

    def _tool(self, name: str) -> AgentTool | None:
        return self.executor.registry.get(name)

    async def run(self) -> RunResult:
        try:
            return await self._run()
        except (RunCancelled, asyncio.CancelledError):
            if not self.inbox.cancelled.is_set():
                raise
            return self._result(OutcomeStatus.STOPPED, self.inbox.cancel_reason or "Stopped.")
        except ModelError as err:
            stop = self.stop_rules.model_failed(err)
            return self._result(OutcomeStatus.FAILED, stop.reason, subtype=stop.subtype)

    async def _ask(self, request: ModelRequest, *, overflow: bool = True) -> ModelResponse | None:
        response = await self.caller.call(
            request, self.state.step + 1, on_overflow=self.context.build_harsher if overflow else None
        )
        if response is not None:
            self.context.calibrate(request, response.usage)
        return response

    def _given(self, given: Given) -> None:
        self.emit(KnowledgeGiven(**self._base(), id=given.entry.id, origin=given.entry.origin, reason=given.reason))

    def _knowledge_found(self) -> list[Text]:
        """This step's new knowledge blocks, appended after its results: the history only
        grows, so no earlier byte changes, and the block is kept through compressions."""
        blocks = [Text(context_block(*g.block)) for g in self._found]
        for g in self._found:
            self._given(g)
        self._found.clear()
        self.context.history.kept_texts.extend(b.text for b in blocks)
        return blocks

    async def _run(self) -> RunResult:
        for given in self.notices.opened if self.notices is not None else ():
            self._given(given)  # the opening message holds these
        while True:
            if self.inbox.cancelled.is_set():
                raise RunCancelled()
            self._take_steers()
            stop = self.stop_rules.budget(self.state.step, self.spec.step_budget)
            if stop:
                return self._result(OutcomeStatus.BUDGET_EXHAUSTED, stop.reason, stop.subtype)
            request = self.context.build()
            last = self.turn_policy.last_round(self.state.step, self.spec.step_budget)
            if last and self.turn_policy.narrow_last_round:
                give_up = {t.name for t in self.executor.registry.tools if t.gives_up}
                request = replace(request, tools=tuple(t for t in request.tools if t.name in give_up))
            elif last:
                # Same tools as the step before (the cached prefix holds); the rule is said
                # at the end of the last message, in this request only: no later request
                # follows it.
                request = _with_runtime_note(request, self.turn_policy.last_step_note())
            response = await self._ask(request)
            if response is None:
                continue  # a steer arrived: ask again with it appended
            calls = response.message.tool_calls
            if calls and self.intent_gate.applies(self.spec, [self._tool(c.name) for c in calls]):
                intent = await self.intent_gate.decide(self.turn_policy.user_last, self.spec.conversation_id or None)
                self.emit(IntentJudged(**self._base(), intent=intent.value))
                if intent is Intent.CHAT:
                    # A chat needs no tools: asked again with the user's words and no tools.
                    chat = await self._ask(self.context.chat_request(), overflow=False)
                    if chat is None:
                        continue
                    self.state.usage = self.state.usage + response.usage
                    response = replace(
                        chat,
                        message=Message(
                            "assistant", tuple(p for p in chat.message.parts if not isinstance(p, ToolCall))
                        ),
                    )
                    calls = ()
            self.state.step += 1
            self.ctx.step = self.state.step
            self.state.usage = self.state.usage + response.usage
            if not calls:
                # On the last budgeted step a reminder could not be acted on: the answer stands.
                reminder = None if last else (self.turn_policy.before_answer(response) or self._review(response))
                if reminder:
                    self.context.history.add_assistant(response.message)
                    self.context.history.add_user(Text(reminder))
                    continue
                if not self.inbox.close_unless_steered():
                    self.context.history.add_assistant(response.message)
                    continue
                answer = response.message.text.strip()
                sources = AnswerSources.pick(answer, self.ctx.evidence)
                picked = tuple(s.observation.as_dict() for s in sources)
                if picked:
                    self.emit(SourcesChosen(**self._base(), observations=picked))
                report = Grounding.check(answer, self.ctx.evidence)
                self.emit(
                    GroundingChecked(
                        **self._base(),
                        grounded=report.grounded,
                        checked=report.checked,
                        unsupported=report.unsupported,
                        wrong_sums=report.wrong_sums,
                    )
                )
                return self._result(OutcomeStatus.ANSWERED, answer, sources=picked)

            exchange = any(t is not None and t.needs_user for t in (self._tool(c.name) for c in calls))
            self.context.history.add_assistant(response.message, exchange=exchange)
            results, end, stop = await self._run_calls(
                calls, last_round=last and not self.turn_policy.narrow_last_round
            )
            note = self.turn_policy.budget_note(self.state.step, self.spec.step_budget)
            if note:
                results.append(Text(note))
            # New knowledge goes after the results but before this step's screenshot: the
            # image becomes a text line in the next request, and no byte before a kept
            # block may change.
            at = next((i for i, p in enumerate(results) if isinstance(p, Image)), len(results))
            results[at:at] = self._knowledge_found()
            self.context.history.add_step_end(
                *results, runtime=self.context.runtime_state(self.state.step, self._place)
            )
            if end is not None:
                if self.inbox.close_unless_steered():
                    status = (
                        OutcomeStatus.DEVICE_UNAVAILABLE
                        if end.subtype == "device_unavailable"
                        else OutcomeStatus.NOT_DONE
                    )
                    return self._result(status, self.stop_rules.gave_up(end).reason, subtype=end.subtype)
                continue  # a message arrived as it ended: carry on with it
            if stop is not None:
                return self._result(OutcomeStatus.FAILED, stop.reason, subtype=stop.subtype)

    def _review(self, response: ModelResponse) -> str | None:
        """With the review switch on, an answer with unsupported facts goes back once."""
        if not self.review_final_answer or self._review_given:
            return None
        report = Grounding.check(response.message.text, self.ctx.evidence)
        if report.grounded:
            return None
        self._review_given = True
        claims = ", ".join(f'"{c}"' for c in (report.unsupported + report.wrong_sums)[:8])
        return prompt("feedback/ungrounded.md").format(claims=claims)

    def _take_steers(self) -> None:
        steers = self.inbox.take_steers()
        if not steers:
            return
        for s in steers:
            obs = Observation.build(
                ObsKind.USER_SAID, "user", s.text, trust=Trust.TRUSTED, title="message", step=self.state.step
            )
            self.ctx.evidence.add(obs)
            self.turn_policy.user_said(s.text)
        text = "\n".join(f"The user adds: {s.text}" for s in steers)
        self.context.history.add_user(Text(text), users_words=True)

    async def _run_calls(
        self,
        calls: tuple[ToolCall, ...],
        *,
        last_round: bool = False,
    ) -> tuple[list[Part], EndRun | None, Stop | None]:
        results: list[Part] = []
        image: Image | None = None
        end: EndRun | None = None
        stop: Stop | None = None
        for i, call in enumerate(calls):
            if end is not None or stop is not None:
                results.append(ToolResult(call.id, call.name, prompt("feedback/not_run.md"), is_error=True))
                continue
            if last_round and not self.turn_policy.allowed_on_last_round(self._tool(call.name)):
                # The last budgeted step still offers every tool; only giving up is run.
                results.append(ToolResult(call.id, call.name, prompt("feedback/last_step_refused.md"), is_error=True))
                continue
            if i > 0 and self.inbox.steer_signal.is_set():
                # The user said something: calls not yet started wait for the model to read it.
                results.append(ToolResult(call.id, call.name, skipped_text(), is_error=True))
                continue
            outcome = await self._perform(call)
            tool = self._tool(call.name)
            for obs in outcome.observations:
                self.emit(ObservationMade(**self._base(), observation=obs.as_dict()))
                if obs.place is not None and obs.kind is ObsKind.READ:
                    self._place = obs.place.label or obs.place.id
                    found = self.notices.after_read(obs.place) if self.notices is not None else None
                    if found is not None:
                        self._found.append(found)
            if outcome.image is not None:
                image = outcome.image
            self.turn_policy.after_call(tool, outcome)
            info = _result_info(call, tool, outcome, self.state.step)
            self.context.history.note_result(info)
            text = self.context.cut_result(_result_text(outcome), info.observation_ids)
            if outcome.end_run is not None:
                end = outcome.end_run
            else:
                stop = self.stop_rules.after_call(call, outcome)
                advice = None if stop else self.stuck_advice.advise(self.stop_rules.stuck())
                if advice:
                    text = f"{text}\n{advice}"
            results.append(ToolResult(call.id, call.name, text, is_error=not outcome.ok))
        if image is not None:
            results.append(image)
        return results, end, stop

    async def _perform(self, call: ToolCall) -> ToolOutcome:
        """Run one call; a cancel ends it (ask_user, waits), a steer does not."""
        try:
            return await race(self.executor.perform(call, self.ctx, Origin.MODEL), self.inbox.cancelled)
        except Interrupted:
            raise RunCancelled() from None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the loop itself is being stopped
            raise RunCancelled() from None  # the action was cancelled from inside


def _with_runtime_note(request: ModelRequest, note: str) -> ModelRequest:
    """`request` with `note` at the end of its last user message (zone 3); the history is untouched."""
    messages = list(request.messages)
    if messages and messages[-1].role == "user":
        messages[-1] = Message("user", (*messages[-1].parts, Text(note)))
    else:
        messages.append(Message("user", (Text(note),)))
    return replace(request, messages=tuple(messages))


def _is_screen(obs: Observation) -> bool:
    return obs.kind is ObsKind.READ and (obs.title == "screen" or (obs.place is not None and obs.place.kind == "app"))


def _result_info(call: ToolCall, tool: AgentTool | None, outcome: ToolOutcome, step: int) -> ResultInfo:
    obs = outcome.observations
    if tool is not None and tool.needs_user:
        kind = ResultKind.PLAIN
    elif obs and all(_is_screen(o) for o in obs):
        kind = ResultKind.SCREEN
    elif obs:
        kind = ResultKind.TEXT
    else:
        kind = ResultKind.PLAIN
    return ResultInfo(
        call.id,
        call.name,
        step,
        kind,
        tuple(o.id for o in obs),
        protected=bool(tool is not None and tool.needs_user),
        code=outcome.code,
    )


def _result_text(outcome: ToolOutcome) -> str:
    text = outcome.text if outcome.ok or outcome.code in ("done", "") else f"[{outcome.code}] {outcome.text}"
    # Reads carry their observation ids, so placeholders and view_past_screens can name them.
    ids = [o.id for o in outcome.observations if o.kind is not ObsKind.USER_SAID]
    if ids:
        text = f"{text}\n[observation {', '.join(ids)}]"
    return text
