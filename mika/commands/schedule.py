"""`mika schedule`: make and manage schedules (the store `mika serve` fires from).

mika schedule add --at ISO|+DURATION | --every DURATION | --daily HH:MM [--weekdays mon,…]
                  [--zone TZ] [--condition TEXT] [--when-idle] [--reminder]
                  [--conversation ID] GOAL
mika schedule list [--json]
mika schedule pause|resume|delete|run ID
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from mika.exit_codes import ExitCode
from mika.terminal_text import echo

if TYPE_CHECKING:
    from mika.trigger.definition import TriggerStatus
    from mika.trigger.store import TriggerStore


def _fail(message: str, code: ExitCode = ExitCode.USAGE) -> NoReturn:
    echo(f"mika: {message}", err=True)
    sys.exit(int(code))


def _store() -> TriggerStore:
    from mika.config.paths import state_dir
    from mika.trigger.store import TriggerStore

    return TriggerStore(state_dir())


@click.group("schedule")
def schedule_group() -> None:
    """Schedules: add, list, pause, resume, delete, run now."""


@schedule_group.command("add")
@click.argument("goal", nargs=-1)
@click.option("--at", "at", default=None, help="Once: an ISO time (in --zone) or +DURATION from now (+10m).")
@click.option("--every", default=None, help="Repeat at this interval: 15m, 2h, 1d, 1h30m (at least 1m).")
@click.option("--daily", default=None, help="Every day at HH:MM local time (in --zone).")
@click.option("--weekdays", default=None, help="With --daily: only these days, e.g. mon,wed,fri.")
@click.option("--zone", default=None, help="Time zone (IANA name, e.g. Europe/Berlin); default: this computer's.")
@click.option("--condition", default=None, help="Check this first (read-only); do GOAL only when it becomes true.")
@click.option("--when-idle", is_flag=True, help="Wait while the conversation has a task going.")
@click.option("--reminder", is_flag=True, help="Just deliver GOAL as a reminder at its time: no model, no phone.")
@click.option("--conversation", "conversation_id", default=None, help="Results go here (default: a new one).")
def add_command(
    goal: tuple[str, ...],
    at: str | None,
    every: str | None,
    daily: str | None,
    weekdays: str | None,
    zone: str | None,
    condition: str | None,
    when_idle: bool,
    reminder: bool,
    conversation_id: str | None,
) -> None:
    """Add a schedule: a reminder, a task, or a task with a condition."""
    from datetime import UTC, datetime

    from mika.run.conversations import ConversationError, ConversationStore
    from mika.trigger.definition import TriggerError, build_trigger
    from mika.trigger.texts import t
    from mika.trigger.timing import TimingError, parse_timing

    try:
        parsed_at = datetime.now(UTC)
        timing = parse_timing(now=parsed_at, at=at, every=every, daily=daily, weekdays=weekdays, zone=zone)
        build_trigger(
            goal=" ".join(goal), timing=timing, conversation_id="-", reminder=reminder, condition=condition or ""
        )  # checked before a conversation is made
    except (TimingError, TriggerError) as exc:
        _fail(str(exc))
    store = _store()
    conversations = ConversationStore(store.state_dir)
    try:
        if conversation_id:
            conversations.get(conversation_id)
            cid, note = conversation_id, t("in_conversation", cid=conversation_id)
        else:
            cid = conversations.create().id
            note = t("new_conversation", cid=cid)
    except ConversationError as exc:
        _fail(str(exc))
    trigger = build_trigger(
        goal=" ".join(goal),
        timing=timing,
        conversation_id=cid,
        reminder=reminder,
        condition=condition or "",
        when_idle=when_idle,
        created_by="cli",
    )
    status = store.add(trigger, since=parsed_at)
    echo(t("added", id=trigger.id, kind=t(f"kind_{trigger.kind.value}"), rule=timing.describe(), next=_next(status)))
    echo(note)
    from mika.trigger.serve_lock import serve_running

    if not serve_running(store.state_dir):
        echo(t("no_serve"), err=True)


@schedule_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON array: every schedule with its state.")
def list_command(as_json: bool) -> None:
    """List the schedules: next time, state, last result."""
    from mika.trigger.texts import t

    statuses = _store().list()
    if as_json:
        echo(json.dumps([_as_dict(s) for s in statuses], ensure_ascii=False, indent=2))
        return
    if not statuses:
        echo(t("none"))
        return
    rows = [
        (
            s.id,
            t(f"kind_{s.trigger.kind.value}"),
            s.trigger.timing.describe(),
            _next(s),
            _state(s),
            _short(s.trigger.goal, 40),
            _short(s.last_result, 50) or t("never"),
        )
        for s in statuses
    ]
    head = tuple(t(k) for k in ("col_id", "col_kind", "col_rule", "col_next", "col_state", "col_goal", "col_last"))
    widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
    for row in (head, *rows):
        echo("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def _edit(trigger_id: str, op: str) -> None:
    from mika.trigger.store import TriggerNotFound
    from mika.trigger.texts import t

    store = _store()
    try:
        if op == "delete":
            if not store.delete(trigger_id):
                raise TriggerNotFound(trigger_id)
            echo(t("deleted", id=trigger_id))
        elif op == "pause":
            store.pause(trigger_id)
            echo(t("paused", id=trigger_id))
        elif op == "resume":
            echo(t("resumed", id=trigger_id, next=_next(store.resume(trigger_id))))
        else:
            store.request_run(trigger_id)
            echo(t("run_queued", id=trigger_id))
    except TriggerNotFound:
        _fail(t("no_trigger", id=trigger_id))


@schedule_group.command("pause")
@click.argument("trigger_id", metavar="ID")
def pause_command(trigger_id: str) -> None:
    """Pause a schedule (it keeps its times; nothing runs until resumed)."""
    _edit(trigger_id, "pause")


@schedule_group.command("resume")
@click.argument("trigger_id", metavar="ID")
def resume_command(trigger_id: str) -> None:
    """Resume a paused schedule (times that passed meanwhile are skipped)."""
    _edit(trigger_id, "resume")


@schedule_group.command("delete")
@click.argument("trigger_id", metavar="ID")
def delete_command(trigger_id: str) -> None:
    """Delete a schedule."""
    _edit(trigger_id, "delete")


@schedule_group.command("run")
@click.argument("trigger_id", metavar="ID")
def run_command(trigger_id: str) -> None:
    """Run a schedule once now (`mika serve` picks it up), besides its own times."""
    _edit(trigger_id, "run")


def _next(status: TriggerStatus) -> str:
    from mika.trigger.texts import t
    from mika.trigger.timing import TimingError, zone_of

    if status.next_due is None:
        return t("never")
    try:
        zone = zone_of(status.trigger.timing.zone)
    except TimingError:
        zone = None
    local = status.next_due.astimezone(zone)
    return local.strftime("%Y-%m-%d %H:%M:%S %Z").strip()


def _state(status: TriggerStatus) -> str:
    from mika.trigger.texts import t

    if status.paused:
        return t("state_paused")
    return t("state_finished") if status.finished else t("state_active")


def _as_dict(status: TriggerStatus) -> dict[str, Any]:
    from mika.trigger.definition import iso

    return {
        **status.trigger.to_dict(),
        "next_due": iso(status.next_due) if status.next_due else None,
        "state": "paused" if status.paused else "finished" if status.finished else "active",
        "last_window": status.last_window,
        "last_result": status.last_result,
        "last_result_at": status.last_result_at or None,
        "last_value": status.last_value,
    }


def _short(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
