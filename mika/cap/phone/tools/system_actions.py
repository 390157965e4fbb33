"""Standard intents instead of tapping through clock and calendar screens (seed §6 系统动作).

phone_set_alarm / phone_set_timer use AlarmClock's SET_ALARM / SET_TIMER with SKIP_UI,
phone_show_alarms SHOW_ALARMS, phone_add_calendar_event an INSERT of type
vnd.android.cursor.dir/event (the user presses save). An alarm is checked afterwards
against the next alarm the system reports (`dumpsys alarm`).
"""

from __future__ import annotations

import re
from datetime import datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mika.cap.phone.port import LongExtra
from mika.cap.phone.session import PhoneSession
from mika.cap.phone.tools.base import PhoneTool
from mika.tool.context import ToolContext
from mika.tool.declaration import EntryKind, ToolOutcome

ALARM = "android.intent.extra.alarm."
DAYS = {"sun": 1, "mon": 2, "tue": 3, "wed": 4, "thu": 5, "fri": 6, "sat": 7}
_NEXT = re.compile(r"Next alarm clock information:\s*\n\s*.*?time:(\d+)\s*=\s*(\d{4}-\d\d-\d\d \d\d:\d\d)", re.S)


def _not_supported(result_text: str, what: str) -> ToolOutcome:
    return ToolOutcome.error(
        "not_supported",
        f"No app on the phone takes {what} ({result_text.strip()[:200]}). "
        "Set it in the clock or calendar app's own screens instead.",
    )


async def next_alarm(session: PhoneSession) -> str | None:
    """'YYYY-MM-DD HH:MM' of the next alarm clock the system knows, or None."""
    out = await session.port.shell("dumpsys alarm", timeout=15)
    m = _NEXT.search(out.output)
    return m.group(2) if m else None


