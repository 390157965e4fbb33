"""What a run borrowed from the phone — the input method, the clipboard, an app it
muted — written down before it is taken, and given back at the next start if the
run's process died before it could give it back itself (seed §2 TaskRecovery).

The run package knows no phone: a capability registers a restorer per kind
(`ledger.register_restorer("ime", fn)`) and records what to put back
(`ledger.borrow("ime", key=serial, restore={"ime": previous_id})`). Borrowing the same
kind and key twice keeps the first record: that is the user's own state, the second
would be Mika's.

`<state>/borrowed.json` is 0600: a borrowed clipboard holds the user's text.
"""

from __future__ import annotations

import inspect
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mika.atomic_write import write_json
from mika.config.paths import state_dir as default_state_dir
from mika.run.state_lock import ProcessLease, lease_alive, process_lease, read_state, state_lock

log = logging.getLogger("mika.run")

MAX_ATTEMPTS = 5  # after this many failed give-backs the record is dropped, and said so


@dataclass(frozen=True)
class BorrowedItem:
    id: str
    kind: str  # ime | clipboard | muted_app | …, whatever a capability registers
    key: str  # what it is on: a device serial, "<serial>/<package>"
    restore: dict[str, Any] = field(default_factory=dict)
    run_id: str = ""
    owner: str = ""
    at: float = 0.0
    attempts: int = 0
    last_error: str = ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BorrowedItem:
        return cls(
            id=str(d["id"]),
            kind=str(d.get("kind", "")),
            key=str(d.get("key", "")),
            restore=dict(d.get("restore", {})),
            run_id=str(d.get("run_id", "")),
            owner=str(d.get("owner", "")),
            at=float(d.get("at", 0.0)),
            attempts=int(d.get("attempts", 0)),
            last_error=str(d.get("last_error", "")),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "key": self.key,
            "restore": self.restore,
            "run_id": self.run_id,
            "owner": self.owner,
            "at": self.at,
            "attempts": self.attempts,
            "last_error": self.last_error,
        }


Restorer = Callable[[BorrowedItem], "Awaitable[None] | None"]


class RestoreLater(Exception):
    """A restorer that can't do it now (the device is not connected): keep the record
    without counting an attempt."""


@dataclass(frozen=True)
class RestoreReport:
    restored: tuple[str, ...] = ()  # item ids given back
    kept: tuple[str, ...] = ()  # still owed (no restorer yet, device away, or failed)
    dropped: tuple[str, ...] = ()  # gave up after MAX_ATTEMPTS
    errors: tuple[str, ...] = ()  # one sentence each, for the log / the user


class BorrowedLedger:
    def __init__(
        self,
        state_dir: Path | str | None = None,
        *,
        lease: ProcessLease | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.state_dir = Path(state_dir) if state_dir is not None else default_state_dir()
        self.path = self.state_dir / "borrowed.json"
        self._lease = lease
        self._clock = clock
        self._restorers: dict[str, Restorer] = {}
        # Orphans this process took over: still owed, and ours to retry (unlike the
        # things our own live runs borrowed, which carry our token too).
        self._adopted: set[str] = set()

    @property
    def owner(self) -> str:
        if self._lease is None:
            self._lease = process_lease(self.state_dir)
        return self._lease.token

    def register_restorer(self, kind: str, restorer: Restorer) -> None:
        self._restorers[kind] = restorer

    def _read(self) -> list[dict[str, Any]]:
        data = read_state(self.path, {})
        items = data.get("items") if isinstance(data, dict) else None
        return list(items) if isinstance(items, list) else []

    def _write(self, items: list[dict[str, Any]]) -> None:
        write_json(self.path, {"version": 1, "items": items}, mode=0o600)

    def items(self) -> list[BorrowedItem]:
        with state_lock(self.path):
            return [BorrowedItem.from_dict(x) for x in self._read()]

    def borrow(self, kind: str, key: str, restore: dict[str, Any], *, run_id: str = "") -> str:
        """Write down what to put back, before taking it. Returns the record's id."""
        with state_lock(self.path):
            items = self._read()
            for raw in items:
                if raw.get("kind") == kind and raw.get("key") == key:
                    return str(raw["id"])  # the first record holds the user's own state
            item = BorrowedItem(
                id=f"{kind}-{secrets.token_hex(4)}",
                kind=kind,
                key=key,
                restore=dict(restore),
                run_id=run_id,
                owner=self.owner,
                at=self._clock(),
            )
            items.append(item.to_dict())
            self._write(items)
            return item.id

    def give_back(self, item_id: str) -> bool:
        """The run put it back itself: forget the record."""
        with state_lock(self.path):
            items = self._read()
            kept = [x for x in items if x.get("id") != item_id]
            if len(kept) == len(items):
                return False
            self._write(kept)
            return True

    async def restore_orphans(self) -> RestoreReport:
        """Give back everything borrowed by processes that are gone."""
        restored: list[str] = []
        kept: list[str] = []
        dropped: list[str] = []
        errors: list[str] = []
        for item in self.items():
            restorer = self._restorers.get(item.kind)
            if restorer is None:
                kept.append(item.id)
                continue
            if not self._claim(item):
                continue  # its run still goes on in another process, or another start took it
            try:
                outcome = restorer(item)
                if inspect.isawaitable(outcome):
                    await outcome
            except RestoreLater:
                kept.append(item.id)
                continue
            except Exception as exc:
                message = f"Could not give back the {item.kind} borrowed on {item.key}: {exc}"
                errors.append(message)
                if self._count_failure(item, str(exc)):
                    dropped.append(item.id)
                    log.warning("%s (gave up after %d tries)", message, MAX_ATTEMPTS)
                else:
                    kept.append(item.id)
                continue
            self.give_back(item.id)
            restored.append(item.id)
        return RestoreReport(tuple(restored), tuple(kept), tuple(dropped), tuple(errors))

    def _claim(self, item: BorrowedItem) -> bool:
        """Take over a record whose process is gone, so two starts at once don't both
        give the same thing back."""
        me = self.owner
        with state_lock(self.path):
            items = self._read()
            for i, raw in enumerate(items):
                if raw.get("id") != item.id:
                    continue
                owner = str(raw.get("owner", ""))
                if item.id in self._adopted:
                    return True
                # Ours means a run of this very process borrowed it and is still going.
                if owner == me or lease_alive(self.state_dir, owner):
                    return False
                items[i] = dict(raw, owner=me)
                self._write(items)
                self._adopted.add(item.id)
                return True
            return False

    def _count_failure(self, item: BorrowedItem, error: str) -> bool:
        """Count one failed give-back; True if the record was dropped for good."""
        with state_lock(self.path):
            items = self._read()
            out = []
            gone = False
            for raw in items:
                if raw.get("id") == item.id:
                    attempts = int(raw.get("attempts", 0)) + 1
                    if attempts >= MAX_ATTEMPTS:
                        gone = True
                        continue
                    raw = dict(raw, attempts=attempts, last_error=error)
                out.append(raw)
            self._write(out)
            return gone
