"""What the task center writes after a run, off the path of the next one: a conversation's
title after its first turn, and the stop summary of a run that could not write its own.

Both are side calls that prefer the light model (seed: titles, judge and stop summaries
use the run's light model, falling back to main). A scripted model gets neither: its
replies are the run's, in order, and a side call would take one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mika.agent.model_caller import side_call
from mika.agent.stop_summary import StopSummary
from mika.model.base import Model
from mika.model.messages import Message, ModelRequest
from mika.observe.observation import wrap_untrusted
from mika.record.events import EVENT_TYPES, RunEvent, ToolCalled, ToolFinished
from mika.record.recorder import find_run, read_events
from mika.resources import prompt
from mika.run.ui_text import t
from mika.runtypes.result import RunResult
from mika.runtypes.spec import RunSpec

TITLE_TIMEOUT_S = 8.0
TITLE_MAX_CHARS = 60
_ANSWER_CHARS = 600


@dataclass
class TitleMaker:
    """`TaskCenter(title_maker=…)`: a short name from the first goal and its answer."""

    models: Sequence[Model | None]  # light first, then main
    timeout: float = TITLE_TIMEOUT_S

    def request(self, goal: str, answer: str) -> ModelRequest:
        # The answer may quote screens of other apps: it is data, fenced like any untrusted text.
        body = f"User: {goal}\nAnswer: {wrap_untrusted(answer[:_ANSWER_CHARS])}"
        return ModelRequest(
            system=prompt("roles/title.md"), messages=(Message.user(body),), max_output_tokens=40, purpose="title"
        )

    async def __call__(self, spec: RunSpec, result: RunResult) -> str:
        response = await side_call(self.models, self.request(spec.goal, result.answer), self.timeout)
        text = response.message.text if response is not None else ""
        # One line, bounded: a model that rambles names the conversation by its first line.
        line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        return line[:TITLE_MAX_CHARS]


@dataclass
class RecordStopSummary:
    """`TaskCenter(stop_summary=…)`. A run stopped by the user writes its own summary in
    its aftercare (TaskRun); this covers the runs that ended stopped with only the bare
    "Stopped." (their driver was cancelled before aftercare), reading the run's record
    on disk — redacted, so no secret reaches the model."""

    models: Sequence[Model | None]
    state_dir: Path

    async def __call__(self, spec: RunSpec, result: RunResult) -> str:
        if result.answer.strip() not in (t("stopped", "en"), t("stopped", "zh"), ""):
            return ""  # the run summarised itself; the turn already has it
        run_dir = find_run(self.state_dir, spec.id)
        events = _tool_events(read_events(run_dir)) if run_dir is not None else []
        text, _by_model = await StopSummary(self.models).summarize(spec.goal, events)
        return text


def _tool_events(rows: list[dict]) -> list[RunEvent]:
    """The tool calls and results of a record (all the stop summary reads)."""
    out: list[RunEvent] = []
    for row in rows:
        cls = EVENT_TYPES.get(str(row.get("type")))
        if cls not in (ToolCalled, ToolFinished):
            continue
        names = {f.name for f in dataclasses.fields(cls)}
        try:
            out.append(cls(**{k: v for k, v in row.items() if k in names}))
        except TypeError:
            continue  # a line from an older record without a field this version needs
    return out
