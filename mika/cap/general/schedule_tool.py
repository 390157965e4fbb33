"""schedule_task (seed §10 ScheduleTask): the model makes and manages the user's schedules.

Offered only to runs a person started from a conversation (the general capability is
handed a store for those alone; see mika.assembly.capabilities), and never to unattended
runs (`unattended_ok = False`: a schedule is the user's decision, not a scheduled run's).
Results of a schedule go back to the conversation the run belongs to.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, Risk, ToolOutcome
from mika.trigger.definition import TriggerError, TriggerStatus, build_trigger, iso
from mika.trigger.serve_lock import serve_running
from mika.trigger.store import TriggerNotFound, TriggerStore
from mika.trigger.timing import TimingError, parse_timing

OPS = ["create", "list", "pause", "resume", "delete", "run_now", "reschedule"]
NO_SERVE = "Note: `mika serve` is not running, so nothing fires until the user starts it; tell the user."


class ScheduleTask(AgentTool):
    group = "more"  # rarely needed: listed by more_tools until opened
    name = "schedule_task"
    capability = "general"
    risk = Risk.WRITE  # changes the user's schedules: not in read-only runs
    unattended_ok = False
    parameters = {
        "type": "object",
        "properties": {
            "op": {"type": "string", "enum": OPS},
            "id": {"type": "string", "description": "The schedule, for every op but create and list."},
            "goal": {"type": "string", "description": "create: what to do, or the reminder's words."},
            "kind": {"type": "string", "enum": ["task", "reminder"]},
            "at": {"type": "string", "description": "Once: ISO time or +DURATION (+20m)."},
            "every": {"type": "string", "description": "Interval: 15m, 2h, 1d."},
            "daily": {"type": "string", "description": "HH:MM local time."},
            "weekdays": {"type": "string", "description": "With daily: mon,tue,…"},
            "zone": {"type": "string", "description": "IANA time zone, e.g. Asia/Shanghai."},
            "condition": {"type": "string", "description": "create (task): check this first; act when it turns true."},
            "when_idle": {"type": "boolean", "description": "Wait while this conversation has a task going."},
        },
    }

    def __init__(self, store: TriggerStore, clock: Any = None) -> None:
        self.store = store
        self._clock = clock

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self._clock(), UTC) if self._clock else datetime.now(UTC)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        op = str(args.get("op") or "create")
        cid = ctx.spec.conversation_id
        try:
            if op == "create":
                return self._create(args, cid, ctx.spec.id)
            if op == "list":
                mine = [s for s in self.store.list() if s.trigger.conversation_id == cid]
                lines = [_line(s) for s in mine] or ["No schedules in this conversation."]
                return ToolOutcome("\n".join(lines), data={"schedules": [_brief(s) for s in mine]})
            if op not in OPS:
                return ToolOutcome.error("bad_op", f"Unknown op {op!r}; use one of {', '.join(OPS)}.")
            trigger_id = str(args.get("id") or "")
            if not trigger_id:
                return ToolOutcome.error("missing_id", f"{op} needs the schedule's id (op=list shows them).")
            status = self.store.get(trigger_id)
            if status.trigger.conversation_id != cid:
                # Only this conversation's schedules: a page can't talk the model into others.
                raise TriggerNotFound(trigger_id)
            return self._edit(op, trigger_id, args)
        except TriggerNotFound as exc:
            return ToolOutcome.error("no_schedule", f"No schedule {exc.trigger_id!r} in this conversation (op=list).")
        except (TimingError, TriggerError) as exc:
            return ToolOutcome.error("bad_schedule", str(exc))

    def _timing(self, args: dict[str, Any], now: datetime) -> Any:
        return parse_timing(
            now=now,
            at=_opt(args, "at"),
            every=_opt(args, "every"),
            daily=_opt(args, "daily"),
            weekdays=_opt(args, "weekdays"),
            zone=_opt(args, "zone"),
        )

    def _create(self, args: dict[str, Any], cid: str, run_id: str) -> ToolOutcome:
        now = self._now()
        trigger = build_trigger(
            goal=str(args.get("goal") or ""),
            timing=self._timing(args, now),
            conversation_id=cid,
            reminder=args.get("kind") == "reminder",
            condition=str(args.get("condition") or ""),
            when_idle=bool(args.get("when_idle", False)),
            created_by=f"tool:{run_id}",
        )
        status = self.store.add(trigger, since=now)
        return self._told(f"Created {_line(status)}", status)

    def _edit(self, op: str, trigger_id: str, args: dict[str, Any]) -> ToolOutcome:
        if op == "delete":
            self.store.delete(trigger_id)
            return ToolOutcome(f"Deleted {trigger_id}.")
        if op == "pause":
            status = self.store.pause(trigger_id)
        elif op == "resume":
            status = self.store.resume(trigger_id)
        elif op == "run_now":
            status = self.store.request_run(trigger_id)
        else:
            now = self._now()
            status = self.store.reschedule(trigger_id, self._timing(args, now), since=now)
        return self._told(f"{op}: {_line(status)}", status)

    def _told(self, text: str, status: TriggerStatus) -> ToolOutcome:
        if not serve_running(self.store.state_dir):
            text += "\n" + NO_SERVE
        return ToolOutcome(text, data={"schedule": _brief(status)})


def _opt(args: dict[str, Any], key: str) -> str | None:
    value = args.get(key)
    return str(value) if value not in (None, "") else None


def _line(status: TriggerStatus) -> str:
    t = status.trigger
    state = "paused" if t.paused else "finished" if status.finished else "active"
    due = iso(status.next_due) if status.next_due else "none"
    cond = f" if {t.condition!r}" if t.condition else ""
    last = f"; last result: {status.last_result[:120]}" if status.last_result else ""
    return f"{t.id} ({t.kind.value}, {state}) {t.timing.describe()}, next {due}: {t.goal[:120]}{cond}{last}"


def _brief(status: TriggerStatus) -> dict[str, Any]:
    return {
        "id": status.id,
        "kind": status.trigger.kind.value,
        "paused": status.paused,
        "next_due": iso(status.next_due) if status.next_due else None,
    }
