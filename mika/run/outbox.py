"""`Outbox`: results, questions and notices go out through here, recorded first.

Each delivery has an id (`answer:<run>`, `interrupted:<run>`, `uncertain:<id>`,
`failed:<id>`, …) and moves Pending → Attempting → Delivered / Failed / Uncertain in
the ledger `<state>/outbox.json`. An id that is already in the ledger is never sent
again, whoever asks (another process, a second recovery). A delivery that was
Attempting when its process died is Uncertain: it may have reached the user, so it is
never re-sent automatically — recovery tells the user it may already have arrived.

Channels on a PC: the TUI transcript, a desktop notification, headless stdout. A
channel's `send` returns when the text reached its target, raises `DeliveryFailed`
when it certainly did not, and any other exception means "don't know" (Uncertain).
"""

from __future__ import annotations

import enum
import logging
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from mika.run.leased_table import LeasedTable
from mika.run.state_lock import ProcessLease, lease_alive
from mika.run.ui_text import t
from mika.terminal_text import for_terminal

log = logging.getLogger("mika.run")

# Every entry younger than KEEP_ALWAYS_S stays: longer than run-state.json keeps a
# finished run (7 days), so a run that was told is never seen again without its entry.
# Older ones are kept up to KEEP_MAX (the file is rewritten on every delivery; see
# benchmarks/run_state.py) and never past KEEP_S.
KEEP_ALWAYS_S = 8 * 24 * 3600
KEEP_S = 30 * 24 * 3600
KEEP_MAX = 1000


class DeliveryState(enum.Enum):
    PENDING = "pending"
    ATTEMPTING = "attempting"
    DELIVERED = "delivered"
    FAILED = "failed"
    UNCERTAIN = "uncertain"


@dataclass(frozen=True)
class Delivery:
    id: str
    text: str
    conversation_id: str = ""
    run_id: str = ""
    kind: str = "answer"  # answer | question | notice
    level: str = "info"  # info | warning | error
    recovered: bool = False  # sent by recovery after a restart

    @property
    def display_text(self) -> str:
        return (t("recovered_prefix") + self.text) if self.recovered else self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "conversation_id": self.conversation_id,
            "run_id": self.run_id,
            "kind": self.kind,
            "level": self.level,
            "recovered": self.recovered,
        }


class DeliveryFailed(Exception):
    """Raised by a channel that certainly did not deliver (no notifier, closed stream)."""


class Channel(Protocol):
    name: str

    def send(self, delivery: Delivery) -> None: ...


@dataclass(frozen=True)
class LedgerEntry:
    id: str
    state: DeliveryState
    owner: str
    created_at: float
    updated_at: float
    delivery: dict[str, Any]
    channels: dict[str, str]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LedgerEntry:
        return cls(
            id=str(d["id"]),
            state=_state(d.get("state")),
            owner=str(d.get("owner", "")),
            created_at=float(d.get("created_at", 0.0)),
            updated_at=float(d.get("updated_at", 0.0)),
            delivery=dict(d.get("delivery", {})),
            channels=dict(d.get("channels", {})),
        )


