"""What a schedule is (seed §10 TriggerDefinition): its kind, what to do, when, and
where the results go. Values only; when it is due is `mika.trigger.timing`, what
happened so far is `mika.trigger.store`."""

from __future__ import annotations

import enum
import secrets
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any


class TriggerKind(enum.Enum):
    REMINDER = "reminder"  # delivered as written at its time; no model call at all
    TASK = "task"  # an unattended run in its conversation
    CONDITION = "condition"  # a read-only check first; the task only on a false→true edge


class TimingKind(enum.Enum):
    AT = "at"  # once, at an instant fixed when the schedule was made
    EVERY = "every"  # a fixed interval from the first due time
    DAILY = "daily"  # a local wall-clock time, every day or on some weekdays


WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@dataclass(frozen=True)
class Timing:
    kind: TimingKind
    # AT: the instant; EVERY: the first due instant (the phase of the interval). Aware, UTC.
    at: datetime | None = None
    every_s: int = 0
    # DAILY: wall-clock hour and minute in `zone`, on `weekdays` (0 = Monday; empty: every day).
    hour: int = 0
    minute: int = 0
    weekdays: frozenset[int] = frozenset()
    # An IANA zone name; "" is the machine's local zone, read when the time is computed.
    zone: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "at": iso(self.at) if self.at else "",
            "every_s": self.every_s,
            "hour": self.hour,
            "minute": self.minute,
            "weekdays": sorted(self.weekdays),
            "zone": self.zone,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Timing:
        at = str(d.get("at") or "")
        return cls(
            kind=TimingKind(d.get("kind", "at")),
            at=parse_iso(at) if at else None,
            every_s=int(d.get("every_s", 0)),
            hour=int(d.get("hour", 0)),
            minute=int(d.get("minute", 0)),
            weekdays=frozenset(int(x) for x in d.get("weekdays", ())),
            zone=str(d.get("zone", "")),
        )

    def describe(self) -> str:
        """One line for lists: `at 2026-05-01 08:30Z`, `every 15m`, `daily 07:30 mon,fri Europe/Berlin`."""
        zone = f" {self.zone}" if self.zone else ""
        if self.kind is TimingKind.AT:
            assert self.at is not None
            return f"at {iso(self.at)}"
        if self.kind is TimingKind.EVERY:
            return f"every {format_duration(self.every_s)}"
        days = f" {','.join(WEEKDAYS[d] for d in sorted(self.weekdays))}" if self.weekdays else ""
        return f"daily {self.hour:02d}:{self.minute:02d}{days}{zone}"


def new_trigger_id() -> str:
    return "s" + secrets.token_hex(4)


@dataclass(frozen=True)
class Trigger:
    id: str
    kind: TriggerKind
    goal: str  # what to do, or the reminder's words
    timing: Timing
    conversation_id: str
    condition: str = ""  # CONDITION only: what the read-only check looks for
    when_idle: bool = False  # wait while the conversation has a run going
    paused: bool = False
    created: float = 0.0  # epoch seconds
    created_by: str = ""  # "cli", "tool:<run id>": where it was made (for the record)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind.value,
            "goal": self.goal,
            "timing": self.timing.to_dict(),
            "conversation_id": self.conversation_id,
            "condition": self.condition,
            "when_idle": self.when_idle,
            "paused": self.paused,
            "created": self.created,
            "created_by": self.created_by,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Trigger:
        return cls(
            id=str(d["id"]),
            kind=TriggerKind(d.get("kind", "task")),
            goal=str(d.get("goal", "")),
            timing=Timing.from_dict(dict(d.get("timing", {}))),
            conversation_id=str(d.get("conversation_id", "")),
            condition=str(d.get("condition", "")),
            when_idle=bool(d.get("when_idle", False)),
            paused=bool(d.get("paused", False)),
            created=float(d.get("created", 0.0)),
            created_by=str(d.get("created_by", "")),
        )

    def with_(self, **fields: Any) -> Trigger:
        return replace(self, **fields)


@dataclass(frozen=True)
class TriggerStatus:
    """A trigger as the store holds it: the definition and what happened so far.
    The Plans screen and `mika schedule list` read this."""

    trigger: Trigger
    next_due: datetime | None  # None: nothing more to do (a one-off that ran)
    last_window: str = ""
    last_result: str = ""
    last_result_at: float = 0.0
    last_value: bool | None = None  # CONDITION: the last known check result
    windows: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.trigger.id

    @property
    def paused(self) -> bool:
        return self.trigger.paused

    @property
    def finished(self) -> bool:
        return self.next_due is None


def iso(moment: datetime) -> str:
    """An instant as UTC ISO with a Z, to the second: the form window ids are made of."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def parse_iso(text: str) -> datetime:
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def window_id(trigger_id: str, due: datetime) -> str:
    """A window is one due time of one trigger; its id is never dispatched twice."""
    return f"{trigger_id}@{iso(due)}"


def format_duration(seconds: int) -> str:
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size:
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
    return "".join(parts) or "0s"


class TriggerError(ValueError):
    """A schedule that can't be made as asked; `str()` says why and what to do."""


def build_trigger(
    *,
    goal: str,
    timing: Timing,
    conversation_id: str,
    reminder: bool = False,
    condition: str = "",
    when_idle: bool = False,
    created_by: str = "",
) -> Trigger:
    """The one way a schedule is made (the CLI and the schedule_task tool): the kind
    follows from `reminder` / `condition`, which can't go together."""
    from mika.trigger.texts import t

    text = " ".join(goal.split())
    if not text:
        raise TriggerError(t("empty_goal"))
    condition = " ".join(condition.split())
    if reminder and condition:
        raise TriggerError(t("condition_and_reminder"))
    kind = TriggerKind.REMINDER if reminder else TriggerKind.CONDITION if condition else TriggerKind.TASK
    return Trigger(
        new_trigger_id(),
        kind,
        text,
        timing,
        conversation_id=conversation_id,
        condition=condition,
        when_idle=when_idle,
        created_by=created_by,
    )
