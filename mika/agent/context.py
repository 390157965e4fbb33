"""`ContextBuilder`: what each model request holds, in zones (seed §7).

Zone 0: the system prompt and tool definitions — byte-identical within a run except when
a group opens. Zone 1: the opening context, written once (earlier turns, memory,
knowledge, the user's words). Zone 2: the history, append-only. Zone 3: this step's
results, image and runtime state, appended to the last message (and kept there, so the
next request's prefix still matches this one's).

What is sent is `head + live tail`: before any compression the head is empty and the
tail is the whole history; a compression replaces the head once with a shorter copy of
the old turns, and the tail goes on growing. So between compressions every request
extends the previous one.

When to compress: the estimated input (calibrated by the usage the provider reports)
passes `trigger` (0.6) of the window left after the fixed part. It lands below half the
trigger if it can, never above `hard_cap` (0.9) of the window, and is not repeated
without new input, nor while the history has not grown by `hysteresis` of the window
since a compression that could not land low enough.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from mika.agent.compressor import (
    MAX_LEVEL,
    Compressed,
    ContextCompressor,
    estimate_fixed,
    estimate_messages,
    estimate_text,
)
from mika.agent.history import History, sent_messages
from mika.agent.recovery import ContextRecovery
from mika.agent.system_prompt import SystemPrompt
from mika.model.messages import Message, ModelRequest, Text, Usage
from mika.observe.untrusted import close_cut
from mika.runtypes.spec import PriorTurn, RunSpec
from mika.tool.groups import ToolGroups

TRIGGER = 0.6
HARD_CAP = 0.9
HYSTERESIS = 0.1
# One tool result may take at most this share of the window: the current step is never
# compressed, so a huge page must be cut where it enters the history.
RESULT_SHARE = 0.2


def context_block(kind: str, source: str, trust: str, body: str) -> str:
    return f'<context kind="{kind}" source="{source}" trust="{trust}">\n{body}\n</context>'


def prior_turns_text(turns: tuple[PriorTurn, ...]) -> str:
    lines = []
    for t in turns:
        lines.append(f"User: {t.user}")
        outcome = f" [{t.outcome}]" if t.outcome and t.outcome != "answered" else ""
        lines.append(f"Mika{outcome}: {t.answer}")
    return "\n".join(lines)


@dataclass(frozen=True)
class CompressionDone:
    """What one compression did, for the record (a `Compressed` run event)."""

    before_tokens: int
    after_tokens: int
    level: int
    restored: tuple[str, ...] = ()
    version: int = 0  # the history's version it compressed (new input bumps it)


class ContextBuilder:
    def __init__(
        self,
        spec: RunSpec,
        system: SystemPrompt,
        groups: ToolGroups,
        *,
        extra_context: tuple[tuple[str, str, str, str], ...] = (),
        now: Callable[[], float] = time.time,
        window: int = 0,
        compressor: ContextCompressor | None = None,
        recovery: ContextRecovery | None = None,
        on_compressed: Callable[[CompressionDone], None] | None = None,
    ) -> None:
        self.spec = spec
        self.system = system
        self.groups = groups
        self.history = History()
        self.now = now
        # 0: the window is unknown and nothing is compressed.
        self.window = window
        self.compressor = compressor or ContextCompressor()
        self.recovery = recovery or ContextRecovery()
        self.on_compressed = on_compressed
        self._compressed: Compressed | None = None
        self._compressed_at_version = -1
        self._last_after = 0
        self.level = 0
        self.ratio = 1.0  # reported / estimated input tokens, learnt from usage
        self.compressions: list[CompressionDone] = []
        opening: list[str] = []
        if spec.prior_turns:
            opening.append(
                context_block("earlier_turns", "conversation", "trusted", prior_turns_text(spec.prior_turns))
            )
        for kind, source, trust, body in extra_context:
            opening.append(context_block(kind, source, trust, body))
        # The user's own words go in unwrapped and last, so they are what the model reads first as the task.
        opening.append(spec.goal)
        self.history.add_user(Text("\n\n".join(opening)), users_words=True)
        # The opening message is always kept whole; of it, only the goal is "the user's words".
        self.history.user_texts[:] = [spec.goal]
        self.opening_index = 0

    def runtime_state(self, step: int, place: str = "") -> str:
        """Zone 3's line: where the run is (the last place read), which step, the local time."""
        stamp = time.strftime("%Y-%m-%d %H:%M %a", time.localtime(self.now()))
        where = f" · on {place}" if place else ""
        return f"[step {step}{where} · local time {stamp}]"

    # -- what is sent -----------------------------------------------------------------

    def view(self) -> list[Message]:
        msgs = self.history.messages
        if self._compressed is None:
            return list(msgs)
        return list(self._compressed.head) + list(msgs[self._compressed.cut :])

    def _request(self, messages: list[Message], purpose: str) -> ModelRequest:
        return ModelRequest(
            system=self.system.build(self.groups.open),
            messages=tuple(sent_messages(messages, self.history)),
            tools=self.groups.specs(),
            cache_marks=(self.opening_index,),
            conversation_id=self.spec.conversation_id or None,
            purpose=purpose,
        )

    def build(self, purpose: str = "main") -> ModelRequest:
        self._maybe_compress()
        return self._request(self.view(), purpose)

    def chat_request(self) -> ModelRequest:
        """For a message judged to be chat: the user's words alone, and no tools.

        Tool calls and results are left out too: some providers refuse a request that
        carries them without tool definitions."""
        said = [self.history.messages[0].text] + [t for t in self.history.user_texts if t != self.spec.goal]
        return ModelRequest(
            system=self.system.build(self.groups.open),
            messages=(Message.user("\n\n".join(said)),),
            conversation_id=self.spec.conversation_id or None,
            purpose="main",
        )

    def build_harsher(self) -> ModelRequest | None:
        """After a context-overflow error: compress one level harder (at least 3) and
        rebuild, or None when nothing is left to fold."""
        if self.level >= MAX_LEVEL and self._compressed is not None:
            return None
        before = self._estimate_view()
        self._apply(max(self.level + 1, 3), before)
        return self._request(self.view(), "main")

    def messages(self) -> list[Message]:
        return list(self.history.messages)

    # -- sizes ----------------------------------------------------------------------

    def cut_result(self, text: str, observation_ids: tuple[str, ...] = ()) -> str:
        """`text` cut to the share of the window one result may take (unchanged without a window)."""
        if not self.window:
            return text
        limit = int(self.window * RESULT_SHARE / max(self.ratio, 0.25))
        size = estimate_text(text)
        if size <= limit:
            return text
        keep = max(200, int(len(text) * limit / size) - 120)
        ids = f"observation {', '.join(observation_ids)}" if observation_ids else "no observation"
        return f"{close_cut(text[:keep])}\n[… {len(text) - keep} more characters cut to fit the context; {ids}]"

    def fixed_tokens(self) -> int:
        return int(estimate_fixed(self.system.build(self.groups.open), self.groups.specs()) * self.ratio)

    def _estimate_view(self, messages: list[Message] | None = None) -> int:
        msgs = sent_messages(self.view() if messages is None else messages, self.history)
        return int(estimate_messages(msgs) * self.ratio)

    def estimate(self, request: ModelRequest) -> int:
        return int((estimate_fixed(request.system, request.tools) + estimate_messages(request.messages)) * self.ratio)

    def calibrate(self, request: ModelRequest, usage: Usage) -> None:
        """Learn how far the estimate is from what the provider counted."""
        if not usage.reported or usage.input_tokens <= 0:
            return
        raw = estimate_fixed(request.system, request.tools) + estimate_messages(request.messages)
        if raw <= 0:
            return
        seen = min(4.0, max(0.25, usage.input_tokens / raw))
        # A moving average: one odd count (a cached prefix counted differently) does not swing it.
        self.ratio = seen if not self.compressions and self.ratio == 1.0 else 0.7 * self.ratio + 0.3 * seen

    # -- compression ----------------------------------------------------------------

    def _limits(self) -> tuple[int, int, int]:
        fixed = self.fixed_tokens()
        budget = max(1, self.window - fixed)
        trigger = int(budget * TRIGGER)
        hard = int(self.window * HARD_CAP) - fixed
        return trigger, trigger // 2, hard

    def _maybe_compress(self) -> None:
        if not self.window:
            return
        if self.history.version == self._compressed_at_version:
            return  # nothing new since the last compression: never twice in a row
        trigger, target, hard = self._limits()
        size = self._estimate_view()
        if size <= trigger:
            return
        if self._last_after > target and size < self._last_after + int(self.window * HYSTERESIS) and size <= hard:
            return  # the last one could not land low; wait for real growth unless near the cap
        self._apply(max(self.level, 1), size)

    def _apply(self, start_level: int, before: int) -> None:
        _trigger, target, _hard = self._limits() if self.window else (0, 0, 0)
        chosen = None
        for level in range(max(1, start_level), MAX_LEVEL + 1):
            candidate = self.recovery.restore(self.compressor.compress(self.history, level), self.history)
            chosen = candidate
            msgs = list(candidate.compressed.head) + list(self.history.messages[candidate.compressed.cut :])
            if not self.window or self._estimate_view(msgs) <= target:
                break
        assert chosen is not None
        self._compressed_at_version = self.history.version
        previous = self._compressed
        self._compressed = chosen.compressed
        after = self._estimate_view()
        if after >= before:
            # Nothing left to fold (the size is the user's words and this step): keep what
            # was sent, so the prefix stays cached, and wait for new input.
            self._compressed = previous
            return
        self.level = chosen.compressed.level
        self._last_after = after
        done = CompressionDone(before, after, self.level, chosen.restored, self.history.version)
        self.compressions.append(done)
        if self.on_compressed is not None:
            self.on_compressed(done)