class Outbox(LeasedTable):
    filename = "outbox.json"
    key = "entries"

    def __init__(
        self,
        state_dir: Path | str | None = None,
        channels: Iterable[Channel] = (),
        *,
        lease: ProcessLease | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(state_dir, lease=lease, clock=clock)
        self.channels: list[Channel] = list(channels)

    # -- ledger -------------------------------------------------------------------------

    def _prune(self, rows: dict[str, dict[str, Any]], now: float) -> dict[str, dict[str, Any]]:
        return _pruned(rows, now)

    def entry(self, delivery_id: str) -> LedgerEntry | None:
        raw = self._rows().get(delivery_id)
        return LedgerEntry.from_dict(raw) if raw else None

    def state(self, delivery_id: str) -> DeliveryState | None:
        entry = self.entry(delivery_id)
        return entry.state if entry else None

    def entries(self) -> list[LedgerEntry]:
        raw = self._rows()
        return sorted((LedgerEntry.from_dict(v) for v in raw.values()), key=lambda e: e.created_at)

    def has_any(self, *delivery_ids: str) -> bool:
        raw = self._rows()
        return any(i in raw for i in delivery_ids)

    # -- delivering ---------------------------------------------------------------------

    def deliver(self, delivery: Delivery, channels: Iterable[Channel] | None = None) -> DeliveryState:
        """Send `delivery` once. Returns its state afterwards; if the id was already in
        the ledger nothing is sent and the recorded state is returned."""
        now = self._clock()
        owner = self.owner

        def record(entries: dict[str, dict[str, Any]]) -> DeliveryState | None:
            existing = entries.get(delivery.id)
            if existing is not None:
                return _state(existing.get("state"))
            entries[delivery.id] = {
                "id": delivery.id,
                "state": DeliveryState.PENDING.value,
                "owner": owner,
                "created_at": now,
                "updated_at": now,
                "delivery": delivery.to_dict(),
                "channels": {},
            }
            return None

        already = self._change(record)
        if already is not None:
            return already
        return self._attempt(delivery, list(self.channels if channels is None else channels))

    def _attempt(self, delivery: Delivery, channels: list[Channel]) -> DeliveryState:
        def claim(entries: dict[str, dict[str, Any]]) -> bool:
            entry = entries.get(delivery.id)
            if not entry or entry.get("state") != DeliveryState.PENDING.value or entry.get("owner") != self.owner:
                return False
            entries[delivery.id] = dict(entry, state=DeliveryState.ATTEMPTING.value, updated_at=self._clock())
            return True

        if not self._change(claim):
            return self.state(delivery.id) or DeliveryState.UNCERTAIN
        outcomes: dict[str, str] = {}
        for channel in channels:
            name = getattr(channel, "name", type(channel).__name__)
            try:
                channel.send(delivery)
                outcomes[name] = DeliveryState.DELIVERED.value
            except DeliveryFailed as exc:
                outcomes[name] = DeliveryState.FAILED.value
                log.info("delivery %s: channel %s did not deliver: %s", delivery.id, name, exc)
            except Exception as exc:  # a channel that broke half-way may have shown it
                outcomes[name] = DeliveryState.UNCERTAIN.value
                log.warning("delivery %s: channel %s failed midway: %r", delivery.id, name, exc)
        final = _overall(outcomes.values())

        def settle(entries: dict[str, dict[str, Any]]) -> None:
            entry = entries.get(delivery.id)
            if entry is not None:
                entries[delivery.id] = dict(entry, state=final.value, channels=outcomes, updated_at=self._clock())

        self._change(settle)
        return final

    def mark_orphans_uncertain(self) -> list[str]:
        """Attempting entries whose process is gone become Uncertain (never re-sent).
        Pending ones of a dead process were never tried and are handed to this process."""
        owner = self.owner
        alive: dict[str, bool] = {}
        changed: list[str] = []

        def is_alive(token: str) -> bool:
            if token not in alive:
                alive[token] = lease_alive(self.state_dir, token)
            return alive[token]

        def change(entries: dict[str, dict[str, Any]]) -> None:
            for key, entry in entries.items():
                state = entry.get("state")
                if state not in (DeliveryState.ATTEMPTING.value, DeliveryState.PENDING.value):
                    continue
                if is_alive(str(entry.get("owner", ""))):
                    continue
                if state == DeliveryState.ATTEMPTING.value:
                    entries[key] = dict(entry, state=DeliveryState.UNCERTAIN.value, updated_at=self._clock())
                    changed.append(key)
                else:
                    entries[key] = dict(entry, owner=owner, updated_at=self._clock())

        self._change(change)
        return changed

    def resend_pending(self) -> list[str]:
        """Send this process's Pending entries (adopted from a dead process): they were
        recorded but never attempted, so sending them now cannot make a duplicate."""
        sent = []
        for entry in self.entries():
            if entry.state is DeliveryState.PENDING and entry.owner == self.owner:
                d = entry.delivery
                delivery = Delivery(
                    id=entry.id,
                    text=str(d.get("text", "")),
                    conversation_id=str(d.get("conversation_id", "")),
                    run_id=str(d.get("run_id", "")),
                    kind=str(d.get("kind", "answer")),
                    level=str(d.get("level", "info")),
                    recovered=True,
                )
                self._attempt(delivery, list(self.channels))
                sent.append(entry.id)
        return sent


def _state(value: Any) -> DeliveryState:
    """A state this version doesn't know reads as Uncertain: never re-sent."""
    try:
        return DeliveryState(value)
    except ValueError:
        return DeliveryState.UNCERTAIN


def _overall(outcomes: Iterable[str]) -> DeliveryState:
    values = list(outcomes)
    if DeliveryState.DELIVERED.value in values:
        return DeliveryState.DELIVERED
    if DeliveryState.UNCERTAIN.value in values:
        return DeliveryState.UNCERTAIN
    return DeliveryState.FAILED  # every channel said no, or there was none


def _pruned(entries: dict[str, dict[str, Any]], now: float) -> dict[str, dict[str, Any]]:
    ordered = sorted(entries.items(), key=lambda kv: kv[1].get("created_at", 0.0), reverse=True)
    open_states = (DeliveryState.PENDING.value, DeliveryState.ATTEMPTING.value)
    keep = {}
    for i, (key, entry) in enumerate(ordered):
        age = now - entry.get("created_at", 0.0)
        if entry.get("state") in open_states or age <= KEEP_ALWAYS_S or (i < KEEP_MAX and age <= KEEP_S):
            keep[key] = entry
    return keep


# -- channels --------------------------------------------------------------------------


class StreamChannel:
    """Headless mode: one line per delivery on a text stream (stdout by default)."""

    def __init__(self, stream: TextIO | None = None, name: str = "stdout") -> None:
        self._stream = stream
        self.name = name

    def send(self, delivery: Delivery) -> None:
        stream = self._stream or sys.stdout
        if stream.closed:
            raise DeliveryFailed(f"{self.name} is closed")
        stream.write(for_terminal(delivery.display_text).rstrip("\n") + "\n")  # a model's words: no raw controls
        stream.flush()


class CallbackChannel:
    """Any callable as a channel (the TUI posts a message to its transcript)."""

    def __init__(self, fn: Callable[[Delivery], None], name: str = "callback") -> None:
        self._fn = fn
        self.name = name

    def send(self, delivery: Delivery) -> None:
        self._fn(delivery)


def as_channel(target: Channel | Callable[[Delivery], None]) -> Channel:
    if hasattr(target, "send"):
        return target  # type: ignore[return-value]
    return CallbackChannel(target)
