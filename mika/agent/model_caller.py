"""`ModelCaller`: one model request, streamed into events, retried by the policy given.

A steer cancels the request in flight (that attempt is not written to history: the
caller gets None and asks again with the message appended). Cancel stops it and raises
RunCancelled. Retry waits are interruptible by both.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from mika.config.secret_streams import StreamGuard
from mika.model.base import Done, Model, TextDelta, complete
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.messages import ModelRequest, ModelResponse
from mika.model.retry import RetryPolicy
from mika.record.events import AnswerDelta, ModelCancelled, ModelFailed, ModelReplied, ModelRequested, RunEvent
from mika.runtypes.inbox import RunInbox
from mika.tool.race import Interrupted, race

log = logging.getLogger(__name__)


class RunCancelled(Exception):
    pass


class ModelCaller:
    def __init__(
        self,
        model: Model,
        inbox: RunInbox,
        emit: Callable[[RunEvent], None],
        retry: RetryPolicy,
        *,
        run_id: str,
        conversation_id: str = "",
        estimate: Callable[[ModelRequest], int] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.model = model
        self.inbox = inbox
        self.emit = emit
        self.retry = retry
        self.run_id = run_id
        self.conversation_id = conversation_id
        self.estimate = estimate
        self._sleep = sleep
        self.calls = 0

    def _ev(self, step: int) -> dict[str, Any]:
        return {"run_id": self.run_id, "conversation_id": self.conversation_id, "step": step}

    async def call(
        self,
        request: ModelRequest,
        step: int,
        *,
        steerable: bool = True,
        on_overflow: Callable[[], ModelRequest | None] | None = None,
    ) -> ModelResponse | None:
        attempt = 0
        overflow_retried = False
        while True:
            attempt += 1
            self.emit(
                ModelRequested(
                    **self._ev(step),
                    purpose=request.purpose,
                    attempt=attempt,
                    messages=len(request.messages),
                    tools=len(request.tools),
                    estimated_input_tokens=self.estimate(request) if self.estimate else 0,
                )
            )
            requested_at = time.time()
            try:
                response = await self._one(request, step, steerable)
            except ModelError as err:
                if err.kind is ModelErrorKind.CONTEXT_OVERFLOW and on_overflow and not overflow_retried:
                    harsher = on_overflow()
                    if harsher is not None:
                        overflow_retried = True
                        request = harsher
                        self.emit(
                            ModelFailed(
                                **self._ev(step), kind=err.kind.value, message=err.user_message(), will_retry=True
                            )
                        )
                        continue
                delay = self.retry.delay_for(err, attempt)
                self.emit(
                    ModelFailed(
                        **self._ev(step),
                        kind=err.kind.value,
                        message=err.user_message(),
                        will_retry=delay is not None,
                        retry_in_s=delay or 0.0,
                    )
                )
                if delay is None:
                    raise
                if not await self._pause(delay, steerable):
                    self.emit(ModelCancelled(**self._ev(step), reason="steer"))
                    return None
                continue
            if response is None:
                self.emit(ModelCancelled(**self._ev(step), reason="steer"))
                return None
            msg = response.message
            self.calls += 1
            self.emit(
                ModelReplied(
                    **self._ev(step),
                    text=msg.text,
                    tool_calls=tuple({"id": c.id, "name": c.name, "arguments": c.arguments} for c in msg.tool_calls),
                    usage=response.usage.as_dict(),
                    usage_reported=response.usage.reported,
                    model=response.model,
                    provider=response.provider or self.model.provider,
                    purpose=request.purpose,
                    stop_reason=response.stop_reason,
                    requested_at=requested_at,
                    replied_at=time.time(),
                )
            )
            return response

    async def _one(self, request: ModelRequest, step: int, steerable: bool) -> ModelResponse | None:
        """The request itself, raced against a steer and a cancel."""

        async def consume() -> ModelResponse:
            final: ModelResponse | None = None
            # A configured key split across two deltas is still masked (held back until whole).
            guard = StreamGuard()
            async for event in self.model.stream(request):
                if isinstance(event, TextDelta) and event.text:
                    text = guard.feed(event.text)
                    if text:
                        self.emit(AnswerDelta(**self._ev(step), text=text))
                elif isinstance(event, Done):
                    rest = guard.flush()
                    if rest:
                        self.emit(AnswerDelta(**self._ev(step), text=rest))
                    final = event.response
            if final is None:
                raise ModelError(ModelErrorKind.STREAM_INCOMPLETE, "the reply ended before it was complete")
            return final

        events = (self.inbox.cancelled, self.inbox.steer_signal) if steerable else (self.inbox.cancelled,)
        try:
            return await race(consume(), *events)
        except Interrupted as stopped:
            if stopped.by is self.inbox.cancelled or self.inbox.cancelled.is_set():
                raise RunCancelled() from None
            return None

    async def _pause(self, seconds: float, steerable: bool) -> bool:
        """Wait before a retry; False if a steer ended the wait (re-ask at once)."""
        events = (self.inbox.cancelled, self.inbox.steer_signal) if steerable else (self.inbox.cancelled,)
        try:
            await race(self._sleep(seconds), *events)
        except Interrupted:
            pass
        else:
            if not self.inbox.cancelled.is_set():
                return True
        if self.inbox.cancelled.is_set():
            raise RunCancelled()
        return False


async def side_call(models: Sequence[Model | None], request: ModelRequest, timeout: float) -> ModelResponse | None:
    """A call outside the loop (intent, judge, stop summary): the first model given
    (the light one) is tried first, the next on failure; None when none answered in time.

    Side calls never stream to the user and never fail the run: any error is a None."""
    for model in models:
        if model is None:
            continue
        try:
            return await asyncio.wait_for(complete(model, request), timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a side call's failure only means "no verdict"
            log.info("side call %s on %s/%s failed: %s", request.purpose, model.provider, model.name, exc)
    return None
