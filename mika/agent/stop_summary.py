"""`StopSummary`: what was done before the user pressed stop (seed §3).

One model call (the light model first, 12 s, no tools) over the run's record; when no
model answers in time, a plain summary built from the record itself. Either way it says
how many outward actions (sending, posting, submitting) were really done, since those
cannot be taken back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mika.agent.model_caller import side_call
from mika.config.language import ui_language
from mika.model.base import Model
from mika.model.messages import Message, ModelRequest
from mika.record.events import RunEvent, ToolCalled, ToolFinished
from mika.resources import prompt

SUMMARY_TIMEOUT_S = 12.0
DIGEST_LINES = 60

PLAIN: dict[str, dict[str, str]] = {
    "en": {
        "none": "Stopped before anything was done.",
        "some": "Stopped after {steps} step(s): {actions}.",
        "outward": " {n} outward action(s) were already done and cannot be undone: {what}.",
        "no_outward": " Nothing was sent or submitted.",
    },
    "zh": {
        "none": "已停止，还没做任何事。",
        "some": "已停止，做了 {steps} 步：{actions}。",
        "outward": "已经做了 {n} 个对外动作，无法撤回：{what}。",
        "no_outward": "没有发送或提交任何内容。",
    },
}


@dataclass(frozen=True)
class RecordFacts:
    """What the record says was done: tool calls that ran, and which were outward."""

    done: tuple[str, ...]  # "tool(args)" of each call that finished ok
    outward: tuple[str, ...]
    steps: int
    digest: str  # a compact text of the run for a model to read


def read_record(events: Iterable[RunEvent]) -> RecordFacts:
    calls: dict[str, ToolCalled] = {}
    done: list[str] = []
    outward: list[str] = []
    lines: list[str] = []
    steps = 0
    for e in events:
        steps = max(steps, e.step)
        if isinstance(e, ToolCalled):
            calls[e.call_id] = e
        elif isinstance(e, ToolFinished):
            call = calls.get(e.call_id)
            args = ", ".join(f"{k}={v}" for k, v in (call.arguments if call else {}).items())
            label = f"{e.name}({args[:80]})"
            result = e.text.replace("\n", " ")[:160]
            lines.append(f"step {e.step}: {label} → {'ok' if e.ok else e.code}: {result}")
            if e.ok and call is not None and not call.control:
                done.append(label)
                if call.risk == "external":
                    outward.append(label)
    if len(lines) > DIGEST_LINES:
        lines = [*lines[:10], f"… {len(lines) - DIGEST_LINES} steps …", *lines[-(DIGEST_LINES - 10) :]]
    return RecordFacts(tuple(done), tuple(outward), steps, "\n".join(lines))


def plain_summary(facts: RecordFacts, lang: str | None = None) -> str:
    t = PLAIN.get(lang or ui_language(), PLAIN["en"])
    if not facts.done:
        return t["none"]
    shown = ", ".join(facts.done[-5:]) + (" …" if len(facts.done) > 5 else "")
    text = t["some"].format(steps=facts.steps, actions=shown)
    if facts.outward:
        text += t["outward"].format(n=len(facts.outward), what=", ".join(facts.outward[:5]))
    else:
        text += t["no_outward"]
    return text


@dataclass
class StopSummary:
    models: Sequence[Model | None]  # light first, then main
    timeout: float = SUMMARY_TIMEOUT_S
    lang: str | None = None

    def request(self, goal: str, facts: RecordFacts) -> ModelRequest:
        lang = self.lang or ui_language()
        body = (
            f"Task: {goal}\nReply in: {'Chinese' if lang == 'zh' else 'English'}\n"
            f"Outward actions done: {len(facts.outward)}\nRecord:\n{facts.digest or '(nothing was done)'}"
        )
        return ModelRequest(
            system=prompt("roles/stop_summary.md"),
            messages=(Message.user(body),),
            max_output_tokens=300,
            purpose="summary",
        )

    async def summarize(self, goal: str, events: Iterable[RunEvent]) -> tuple[str, bool]:
        """(summary, written_by_model)."""
        facts = read_record(events)
        if not facts.done:
            return plain_summary(facts, self.lang), False
        response = await side_call(self.models, self.request(goal, facts), self.timeout)
        text = response.message.text.strip() if response is not None else ""
        if not text:
            return plain_summary(facts, self.lang), False
        if facts.outward and str(len(facts.outward)) not in text:
            # The count of outward actions is a fact from the record, not the model's to drop.
            t = PLAIN.get(self.lang or ui_language(), PLAIN["en"])
            text += t["outward"].format(n=len(facts.outward), what=", ".join(facts.outward[:5]))
        return text, True
