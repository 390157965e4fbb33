"""What the UI knows about one run, folded from its RunEvents and nothing else.

The app feeds every event of a run to `RunView.apply`; widgets read the view. Kept free
of Textual so the same folding reads recorded runs (the Runs screen) and live ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mika.record import events as ev
from mika.terminal_text import for_terminal as _clean


@dataclass
class Step:
    index: int
    call_id: str
    name: str
    target: str
    started_at: float
    effect: str = ""
    ok: bool | None = None  # None: still going
    code: str = ""
    text: str = ""
    wait_ms: int = 0
    duration_ms: int = 0
    tokens: int = 0
    frame: str = ""
    # For the step's words and its detail (mika/record/step_words.py, the step detail):
    # the call's arguments, its capability, and the model time of the reply that asked for it.
    arguments: dict[str, Any] = field(default_factory=dict)
    capability: str = ""
    think_ms: int = 0
    # Who made the call (mika.action.origin): "replay" and "sandbox" steps are marked in
    # the timeline, since no model chose them at that moment.
    origin: str = ""

    @property
    def live(self) -> bool:
        return self.ok is None


@dataclass(frozen=True)
class Card:
    """Something the run waits for the user on."""

    kind: str  # approval | question | takeover
    question_id: str
    text: str
    options: tuple[str, ...] = ()
    app: str = ""
    amount: str = ""
    reason: str = ""
    # Approval: where the model's words differ from the screen (already sentences).
    notes: tuple[str, ...] = ()


def target_of(arguments: dict[str, Any]) -> str:
    """The one argument a person recognises the step by (label, text, app…)."""
    for key in ("label", "text", "target", "app", "package", "query", "url", "page", "question", "message"):
        value = arguments.get(key)
        if isinstance(value, (str, int, float)) and str(value).strip():
            return str(value)
    if not arguments:
        return ""
    # Screen elements the way the listing names them: #number, or @x,y for a point.
    if isinstance(arguments.get("element"), (int, str)) and str(arguments["element"]).strip():
        return f"#{arguments['element']}"
    if isinstance(arguments.get("x"), (int, float)) and isinstance(arguments.get("y"), (int, float)):
        return f"@{arguments['x']:g},{arguments['y']:g}"
    raw = json.dumps(arguments, ensure_ascii=False)
    return raw if len(raw) <= 60 else raw[:59] + "…"


@dataclass
class RunView:
    run_id: str
    goal: str = ""
    conversation_id: str = ""
    # The app's clock (fixed in tests); without one, the events' own times are used.
    clock: Callable[[], float] | None = None
    started_at: float = 0.0
    ended_at: float = 0.0
    answer: str = ""
    streamed: str = ""
    status: str = ""  # "" while running, then the outcome status
    reason: str = ""
    steps: list[Step] = field(default_factory=list)
    card: Card | None = None
    sources: tuple[dict[str, Any], ...] = ()
    tokens_in: int = 0
    tokens_out: int = 0
    step_count: int = 0
    activity: str = ""
    notices: list[str] = field(default_factory=list)
    _pending_tokens: int = 0
    _pending_think_ms: int = 0

    @property
    def running(self) -> bool:
        return not self.status

    @property
    def needs_you(self) -> bool:
        return self.card is not None

    def elapsed(self, now: float) -> float:
        end = self.ended_at or now
        return max(0.0, end - self.started_at) if self.started_at else 0.0

    def _now(self, event: ev.RunEvent) -> float:
        return self.clock() if self.clock is not None else event.at

    def apply(self, event: ev.RunEvent | dict[str, Any]) -> None:
        if isinstance(event, dict):
            parsed = _from_dict(event)
            if parsed is None:
                return
            event = parsed
        handler = getattr(self, "_on_" + type(event).__name__, None)
        if handler is not None:
            handler(event)

    # Every text below came from a model, a screen or a person: terminal controls are dropped
    # here, once, so no widget (Segments of the timeline included) can write one raw.
    def _on_RunStarted(self, e: ev.RunStarted) -> None:
        self.goal = _clean(e.goal)
        self.conversation_id = self.conversation_id or e.conversation_id
        self.started_at = self.started_at or self._now(e)

    def _on_AnswerDelta(self, e: ev.AnswerDelta) -> None:
        self.streamed += _clean(e.text)

    def _on_ModelReplied(self, e: ev.ModelReplied) -> None:
        tokens = int(e.usage.get("input", 0) or e.usage.get("input_tokens", 0)) + int(
            e.usage.get("output", 0) or e.usage.get("output_tokens", 0)
        )
        self.tokens_in += int(e.usage.get("input", 0) or e.usage.get("input_tokens", 0))
        self.tokens_out += int(e.usage.get("output", 0) or e.usage.get("output_tokens", 0))
        # The reply's tokens belong to the steps it asked for.
        self._pending_tokens = tokens
        self._pending_think_ms = int(max(0.0, e.replied_at - e.requested_at) * 1000) if e.requested_at else 0
        if e.tool_calls:
            self.streamed = ""  # text before tool calls was commentary, not the answer

    def _on_ToolCalled(self, e: ev.ToolCalled) -> None:
        step = Step(
            len(self.steps) + 1,
            e.call_id,
            _clean(e.name),
            _clean(target_of(e.arguments)),
            self._now(e),
            tokens=self._pending_tokens,
            arguments={k: _clean(v) if isinstance(v, str) else v for k, v in e.arguments.items()},
            capability=_clean(e.capability),
            think_ms=self._pending_think_ms,
            origin=_clean(e.origin),
        )
        self._pending_tokens = 0
        self._pending_think_ms = 0
        self.steps.append(step)

    def _on_ToolFinished(self, e: ev.ToolFinished) -> None:
        step = next((s for s in reversed(self.steps) if s.call_id == e.call_id), None)
        if step is None:
            return
        step.ok, step.code, step.text, step.effect = e.ok, _clean(e.code), _clean(e.text), _clean(e.effect)
        step.wait_ms, step.duration_ms, step.frame = e.wait_ms, e.duration_ms, e.frame
        if self.card is not None and step.name in ("ask_user", "hand_to_user", "request_confirmation"):
            self.card = None

    def _on_Activity(self, e: ev.Activity) -> None:
        self.activity = _clean(e.text)

    def _on_Notice(self, e: ev.Notice) -> None:
        self.notices.append(_clean(e.text))

    def _on_ConfirmationAsked(self, e: ev.ConfirmationAsked) -> None:
        # The screen's item, amount and app; the model's words only where the screen said nothing.
        self.card = Card(
            "approval",
            e.question_id,
            _clean(e.screen_item or e.what),
            app=_clean(e.screen_app or e.app),
            amount=_clean(e.screen_amount or e.amount),
            reason=_clean(e.kind),  # payment | setting (a risky setting change: no amount)
            notes=tuple(_clean(n) for n in e.mismatch),
        )

    def _on_QuestionAsked(self, e: ev.QuestionAsked) -> None:
        self.card = Card("question", e.question_id, _clean(e.question), options=tuple(_clean(o) for o in e.options))

    def _on_TakeoverEvent(self, e: ev.TakeoverEvent) -> None:
        if e.state == "asked":
            self.card = Card("takeover", e.question_id, _clean(e.message), reason=_clean(e.reason))
        elif self.card is not None and self.card.question_id == e.question_id:
            self.card = None

    def _on_SourcesChosen(self, e: ev.SourcesChosen) -> None:
        self.sources = tuple(e.observations)

    def _on_RunOutcome(self, e: ev.RunOutcome) -> None:
        self.status = e.status
        self.answer = _clean(e.answer)
        self.reason = _clean(e.reason)
        # Steps a person counts are actions (the timeline rows), not model turns.
        self.step_count = len(self.steps)
        self.ended_at = self._now(e)
        self.card = None
        for step in self.steps:
            if step.ok is None:
                step.ok, step.code = False, "stopped"


def _from_dict(data: dict[str, Any]) -> ev.RunEvent | None:
    """A recorded event (events.jsonl) back into its type; unknown fields are dropped."""
    cls = ev.EVENT_TYPES.get(str(data.get("type", "")))
    if cls is None:
        return None
    import dataclasses

    names = {f.name for f in dataclasses.fields(cls)}
    kwargs = {k: v for k, v in data.items() if k in names}
    for key, value in list(kwargs.items()):
        if isinstance(value, list):
            kwargs[key] = tuple(value)
    try:
        return cls(**kwargs)
    except TypeError:
        return None


def format_elapsed(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    minutes, sec = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{sec:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
