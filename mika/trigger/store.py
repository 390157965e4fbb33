"""`TriggerStore`: the schedules and what happened to them — the source of truth
(seed §10 FileTriggerStore). One file, `<state>/schedules.json` (`$XDG_STATE_HOME/mika/`
on Linux; `mika.config.paths.schedules_file`), shared by `mika serve`, `mika schedule`,
the `schedule_task` tool and the TUI's Plans screen.

For the Plans screen and `mika schedule list`:

    store = TriggerStore(state_dir)
    for s in store.list():        # list[TriggerStatus], oldest first
        s.trigger                 # the definition (kind, goal, timing, conversation_id, paused…)
        s.next_due                # aware datetime, or None when nothing more will run
        s.paused, s.finished
        s.last_result, s.last_result_at
    store.pause(id) / resume(id) / delete(id) / request_run(id) / reschedule(id, timing)

Per trigger the file keeps `next_due`, `last_window` and the recent windows, each
`claimed` → `done` | `unknown` with its owner (a process lease), phase and result.

The rule that keeps a window from running twice: `claim` writes the trigger's next due
time and the claimed window, under the inter-process lock (mika.run.state_lock), before
anything is dispatched. A window already in the file is never claimed again — by this
process or another. A window claimed by a process that died without finishing it is
found by `orphans()` and settled once by `settle_orphan` (the runtime tells the user
"result unknown" for a task, re-delivers a reminder).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mika.config.paths import schedules_file
from mika.run.leased_table import LeasedTable, Rows
from mika.run.state_lock import lease_alive
from mika.trigger.definition import Timing, TimingKind, Trigger, TriggerStatus, iso, parse_iso
from mika.trigger.timing import next_due

KEEP_WINDOWS = 20  # per trigger, newest first: enough for the Plans screen and recovery
RESULT_CHARS = 2000

CLAIMED, DONE, UNKNOWN = "claimed", "done", "unknown"


class TriggerNotFound(LookupError):
    def __init__(self, trigger_id: str) -> None:
        self.trigger_id = trigger_id
        super().__init__(trigger_id)


class TriggerStore(LeasedTable):
    filename = "schedules.json"
    key = "triggers"

    def __init__(self, state_dir: Path | str | None = None, **kwargs: Any) -> None:
        super().__init__(state_dir, **kwargs)
        self.path = schedules_file(self.state_dir)

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self._clock(), UTC)

    # -- reading ------------------------------------------------------------------------

    def list(self) -> list[TriggerStatus]:
        rows = self._rows()
        statuses = [_status(row) for row in rows.values() if _valid(row)]
        return sorted(statuses, key=lambda s: (s.trigger.created, s.id))

    def get(self, trigger_id: str) -> TriggerStatus:
        row = self._rows().get(trigger_id)
        if row is None or not _valid(row):
            raise TriggerNotFound(trigger_id)
        return _status(row)

    def run_requests(self) -> builtins.list[str]:
        return [tid for tid, row in self._rows().items() if row.get("run_now") and _valid(row)]

    # -- the user's changes -------------------------------------------------------------

    def add(self, trigger: Trigger, *, since: datetime | None = None) -> TriggerStatus:
        """`since`: the instant the timing was read against (its parse; default now). A time
        that came between that and this write is still the first window (it runs at once):
        "+1s" on a loaded machine took longer than a second to reach here, and was dropped."""
        trigger = trigger if trigger.created else trigger.with_(created=self._clock())
        first = next_due(trigger.timing, min(since, self._now()) if since is not None else self._now())
        row = {"trigger": trigger.to_dict(), "next_due": iso(first) if first else "", "windows": {}}
        self._change(lambda rows: rows.__setitem__(trigger.id, row))
        return _status(row)

    def pause(self, trigger_id: str) -> TriggerStatus:
        return self._edit(trigger_id, lambda row: _set_trigger(row, paused=True))

    def resume(self, trigger_id: str) -> TriggerStatus:
        now = self._now()

        def change(row: dict[str, Any]) -> None:
            _set_trigger(row, paused=False)
            timing = _trigger(row).timing
            # Times that passed while paused are skipped, not caught up; a one-off keeps its
            # time (a passed one runs at once: the user resumed it to have it done).
            if timing.kind is not TimingKind.AT and row.get("next_due"):
                following = next_due(timing, now)
                row["next_due"] = iso(following) if following else ""

        return self._edit(trigger_id, change)

    def reschedule(self, trigger_id: str, timing: Timing, *, since: datetime | None = None) -> TriggerStatus:
        """`since` as in `add`."""
        now = min(since, self._now()) if since is not None else self._now()

        def change(row: dict[str, Any]) -> None:
            row["trigger"] = dict(row["trigger"], timing=timing.to_dict())
            following = next_due(timing, now)
            row["next_due"] = iso(following) if following else ""

        return self._edit(trigger_id, change)

    def request_run(self, trigger_id: str) -> TriggerStatus:
        """Run once now (`run_now`), besides its own times; `mika serve` picks it up."""
        return self._edit(trigger_id, lambda row: row.__setitem__("run_now", True))

    def delete(self, trigger_id: str) -> bool:
        return self._change(lambda rows: rows.pop(trigger_id, None) is not None)

    def delete_conversation(self, conversation_id: str) -> int:
        """Remove every schedule whose results go to `conversation_id` (it is being deleted)."""

        def change(rows: Rows) -> int:
            gone = [k for k, r in rows.items() if _valid(r) and r["trigger"].get("conversation_id") == conversation_id]
            for k in gone:
                del rows[k]
            return len(gone)

        return self._change(change)

    # -- windows --------------------------------------------------------------------------

    def claim(
        self,
        trigger_id: str,
        window: str,
        *,
        due: datetime,
        following: datetime | None,
        missed: int = 0,
        manual: bool = False,
    ) -> bool:
        """Take `window` for this process: writes the trigger's next due time (unless a
        manual `run now` window) and the window as claimed, before any dispatch. False if
        the window was claimed before (here or by another process), or the trigger is gone
        or paused."""
        owner, at = self.owner, self._clock()

        def change(rows: Rows) -> bool:
            row = rows.get(trigger_id)
            if row is None or not _valid(row) or window in row.get("windows", {}):
                return False
            if manual:
                row.pop("run_now", None)
            else:
                if _trigger(row).paused:
                    return False
                row["next_due"] = iso(following) if following else ""
            windows = dict(row.get("windows", {}))
            windows[window] = {"state": CLAIMED, "owner": owner, "claimed_at": at, "due": iso(due), "missed": missed}
            row["windows"] = _newest(windows)
            row["last_window"] = window
            return True

        return self._change(change)

    def note(self, trigger_id: str, window: str, **fields: Any) -> None:
        """Record progress inside a claimed window (phase, run ids)."""

        def change(rows: Rows) -> None:
            entry = rows.get(trigger_id, {}).get("windows", {}).get(window)
            if entry is not None:
                entry.update(fields)

        self._change(change)

    def finish(
        self, trigger_id: str, window: str, result: str, *, state: str = DONE, value: bool | None = None
    ) -> None:
        """End a window with its result text (also the trigger's last result).
        `value`: a condition check's new known value (None: leave the last one)."""
        at = self._clock()

        def change(rows: Rows) -> None:
            row = rows.get(trigger_id)
            if row is None:
                return
            entry = row.get("windows", {}).get(window)
            if entry is not None:
                entry.update(state=state, result=result[:RESULT_CHARS], ended_at=at)
            if value is not None:
                row["last_value"] = value
            if result:
                row["last_result"] = result[:RESULT_CHARS]
                row["last_result_at"] = at

        self._change(change)

    def set_value(self, trigger_id: str, value: bool | None) -> None:
        """A condition's last known value (written before its task is dispatched)."""

        def change(rows: Rows) -> None:
            row = rows.get(trigger_id)
            if row is not None and value is not None:
                row["last_value"] = value

        self._change(change)

    def orphans(self) -> builtins.list[tuple[TriggerStatus, str, dict[str, Any]]]:
        """Windows left `claimed` by a process that is gone (killed, crashed)."""
        found = []
        alive: dict[str, bool] = {}
        for row in self._rows().values():
            if not _valid(row):
                continue
            for wid, entry in row.get("windows", {}).items():
                if entry.get("state") != CLAIMED:
                    continue
                owner = str(entry.get("owner", ""))
                if owner not in alive:
                    alive[owner] = owner == self.owner or lease_alive(self.state_dir, owner)
                if not alive[owner]:
                    found.append((_status(row), wid, dict(entry)))
        return found

    def settle_orphan(self, trigger_id: str, window: str, result: str) -> bool:
        """Mark an orphaned window `unknown`, once: True only for the caller that did."""

        def change(rows: Rows) -> bool:
            row = rows.get(trigger_id)
            entry = row.get("windows", {}).get(window) if row else None
            if row is None or entry is None or entry.get("state") != CLAIMED:
                return False
            owner = str(entry.get("owner", ""))
            if owner == self.owner or lease_alive(self.state_dir, owner):
                return False
            entry.update(state=UNKNOWN, result=result[:RESULT_CHARS], ended_at=self._clock())
            row["last_result"] = result[:RESULT_CHARS]
            row["last_result_at"] = self._clock()
            return True

        return self._change(change)

    # -- helpers --------------------------------------------------------------------------

    def _edit(self, trigger_id: str, change: Callable[[dict[str, Any]], None]) -> TriggerStatus:
        def apply(rows: Rows) -> dict[str, Any] | None:
            row = rows.get(trigger_id)
            if row is None or not _valid(row):
                return None
            change(row)
            return row

        row = self._change(apply)
        if row is None:
            raise TriggerNotFound(trigger_id)
        return _status(row)


def _valid(row: Any) -> bool:
    try:
        Trigger.from_dict(row["trigger"])
        return True
    except (KeyError, TypeError, ValueError):
        return False  # a row this version can't read is left alone, not run


def _trigger(row: dict[str, Any]) -> Trigger:
    return Trigger.from_dict(row["trigger"])


def _set_trigger(row: dict[str, Any], **fields: Any) -> None:
    row["trigger"] = dict(row["trigger"], **fields)


def _status(row: dict[str, Any]) -> TriggerStatus:
    due = str(row.get("next_due") or "")
    value = row.get("last_value")
    return TriggerStatus(
        trigger=_trigger(row),
        next_due=parse_iso(due) if due else None,
        last_window=str(row.get("last_window", "")),
        last_result=str(row.get("last_result", "")),
        last_result_at=float(row.get("last_result_at", 0.0)),
        last_value=value if isinstance(value, bool) else None,
        windows=dict(row.get("windows", {})),
    )


def _newest(windows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    # An open window is never pruned: recovery must still find it.
    ordered = sorted(windows.items(), key=lambda kv: kv[1].get("claimed_at", 0.0), reverse=True)
    return {k: v for i, (k, v) in enumerate(ordered) if i < KEEP_WINDOWS or v.get("state") == CLAIMED}
