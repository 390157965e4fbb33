"""Typed run events: the one stream the TUI, headless output and records read.

Each event is a frozen dataclass with a `type` tag. `to_dict` gives the JSON form that
`events.jsonl` and `--output-format stream-json` carry; `ephemeral` events (streaming
deltas) go to live subscribers but are not written to the record.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True, kw_only=True)
class RunEvent:
    type: ClassVar[str] = "event"
    ephemeral: ClassVar[bool] = False
    run_id: str
    conversation_id: str = ""
    step: int = 0
    at: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        data = {"type": self.type}
        for f in dataclasses.fields(self):
            data[f.name] = _jsonable(getattr(self, f.name))
        return data


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if hasattr(value, "value") and hasattr(value, "name") and not isinstance(value, (str, int)):
        return value.value  # enums
    return value


@dataclass(frozen=True, kw_only=True)
class RunStarted(RunEvent):
    type: ClassVar[str] = "run_started"
    goal: str
    origin: str
    attendance: str
    capabilities: tuple[str, ...] = ()
    read_only: bool = False
    model: str = ""
    # The phone display the run is to work on: {"mode": "virtual"|"main", "id": N}; id -1
    # while the agent's own display is not made yet (it is made on the first phone call).
    display: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class PhaseChanged(RunEvent):
    type: ClassVar[str] = "phase"
    phase: str


@dataclass(frozen=True, kw_only=True)
class ModelRequested(RunEvent):
    type: ClassVar[str] = "model_request"
    purpose: str = "main"
    attempt: int = 1
    messages: int = 0
    tools: int = 0
    estimated_input_tokens: int = 0


@dataclass(frozen=True, kw_only=True)
class AnswerDelta(RunEvent):
    """A piece of streaming reply text, for live display only."""

    type: ClassVar[str] = "delta"
    ephemeral: ClassVar[bool] = True
    text: str


@dataclass(frozen=True, kw_only=True)
class ModelReplied(RunEvent):
    type: ClassVar[str] = "model_reply"
    text: str
    tool_calls: tuple[dict[str, Any], ...] = ()
    usage: dict[str, int] = field(default_factory=dict)
    usage_reported: bool = True
    model: str = ""
    provider: str = ""
    purpose: str = "main"
    stop_reason: str = "end"
    requested_at: float = 0.0
    replied_at: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ModelFailed(RunEvent):
    type: ClassVar[str] = "model_error"
    kind: str
    message: str
    will_retry: bool = False
    retry_in_s: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ModelCancelled(RunEvent):
    """A request abandoned because the user said something new (not written to history)."""

    type: ClassVar[str] = "model_cancelled"
    reason: str = "steer"


@dataclass(frozen=True, kw_only=True)
class ToolCalled(RunEvent):
    type: ClassVar[str] = "tool_call"
    call_id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    origin: str = "model"
    capability: str = ""
    risk: str = "read"
    control: bool = False


@dataclass(frozen=True, kw_only=True)
class ToolFinished(RunEvent):
    type: ClassVar[str] = "tool_result"
    call_id: str
    name: str
    ok: bool
    text: str = ""
    code: str = ""  # machine-readable result code: done, skipped_for_new_message, approval_unavailable…
    # The capability of the tool (phone, web, general …), as on its ToolCalled: a face
    # reading only results (stream-json, the timeline) tells a web step from a phone one.
    capability: str = ""
    effect: str = ""  # done | place_changed | no_effect
    tree_blind: bool = False
    wait_ms: int = 0
    duration_ms: int = 0
    observation_id: str = ""
    frame: str = ""  # frame file name under the run dir, if an image was captured
    # Phone tools: the display the call went to, {"mode": "virtual"|"main", "id": N}.
    display: dict[str, Any] = field(default_factory=dict)
    # Reading tools (phone_collect, phone_extract): the structured rows behind the
    # compact text, kept whole here when the text the model reads is trimmed.
    rows: list[dict[str, Any]] = field(default_factory=list)
    # Long reads (phone_collect, phone_find): why they stopped, whether they read it all.
    read: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class RouteStepSeen(RunEvent):
    """What a replayable call acted on, read just before it ran (only in runs that record
    routes): the place it started from and the anchor (label, resource id, role,
    description — never a coordinate). `anchored` False: the tool could not say."""

    type: ClassVar[str] = "route_step"
    call_id: str
    name: str
    place: dict[str, str] = field(default_factory=dict)
    anchor: dict[str, str] = field(default_factory=dict)
    anchored: bool = True


@dataclass(frozen=True, kw_only=True)
class RouteReplayed(RunEvent):
    """A route was replayed before the first model call: how many of its steps were done,
    and, when it stopped early, the step it handed over at (1-based) and why."""

    type: ClassVar[str] = "route_replayed"
    route_id: str
    steps: int  # of the route
    done: int  # steps replayed and checked
    handed_over_at: int = 0  # 0: all steps done
    reason: str = ""
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class RouteRecorded(RunEvent):
    """Aftercare saved this run's route (`mika routes show ID`)."""

    type: ClassVar[str] = "route_recorded"
    route_id: str
    steps: int
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class ObservationMade(RunEvent):
    type: ClassVar[str] = "observation"
    observation: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Activity(RunEvent):
    """What Mika is doing right now, in words (the step's intent)."""

    type: ClassVar[str] = "activity"
    text: str
    tool: str = ""
    target: str = ""
    outward: bool = False


@dataclass(frozen=True, kw_only=True)
class ApprovalEvent(RunEvent):
    type: ClassVar[str] = "approval"
    decision: str  # asked | allowed | refused | unavailable | released | outward
    tool: str = ""
    app: str = ""
    amount: str = ""
    what: str = ""
    reason: str = ""
    # What the screen showed around the payment button (mika/action/approval_summary.py).
    item: str = ""
    button: str = ""


