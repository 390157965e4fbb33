"""`ContextCompressor`: make the history fit, without calling a model (seed §7).

It never edits the history: from the full history and a level it builds a shorter copy
of everything before the last few turns (the head). The turns after that stay the live
messages themselves, so between two compressions requests keep growing append-only and
their prefix stays byte-identical.

Levels tighten step by step:
1. results older than the last 12 turns shrink: screen reads become placeholders that
   keep their observation ids, long page / command / file texts are cut;
2. those old turns are also folded into "Earlier steps (compressed)";
3–5. fold everything but the last 6, 3, 1 turns; at 5 the folded lines are shortest.

Never trimmed: the user's own words (kept verbatim inside the fold), the opening
context, turns that asked the user (ask / confirm / takeover), which stay whole, and a
screen a delta in the live tail builds on (its turn stays whole too).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from mika.agent.history import (
    History,
    ResultInfo,
    ResultKind,
    image_line,
    observation_ids_text,
    screen_placeholder,
    still_needed,
)
from mika.model.messages import Image, Message, ModelRequest, Part, Text, Thinking, ToolCall, ToolResult, ToolSpec
from mika.resources import prompt

MAX_LEVEL = 5
# Tokens one screenshot costs at a provider (a phone screen, downscaled): a fixed guess
# that the calibration against reported usage corrects.
IMAGE_TOKENS = 1000


@dataclass(frozen=True)
class Level:
    number: int
    raw_turns: int  # turns at the end left exactly as they are (the live tail)
    fold: bool  # fold the turns before the tail (else only shrink them)
    cut_chars: int  # long result texts before the tail are cut to this
    short_lines: bool  # the folded lines say only tool, code and ids


LEVELS: dict[int, Level] = {
    1: Level(1, 12, False, 1500, False),
    2: Level(2, 12, True, 1500, False),
    3: Level(3, 6, True, 800, False),
    4: Level(4, 3, True, 500, False),
    5: Level(5, 1, True, 300, True),
}


def estimate_text(text: str) -> int:
    """Rough tokens of a text: ~4 ASCII characters a token, one token per other character
    (CJK text runs about a token a character)."""
    if text.isascii():
        return (len(text) + 3) // 4
    ascii_chars = len(text.encode("ascii", "ignore"))
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


def estimate_part(part: Part) -> int:
    if isinstance(part, Text):
        return estimate_text(part.text)
    if isinstance(part, Image):
        return IMAGE_TOKENS
    if isinstance(part, ToolCall):
        return (
            8
            + estimate_text(part.name)
            + estimate_text(part.raw_arguments or json.dumps(part.arguments, ensure_ascii=False))
        )
    if isinstance(part, ToolResult):
        return 8 + estimate_text(part.text) + (IMAGE_TOKENS if part.image is not None else 0)
    if isinstance(part, Thinking):
        return estimate_text(part.text)
    return 0


def estimate_messages(messages: list[Message] | tuple[Message, ...]) -> int:
    return sum(4 + sum(estimate_part(p) for p in m.parts) for m in messages)


# The last few (system, tools) sizes. A run's tool list is one tuple per set of open
# groups (mika.tool.groups), asked about several times a step (the compression check, the
# request's estimate, calibration): a JSON dump of every tool's parameters each time was
# a millisecond a step. Keyed by the tuple's identity, kept alive beside its size.
_FIXED: dict[tuple[str, int], tuple[object, int]] = {}
_FIXED_KEEP = 16


def estimate_fixed(system: str, tools: Iterable[ToolSpec]) -> int:
    key = (system, id(tools))
    hit = _FIXED.get(key)
    if hit is not None and hit[0] is tools:
        return hit[1]
    size = _estimate_fixed(system, tools)
    if isinstance(tools, tuple):  # immutable: the same object always has the same size
        if len(_FIXED) >= _FIXED_KEEP:
            _FIXED.pop(next(iter(_FIXED)))
        _FIXED[key] = (tools, size)
    return size


def _estimate_fixed(system: str, tools: Iterable[ToolSpec]) -> int:
    size = estimate_text(system)
    for t in tools:
        size += (
            8
            + estimate_text(t.name)
            + estimate_text(t.description)
            + estimate_text(json.dumps(t.parameters, sort_keys=True))
        )
    return size


def estimate_request(request: ModelRequest) -> int:
    return estimate_fixed(request.system, request.tools) + estimate_messages(request.messages)


@dataclass(frozen=True)
class Compressed:
    head: tuple[Message, ...]  # stands for history.messages[:cut]
    cut: int  # index of the first live message (an assistant turn), or len(history)
    level: int


def turn_starts(messages: list[Message]) -> list[int]:
    """Indexes where a turn (an assistant message and the user content after it) starts."""
    return [i for i, m in enumerate(messages) if m.role == "assistant"]


def shrink_result(result: ToolResult, info: ResultInfo | None, cut_chars: int) -> ToolResult:
    if info is not None and info.protected:
        return result
    if info is not None and info.kind is ResultKind.SCREEN:
        return screen_placeholder(result, info)
    if len(result.text) > cut_chars:
        ids = info.observation_ids if info else ()
        omitted = len(result.text) - cut_chars
        text = f"{result.text[:cut_chars]}\n[… {omitted} more characters cut; {observation_ids_text(ids)}]"
        return ToolResult(result.call_id, result.name, text, None, result.is_error)
    if result.image is not None:
        return ToolResult(result.call_id, result.name, result.text, None, result.is_error)
    return result


class ContextCompressor:
    def __init__(self, levels: dict[int, Level] | None = None) -> None:
        self.levels = levels or LEVELS
        self._needed: set[str] = set()

    def compress(self, history: History, level: int) -> Compressed:
        lv = self.levels[max(1, min(level, MAX_LEVEL))]
        msgs = history.messages
        starts = turn_starts(msgs)
        if len(starts) <= lv.raw_turns:
            # Too few turns for this level: nothing is replaced (the whole history stays live).
            return Compressed((), 0, lv.number)
        cut = starts[-lv.raw_turns]
        first_turn = starts[0]
        head: list[Message] = list(msgs[:first_turn])  # the opening, verbatim
        pending: list[str] = []
        user_texts = set(history.user_texts) | set(history.kept_texts)

        def flush() -> None:
            if not pending:
                return
            block = prompt("feedback/earlier_steps.md") + "\n" + "\n".join(pending)
            pending.clear()
            last = head[-1]
            head[-1] = Message(last.role, (*last.parts, Text(block)))

        turn_bounds = [(s, e) for s, e in zip(starts, [*starts[1:], len(msgs)], strict=False) if s < cut]
        # A screen the live tail builds on (a delta names it as its base) stays whole, turn and all.
        head_screens = {
            r.call_id
            for m in msgs[:cut]
            for r in m.tool_results
            if (info := history.results.get(r.call_id)) is not None and info.kind is ResultKind.SCREEN
        }
        self._needed = still_needed(msgs[cut:], history, head_screens)
        for start, end in turn_bounds:
            assistant = msgs[start]
            users = msgs[start + 1 : end]
            needed = any(r.call_id in self._needed for m in users for r in m.tool_results)
            if not lv.fold or start in history.exchanges or needed:
                flush()
                head.append(self._shrink_message(assistant, history, lv))
                head.extend(self._shrink_message(m, history, lv) for m in users)
                continue
            pending.extend(self._fold_lines(assistant, users, history, lv, user_texts))
        flush()
        # The head must end on the user side so the live tail (an assistant turn) alternates.
        if head and head[-1].role == "assistant" and cut < len(msgs):
            head.append(Message("user", (Text("(continued)"),)))
        return Compressed(tuple(head), cut, lv.number)

    def _shrink_message(self, message: Message, history: History, lv: Level) -> Message:
        parts: list[Part] = []
        for p in message.parts:
            if isinstance(p, ToolResult) and p.call_id in self._needed:
                parts.append(p)
            elif isinstance(p, ToolResult):
                parts.append(shrink_result(p, history.results.get(p.call_id), lv.cut_chars))
            elif isinstance(p, Image):
                parts.append(image_line(p))
            else:
                parts.append(p)
        return Message(message.role, tuple(parts))

    def _fold_lines(
        self, assistant: Message, users: list[Message], history: History, lv: Level, user_texts: set[str]
    ) -> list[str]:
        results = {r.call_id: r for m in users for r in m.tool_results}
        lines: list[str] = []
        said = assistant.text.strip().replace("\n", " ")
        for call in assistant.tool_calls:
            info = history.results.get(call.id)
            result = results.get(call.id)
            step = f"step {info.step}" if info else "step ?"
            ids = f" [{', '.join(info.observation_ids)}]" if info and info.observation_ids else ""
            if lv.short_lines:
                code = info.code if info and info.code else ("error" if result and result.is_error else "ok")
                lines.append(f"- {step}: {call.name} → {code}{ids}")
                continue
            args = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
            if len(args) > 80:
                args = args[:77] + "…"
            outcome = ""
            if result is not None:
                if info and info.kind is ResultKind.SCREEN:
                    outcome = "read the screen"
                else:
                    outcome = result.text.strip().replace("\n", " ")
                    if len(outcome) > 100:
                        outcome = outcome[:97] + "…"
            lines.append(f"- {step}: {call.name} {args} → {outcome}{ids}")
        if not assistant.tool_calls and said and not lv.short_lines:
            lines.append(f"- you said: {said[:120]}")
        # The user's words (and kept context blocks) stay verbatim, in their place among the steps.
        for m in users:
            for p in m.parts:
                if isinstance(p, Text) and p.text in user_texts:
                    lines.append(p.text)
        return lines
