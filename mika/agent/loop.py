"""`AgentLoop`: schedules the run; every judgement lives in its own class.

Per step: take steers → build the request → ask the model (a steer cancels and re-asks)
→ a reply without tool calls is the answer (after TurnPolicy and a last look at the
inbox under its lock) → otherwise each call goes through the ActionExecutor, results go
back into the history, StopRules may end the run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from mika.action.executor import ActionExecutor
from mika.action.origin import Origin
from mika.agent.context import ContextBuilder
from mika.agent.model_caller import ModelCaller, RunCancelled
from mika.agent.stop_rules import StopRules
from mika.agent.turn_policy import TurnPolicy
from mika.model.errors import ModelError
from mika.model.messages import Image, Text, ToolCall, ToolResult, Usage
from mika.observe.evidence import AnswerSources
from mika.observe.observation import Observation, ObsKind, Trust
from mika.record.events import Activity, ObservationMade, SourcesChosen
from mika.run.contracts import OutcomeStatus, RunResult
from mika.run.inbox import RunInbox
from mika.tool.context import ToolContext
from mika.tool.declaration import ToolOutcome
from mika.tool.dispatcher import SKIPPED_TEXT

NOT_RUN_TEXT = "Not run: an earlier call in the same reply ended the step."


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
        emit,
        stop_rules: StopRules | None = None,
        turn_policy: TurnPolicy | None = None,
    ) -> None:
        self.context = context
        self.caller = caller
        self.executor = executor
        self.inbox = inbox
        self.ctx = tool_ctx
        self.emit = emit
        self.stop_rules = stop_rules or StopRules()
        self.turn_policy = turn_policy or TurnPolicy()
        self.state = LoopState()
        self.spec = context.spec

    def _base(self) -> dict:
        return {"run_id": self.spec.id, "conversation_id": self.spec.conversation_id, "step": self.state.step}

    def _result(self, status: OutcomeStatus, answer: str, subtype: str = "", sources=()) -> RunResult:
        return RunResult(
            run_id=self.spec.id, status=status, answer=answer, subtype=subtype, steps=self.state.step,
            usage=self.state.usage.as_dict(), sources=tuple(sources),
            groups_used=tuple(g for g in self.executor.groups.opened_order),
        )

    async def run(self) -> RunResult:
        try:
            return await self._run()
        except (RunCancelled, asyncio.CancelledError):
            if not self.inbox.cancelled.is_set():
                raise
            return self._result(OutcomeStatus.STOPPED, self.inbox.cancel_reason or "Stopped.")
        except ModelError as err:
            return self._result(OutcomeStatus.FAILED, err.user_message(), subtype=err.kind.value)

    async def _run(self) -> RunResult:
        while True:
            if self.inbox.cancelled.is_set():
                raise RunCancelled()
            self._take_steers()
            stop = self.stop_rules.budget(self.state.step, self.spec.step_budget)
            if stop:
                return self._result(OutcomeStatus.BUDGET_EXHAUSTED, stop.reason, stop.subtype)
            request = self.context.build()
            response = await self.caller.call(request, self.state.step + 1)
            if response is None:
                continue  # a steer arrived: ask again with it appended
            self.state.step += 1
            self.ctx.step = self.state.step
            self.state.usage = self.state.usage + response.usage
            calls = response.message.tool_calls
            if not calls:
                reminder = self.turn_policy.before_answer(response)
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
                return self._result(OutcomeStatus.ANSWERED, answer, sources=picked)

            self.context.history.add_assistant(response.message)
            said = response.message.text.strip()
            if said:
                # Text next to tool calls is the model telling what it is doing.
                self.emit(Activity(**self._base(), text=said, tool=calls[0].name))
            results, end, stop = await self._run_calls(calls)
            self.context.history.add_user(*results, Text(self.context.runtime_state(self.state.step)))
            if end is not None:
                if self.inbox.close_unless_steered():
                    status = OutcomeStatus.DEVICE_UNAVAILABLE if end.subtype == "device_unavailable" else OutcomeStatus.NOT_DONE
                    return self._result(status, end.message, subtype=end.subtype)
                continue  # a message arrived as it ended: carry on with it
            if stop is not None:
                return self._result(OutcomeStatus.FAILED, stop.reason, subtype=stop.subtype)

    def _take_steers(self) -> None:
        steers = self.inbox.take_steers()
        if not steers:
            return
        for s in steers:
            obs = Observation.build(ObsKind.USER_SAID, "user", s.text, trust=Trust.TRUSTED, title="message", step=self.state.step)
            self.ctx.evidence.add(obs)
        text = "\n".join(f"The user adds: {s.text}" for s in steers)
        self.context.history.add_user(Text(text), users_words=True)

    async def _run_calls(self, calls: tuple[ToolCall, ...]):
        results: list = []
        image: Image | None = None
        end = None
        stop = None
        for i, call in enumerate(calls):
            if end is not None or stop is not None:
                results.append(ToolResult(call.id, call.name, NOT_RUN_TEXT, is_error=True))
                continue
            if i > 0 and self.inbox.steer_signal.is_set():
                # The user said something: calls not yet started wait for the model to read it.
                results.append(ToolResult(call.id, call.name, SKIPPED_TEXT, is_error=True))
                continue
            outcome = await self._perform(call)
            for obs in outcome.observations:
                self.emit(ObservationMade(**self._base(), observation=obs.as_dict()))
            if outcome.image is not None:
                image = outcome.image
            results.append(ToolResult(call.id, call.name, _result_text(outcome), is_error=not outcome.ok))
            if outcome.end_run is not None:
                end = outcome.end_run
            else:
                stop = self.stop_rules.after_call(call, outcome)
        if image is not None:
            results.append(image)
        return results, end, stop

    async def _perform(self, call: ToolCall) -> ToolOutcome:
        """Run one call; a cancel ends it (ask_user, waits), a steer does not."""
        work = asyncio.ensure_future(self.executor.perform(call, self.ctx, Origin.MODEL))
        cancel = asyncio.ensure_future(self.inbox.cancelled.wait())
        try:
            done, _ = await asyncio.wait({work, cancel}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            cancel.cancel()
        if work in done:
            try:
                return work.result()
            except asyncio.CancelledError:
                raise RunCancelled() from None
        work.cancel()
        try:
            await work
        except (asyncio.CancelledError, Exception):
            pass
        raise RunCancelled()


def _result_text(outcome: ToolOutcome) -> str:
    if outcome.ok or outcome.code in ("done", ""):
        return outcome.text
    return f"[{outcome.code}] {outcome.text}"