@dataclass(frozen=True, kw_only=True)
class QuestionAsked(RunEvent):
    type: ClassVar[str] = "question"
    question_id: str
    question: str
    options: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ConfirmationAsked(RunEvent):
    type: ClassVar[str] = "confirmation"
    question_id: str
    what: str  # the model's words
    amount: str  # the model's amount
    app: str = ""
    # What the screen shows (mika/action/approval_summary.py): the card shows these, and
    # `mismatch` says how the model's words differ from them.
    screen_item: str = ""
    screen_amount: str = ""
    screen_app: str = ""
    screen_button: str = ""
    mismatch: tuple[str, ...] = ()
    # "setting" when the step changes a risky setting (screen_button names it; no amount)
    kind: str = "payment"


@dataclass(frozen=True, kw_only=True)
class TakeoverEvent(RunEvent):
    type: ClassVar[str] = "takeover"
    question_id: str
    reason: str  # login | captcha | payment | other
    message: str
    state: str  # asked | taking | done | skipped | cancelled


@dataclass(frozen=True, kw_only=True)
class UserInput(RunEvent):
    type: ClassVar[str] = "user_input"
    kind: str  # steer | redirect | answer | confirm | hand_back | cancel
    text: str = ""
    state: str = "received"  # received | consumed


@dataclass(frozen=True, kw_only=True)
class ToolsOpened(RunEvent):
    type: ClassVar[str] = "tools_opened"
    group: str
    preloaded: bool = False


@dataclass(frozen=True, kw_only=True)
class Compressed(RunEvent):
    type: ClassVar[str] = "compression"
    before_tokens: int
    after_tokens: int
    level: int = 1


@dataclass(frozen=True, kw_only=True)
class SourcesChosen(RunEvent):
    type: ClassVar[str] = "sources"
    observations: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, kw_only=True)
class Notice(RunEvent):
    """A line for the user that is not the answer (device reconnecting, knowledge used)."""

    type: ClassVar[str] = "notice"
    level: str = "info"  # info | warning | error
    text: str = ""


@dataclass(frozen=True, kw_only=True)
class FileShared(RunEvent):
    """A file the run shared with the user (the sandbox's share_file): copied out of the
    workspace to `path` on the user's machine; the TUI shows it as a file card, headless
    prints the path."""

    type: ClassVar[str] = "file_shared"
    name: str
    path: str
    size: int = 0
    source: str = ""  # where it came from (/workspace/…)


@dataclass(frozen=True, kw_only=True)
class KnowledgeGiven(RunEvent):
    """App or site knowledge handed to the model: at the start because the task named it
    ("task"), when the run first read a screen of the app ("screen") or a page of the
    site ("page"), or because the model asked for it ("read")."""

    type: ClassVar[str] = "knowledge_given"
    id: str
    origin: str = ""  # user | shipped
    reason: str = ""  # task | screen | page | read


@dataclass(frozen=True, kw_only=True)
class DisplayChosen(RunEvent):
    """Which phone display the run works on, once decided (and again if it is made anew):
    the record's word on whether the run had its own display or fell back to the main one."""

    type: ClassVar[str] = "display"
    mode: str  # virtual | main
    display_id: int
    reason: str = ""  # why "main" when a display of its own was asked for


@dataclass(frozen=True, kw_only=True)
class ChildRunEvent(RunEvent):
    """A child run started by spawn_agent (seed §6): its own record is under runs/ by
    `child_run_id`; this links the parent's record to it."""

    type: ClassVar[str] = "child_run"
    step: int = 0
    child_run_id: str
    state: str  # started | ended
    goal: str = ""
    status: str = ""  # the child's outcome, when ended
    steps: int = 0
    record_dir: str = ""


@dataclass(frozen=True, kw_only=True)
class RunOutcome(RunEvent):
    type: ClassVar[str] = "outcome"
    status: str  # answered | not_done | stopped | failed | budget_exhausted | approval_refused | device_unavailable
    answer: str = ""
    subtype: str = ""
    reason: str = ""
    steps: int = 0
    usage: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class OutcomeJudged(RunEvent):
    type: ClassVar[str] = "outcome_judged"
    verdict: str  # done | partial | not_possible | unknown
    why: str = ""


@dataclass(frozen=True, kw_only=True)
class SkillDrafted(RunEvent):
    """Aftercare wrote a personal skill draft from this run; it waits for the user to
    accept it (`mika skills accept NAME`, the TUI's Memory screen)."""

    type: ClassVar[str] = "skill_drafted"
    name: str
    description: str = ""


@dataclass(frozen=True, kw_only=True)
class MemoryRemembered(RunEvent):
    """Items the memory extractor stored after the run, from the user's own words:
    each {"id", "kind", "text", "status"} (a procedure's status is "pending")."""

    type: ClassVar[str] = "memory_remembered"
    items: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True, kw_only=True)
class GroundingChecked(RunEvent):
    """Whether the answer's numbers, ids and quotes were found in what was read."""

    type: ClassVar[str] = "grounding"
    grounded: bool
    checked: int = 0
    unsupported: tuple[str, ...] = ()
    wrong_sums: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class IntentJudged(RunEvent):
    type: ClassVar[str] = "intent"
    intent: str  # chat | info | task | unknown


@dataclass(frozen=True, kw_only=True)
class StopSummarized(RunEvent):
    type: ClassVar[str] = "stop_summary"
    text: str
    by_model: bool = False
    outward: int = 0


EVENT_TYPES: dict[str, type[RunEvent]] = {
    cls.type: cls
    for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, RunEvent) and cls is not RunEvent
}
