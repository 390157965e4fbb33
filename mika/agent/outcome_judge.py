"""`OutcomeJudge`: after the answer is delivered, was the task really done? (seed §3)

The light model first (the main one if there is none or it fails), 30 s. The verdict —
done / partial / not possible / unknown — goes into the record; it never changes the
answer. Replay and learning trust only "done".
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mika.agent.model_caller import side_call
from mika.agent.stop_summary import read_record
from mika.model.base import Model
from mika.model.messages import Message, ModelRequest
from mika.record.events import RunEvent
from mika.resources import prompt

JUDGE_TIMEOUT_S = 30.0


class Verdict(enum.Enum):
    DONE = "done"
    PARTIAL = "partial"
    NOT_POSSIBLE = "not_possible"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    why: str = ""


def parse_verdict(text: str) -> Judgement:
    """First line: the verdict word; the rest: one sentence of why."""
    lines = text.strip().splitlines()
    if not lines:
        return Judgement(Verdict.UNKNOWN, "the judge gave no reply")
    word = lines[0].strip().strip(".*`\"'").lower().replace(" ", "_").replace("-", "_")
    why = " ".join(ln.strip() for ln in lines[1:]).strip()
    for v in Verdict:
        if word == v.value:
            return Judgement(v, why)
    return Judgement(Verdict.UNKNOWN, f"unreadable verdict: {lines[0][:60]}")


@dataclass
class OutcomeJudge:
    models: Sequence[Model | None]  # light first, then main
    timeout: float = JUDGE_TIMEOUT_S

    def request(self, goal: str, status: str, answer: str, digest: str) -> ModelRequest:
        body = (
            f"Task: {goal}\nHow the run ended: {status}\nAnswer given:\n{answer}\n\nRecord:\n{digest or '(no actions)'}"
        )
        return ModelRequest(
            system=prompt("roles/judge.md"), messages=(Message.user(body),), max_output_tokens=120, purpose="judge"
        )

    async def judge(self, goal: str, status: str, answer: str, events: Iterable[RunEvent]) -> Judgement:
        facts = read_record(events)
        response = await side_call(self.models, self.request(goal, status, answer, facts.digest), self.timeout)
        if response is None:
            return Judgement(Verdict.UNKNOWN, "no judge answered in time")
        return parse_verdict(response.message.text)