class PhoneSetAlarm(PhoneTool):
    name = "phone_set_alarm"
    replayable = True  # seed §9: a verified run may record it, by its anchor
    entry = EntryKind.ALONE
    batchable = True
    parameters = {
        "type": "object",
        "properties": {
            "hour": {"type": "integer", "description": "0–23."},
            "minute": {"type": "integer", "description": "0–59; default 0."},
            "label": {"type": "string"},
            "days": {
                "type": "array",
                "items": {"type": "string", "enum": list(DAYS)},
                "description": "Weekdays it repeats on; none: once.",
            },
            "vibrate": {"type": "boolean"},
        },
        "required": ["hour"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        hour, minute = int(args["hour"]), int(args.get("minute") or 0)
        if not (0 <= hour <= 23 and 0 <= minute <= 59):
            return ToolOutcome.error(
                "bad_arguments", f"{hour}:{minute:02d} is not a time of day (hour 0–23, minute 0–59)."
            )
        extras: dict[str, object] = {ALARM + "HOUR": hour, ALARM + "MINUTES": minute, ALARM + "SKIP_UI": True}
        if args.get("label"):
            extras[ALARM + "MESSAGE"] = str(args["label"])
        days = [DAYS[d] for d in (args.get("days") or []) if d in DAYS]
        if days:
            extras[ALARM + "DAYS"] = days
        if args.get("vibrate") is not None:
            extras[ALARM + "VIBRATE"] = bool(args["vibrate"])
        session = self.session(ctx)
        result = await session.port.start_activity(
            session.display, action="android.intent.action.SET_ALARM", extras=extras
        )
        if result.exit_code != 0:
            return _not_supported(result.output, "alarms")
        when = f"{hour:02d}:{minute:02d}"
        nxt = await next_alarm(session)
        if nxt is None:
            check = "not_seen"
        elif nxt.endswith(when):
            check = "verified"
        else:
            check = "earlier_alarm_first"
        notes = {
            "verified": "the phone's next alarm is this one",
            "earlier_alarm_first": f"an earlier alarm comes first ({nxt}); phone_show_alarms shows the list",
            "not_seen": "the phone did not report it yet; phone_show_alarms shows the list",
        }
        return ToolOutcome(
            text=f"Alarm set for {when}"
            + (f" ({args['label']})" if args.get("label") else "")
            + f"; check: {check} — {notes[check]}.",
            data={"check": check, "time": when},
        )


class PhoneSetTimer(PhoneTool):
    name = "phone_set_timer"
    replayable = True  # seed §9: a verified run may record it, by its anchor
    entry = EntryKind.ALONE
    batchable = True
    parameters = {
        "type": "object",
        "properties": {"seconds": {"type": "integer", "description": "1–86400."}, "label": {"type": "string"}},
        "required": ["seconds"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        seconds = int(args["seconds"])
        if not 1 <= seconds <= 86400:
            return ToolOutcome.error("bad_arguments", "A timer runs 1 second to 24 hours (seconds 1–86400).")
        extras: dict[str, object] = {ALARM + "LENGTH": seconds, ALARM + "SKIP_UI": True}
        if args.get("label"):
            extras[ALARM + "MESSAGE"] = str(args["label"])
        session = self.session(ctx)
        result = await session.port.start_activity(
            session.display, action="android.intent.action.SET_TIMER", extras=extras
        )
        if result.exit_code != 0:
            return _not_supported(result.output, "timers")
        return ToolOutcome(text=f"Timer set for {seconds} s.", data={"seconds": seconds})


class PhoneShowAlarms(PhoneTool):
    name = "phone_show_alarms"
    opens_app = True
    batchable = True
    changes_screen = True
    parameters = {"type": "object", "properties": {}}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        result = await session.port.start_activity(session.display, action="android.intent.action.SHOW_ALARMS")
        if result.exit_code != 0:
            return _not_supported(result.output, "showing alarms")
        return ToolOutcome(text="Opened the alarm list.")


def _millis(text: str, name: str, zone: tzinfo | None) -> int:
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{name} must be a date-time like 2026-12-24T18:30, got {text!r}") from None
    if when.tzinfo is None and zone is not None:
        when = when.replace(tzinfo=zone)  # the user means the phone's local time, not this PC's
    return int(when.timestamp() * 1000)


async def phone_zone(session: PhoneSession) -> tzinfo | None:
    out = await session.port.shell("getprop persist.sys.timezone")
    name = out.output.strip()
    try:
        return ZoneInfo(name) if name else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


class PhoneAddCalendarEvent(PhoneTool):
    name = "phone_add_calendar_event"
    opens_app = True
    entry = EntryKind.OPENS
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "start": {"type": "string", "description": "Local date-time, e.g. 2026-12-24T18:30."},
            "end": {"type": "string", "description": "Local date-time; default one hour after start."},
            "all_day": {"type": "boolean"},
            "location": {"type": "string"},
            "notes": {"type": "string"},
        },
        "required": ["title", "start"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        zone = await phone_zone(session)
        try:
            begin = _millis(str(args["start"]), "start", zone)
            end = _millis(str(args["end"]), "end", zone) if args.get("end") else begin + 3600_000
        except ValueError as exc:
            return ToolOutcome.error("bad_arguments", str(exc))
        if end < begin:
            return ToolOutcome.error("bad_arguments", "The event ends before it starts.")
        # beginTime/endTime are longs on Android; `--el` says so.
        extras: dict[str, object] = {
            "title": str(args["title"]),
            "beginTime": LongExtra(begin),
            "endTime": LongExtra(end),
        }
        if args.get("all_day"):
            extras["allDay"] = True
        if args.get("location"):
            extras["eventLocation"] = str(args["location"])
        if args.get("notes"):
            extras["description"] = str(args["notes"])
        result = await session.port.start_activity(
            # Events' content URI and the event type together: some calendars resolve by one, some the other.
            session.display,
            action="android.intent.action.INSERT",
            data="content://com.android.calendar/events",
            mime="vnd.android.cursor.dir/event",
            extras=extras,
        )
        if result.exit_code != 0:
            return _not_supported(result.output, "new calendar events")
        return ToolOutcome(
            text=f'Opened a new calendar event "{args["title"]}" at {args["start"]} (phone\'s time). '
            "It is not saved yet: press save on that page."
        )
