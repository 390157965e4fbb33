"""When a trigger is due (seed §10 时间规则): pure functions of a timing and an instant.

- `at`: once. `every`: the first due instant plus whole intervals. `daily`: a wall-clock
  time in a zone, kept across daylight-saving changes: 07:30 stays 07:30 local. A local
  time the clocks skip (spring forward) is due at the first valid instant after the gap
  (the moment the clocks jump); one that happens twice (fall back) is due the first time.
- Missed windows: when several due times have passed (the computer was off), only the
  latest runs, and it says how many were missed (`latest_window`).
- `parse_timing` reads the CLI forms (`--at ISO|+DURATION`, `--every`, `--daily HH:MM
  [--weekdays] [--zone]`) and says exactly what is wrong with a bad one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mika.trigger.definition import WEEKDAYS, Timing, TimingKind
from mika.trigger.texts import t

MIN_EVERY_S = 60
_DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")
_HHMM = re.compile(r"^(\d{1,2}):(\d{2})$")
# A daily timing with weekdays looks at most this many days ahead (a week and a gap day).
_DAYS_AHEAD = 9


class TimingError(ValueError):
    """A timing the user wrote that can't be used; `str()` says what and how to fix it."""


def zone_of(name: str) -> tzinfo:
    """The zone `name`, or the machine's local zone for ""."""
    if not name:
        local = datetime.now().astimezone().tzinfo
        assert local is not None
        return local
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise TimingError(t("bad_zone", zone=name)) from exc


# -- due times ----------------------------------------------------------------------


def next_due(timing: Timing, after: datetime) -> datetime | None:
    """The first due instant strictly after `after` (aware), or None: nothing more."""
    if timing.kind is TimingKind.AT:
        assert timing.at is not None
        return timing.at if timing.at > after else None
    if timing.kind is TimingKind.EVERY:
        assert timing.at is not None and timing.every_s > 0
        if timing.at > after:
            return timing.at
        passed = int((after - timing.at).total_seconds() // timing.every_s) + 1
        return timing.at + timedelta(seconds=passed * timing.every_s)
    return _next_daily(timing, after)


def _next_daily(timing: Timing, after: datetime) -> datetime | None:
    zone = zone_of(timing.zone)
    day = after.astimezone(zone).date() - timedelta(days=1)  # a gap can move a time before midnight
    for offset in range(_DAYS_AHEAD + 1):
        date = day + timedelta(days=offset)
        if timing.weekdays and date.weekday() not in timing.weekdays:
            continue
        due = local_instant(datetime(date.year, date.month, date.day, timing.hour, timing.minute), zone)
        if due > after:
            return due
    return None


def local_instant(wall: datetime, zone: tzinfo) -> datetime:
    """The instant of naive wall-clock time `wall` in `zone`: the first of two on a fall-back
    night (fold=0), and on a spring-forward night the instant the clocks jump over it."""
    first = wall.replace(tzinfo=zone, fold=0)
    utc = first.astimezone(UTC)
    if utc.astimezone(zone).replace(tzinfo=None) == wall:
        return utc
    # Nonexistent: fold=0 read it with the offset from before the gap (an instant after
    # the jump), fold=1 with the one after (an instant before it). The jump lies between.
    lo = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    hi = utc
    after_offset = hi.astimezone(zone).utcoffset()
    while (hi - lo) > timedelta(seconds=1):
        mid = lo + (hi - lo) / 2
        if mid.astimezone(zone).utcoffset() == after_offset:
            hi = mid
        else:
            lo = mid
    return hi.replace(microsecond=0) + (timedelta(seconds=1) if hi.microsecond else timedelta(0))


@dataclass(frozen=True)
class DueWindow:
    due: datetime  # the window that runs (the latest one that has come)
    missed: int  # earlier windows that came and went without running
    following: datetime | None  # the next due time after this window


def latest_window(timing: Timing, first_due: datetime, now: datetime) -> DueWindow | None:
    """With `first_due` the earliest window not yet dispatched: None while it is still
    ahead; else the latest window at or before `now`, and how many were skipped on the way."""
    if first_due > now:
        return None
    if timing.kind is TimingKind.EVERY and timing.every_s > 0:
        skipped = int((now - first_due).total_seconds() // timing.every_s)
        due = first_due + timedelta(seconds=skipped * timing.every_s)
        return DueWindow(due, skipped, next_due(timing, due))
    due, missed = first_due, 0
    while True:
        following = next_due(timing, due)
        if following is None or following > now:
            return DueWindow(due, missed, following)
        due, missed = following, missed + 1


# -- the CLI forms --------------------------------------------------------------------


def parse_duration(text: str, flag: str) -> int:
    value = text.strip().lower().lstrip("+")
    match = _DURATION.match(value) if value else None
    if not match:
        raise TimingError(t("bad_duration", flag=flag, value=text))
    d, h, m, s = (int(g) if g else 0 for g in match.groups())
    seconds = d * 86400 + h * 3600 + m * 60 + s
    if seconds <= 0:
        raise TimingError(t("duration_zero", flag=flag, value=text))
    return seconds


def parse_weekdays(text: str) -> frozenset[int]:
    days = set()
    for part in text.split(","):
        name = part.strip().lower()[:3]
        if not name:
            continue
        if name not in WEEKDAYS:
            raise TimingError(t("bad_weekday", value=text, day=part.strip()))
        days.add(WEEKDAYS.index(name))
    return frozenset(days)


def parse_timing(
    *,
    now: datetime,
    at: str | None = None,
    every: str | None = None,
    daily: str | None = None,
    weekdays: str | None = None,
    zone: str | None = None,
) -> Timing:
    """The timing the user wrote. `+DURATION` and `--every` are fixed against `now`."""
    given = [x for x in (at, every, daily) if x]
    if len(given) != 1:
        raise TimingError(t("one_timing"))
    zone_name = (zone or "").strip()
    tz = zone_of(zone_name)  # checked for every form: a typo is told, not ignored
    if weekdays and not daily:
        raise TimingError(t("weekdays_need_daily"))
    if at:
        moment = _parse_at(at, now, tz)
        if moment <= now:
            raise TimingError(t("at_past", value=at, when=moment.astimezone(tz).strftime("%Y-%m-%d %H:%M")))
        return Timing(TimingKind.AT, at=moment.astimezone(UTC), zone=zone_name)
    if every:
        seconds = parse_duration(every, "--every")
        if seconds < MIN_EVERY_S:
            raise TimingError(t("every_too_short", value=every))
        first = (now + timedelta(seconds=seconds)).astimezone(UTC).replace(microsecond=0)
        return Timing(TimingKind.EVERY, at=first, every_s=seconds, zone=zone_name)
    assert daily is not None
    match = _HHMM.match(daily.strip())
    if not match:
        raise TimingError(t("bad_daily", value=daily))
    hour, minute = int(match.group(1)), int(match.group(2))
    if hour > 23:
        raise TimingError(t("bad_hour", value=daily))
    if minute > 59:
        raise TimingError(t("bad_minute", value=daily))
    days = parse_weekdays(weekdays) if weekdays else frozenset()
    return Timing(TimingKind.DAILY, hour=hour, minute=minute, weekdays=days, zone=zone_name)


def _parse_at(text: str, now: datetime, tz: tzinfo) -> datetime:
    value = text.strip()
    if value.startswith("+"):
        return (now + timedelta(seconds=parse_duration(value, "--at"))).replace(microsecond=0)
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise TimingError(t("bad_at", value=text)) from exc
    if moment.tzinfo is None:
        return local_instant(moment, tz)
    return moment
