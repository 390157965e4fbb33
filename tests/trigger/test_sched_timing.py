"""Due times: daylight saving keeps the wall-clock time, weekdays filter, missed windows
merge into the latest, and the CLI forms say exactly what is wrong. Pure functions with
fixed instants (the "clock" is the `after`/`now` argument)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from mika.trigger.definition import Timing, TimingKind, iso, window_id
from mika.trigger.timing import TimingError, latest_window, next_due, parse_timing

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def daily(hour: int, minute: int, zone: str, weekdays: frozenset[int] = frozenset()) -> Timing:
    return Timing(TimingKind.DAILY, hour=hour, minute=minute, zone=zone, weekdays=weekdays)


def walk(timing: Timing, start: datetime, n: int) -> list[datetime]:
    out, moment = [], start
    for _ in range(n):
        nxt = next_due(timing, moment)
        assert nxt is not None
        out.append(nxt)
        moment = nxt
    return out


@pytest.mark.parametrize(
    ("zone", "start"),
    [
        ("Europe/Berlin", utc(2026, 3, 20)),
        ("Europe/Berlin", utc(2026, 10, 18)),
        ("America/New_York", utc(2026, 3, 1)),
        ("America/New_York", utc(2026, 10, 25)),
    ],
)
def test_daily_keeps_the_wall_clock_across_dst(zone, start):
    tz = ZoneInfo(zone)
    dues = walk(daily(7, 30, zone), start, 20)
    # Every due is 07:30 local, once a day, strictly increasing — through the change.
    assert all(d.astimezone(tz).strftime("%H:%M") == "07:30" for d in dues)
    dates = [d.astimezone(tz).date() for d in dues]
    assert dates == [dates[0] + timedelta(days=i) for i in range(20)]
    offsets = {d.astimezone(tz).utcoffset() for d in dues}
    assert len(offsets) == 2  # the walk really crossed a change


def test_spring_forward_nonexistent_time_runs_when_the_clocks_jump():
    # Berlin 2026-03-29: 02:00 CET jumps to 03:00 CEST; 02:30 doesn't exist that day.
    due = next_due(daily(2, 30, "Europe/Berlin"), utc(2026, 3, 28, 12))
    assert due == utc(2026, 3, 29, 1, 0)  # = 03:00 CEST, the first valid instant
    following = next_due(daily(2, 30, "Europe/Berlin"), due)
    assert following is not None and following.astimezone(BERLIN).strftime("%m-%d %H:%M") == "03-30 02:30"
    # New York 2026-03-08: 02:15 doesn't exist; due at 03:00 EDT.
    ny = next_due(daily(2, 15, "America/New_York"), utc(2026, 3, 7, 12))
    assert ny is not None and ny.astimezone(NEW_YORK).strftime("%m-%d %H:%M %Z") == "03-08 03:00 EDT"


def test_fall_back_ambiguous_time_runs_once_the_first_time():
    # Berlin 2026-10-25: 02:30 happens twice (CEST, then CET); due once, at the first.
    t = daily(2, 30, "Europe/Berlin")
    due = next_due(t, utc(2026, 10, 24, 12))
    assert due == utc(2026, 10, 25, 0, 30)  # 02:30 CEST
    following = next_due(t, due)
    assert following is not None and following.astimezone(BERLIN).date().day == 26  # not the second 02:30
    ny = next_due(daily(1, 30, "America/New_York"), utc(2026, 10, 31, 12))
    assert ny is not None and ny.astimezone(NEW_YORK).tzname() == "EDT"


def test_weekdays_filter():
    t = daily(8, 0, "Europe/Berlin", frozenset({0, 4}))  # mon, fri
    dues = walk(t, utc(2026, 3, 16), 8)  # across the Berlin change too
    assert {d.astimezone(BERLIN).weekday() for d in dues} == {0, 4}
    assert all(d.astimezone(BERLIN).hour == 8 for d in dues)
    gaps = {(b - a).days for a, b in itertools.pairwise(dues)}
    assert gaps <= {2, 3, 4}


def test_every_and_at():
    every = Timing(TimingKind.EVERY, at=utc(2026, 1, 1, 0, 0), every_s=900)
    assert next_due(every, utc(2025, 12, 31)) == utc(2026, 1, 1)
    assert next_due(every, utc(2026, 1, 1)) == utc(2026, 1, 1, 0, 15)
    assert next_due(every, utc(2026, 1, 1, 0, 14, 59)) == utc(2026, 1, 1, 0, 15)
    once = Timing(TimingKind.AT, at=utc(2026, 1, 1, 9))
    assert next_due(once, utc(2026, 1, 1, 8)) == utc(2026, 1, 1, 9)
    assert next_due(once, utc(2026, 1, 1, 9)) is None


@pytest.mark.parametrize("late_s", [0, 1, 899, 900, 901, 3 * 900 + 5, 100 * 900])
def test_missed_intervals_merge_into_the_latest(late_s):
    every = Timing(TimingKind.EVERY, at=utc(2026, 1, 1), every_s=900)
    now = utc(2026, 1, 1) + timedelta(seconds=late_s)
    window = latest_window(every, utc(2026, 1, 1), now)
    assert window is not None
    assert window.missed == late_s // 900
    assert window.due <= now < window.due + timedelta(seconds=900)
    assert window.following == window.due + timedelta(seconds=900)
    assert latest_window(every, utc(2026, 1, 1), utc(2025, 12, 31, 23, 59)) is None


def test_missed_days_of_a_daily_timing():
    t = daily(7, 30, "Europe/Berlin")
    first = next_due(t, utc(2026, 3, 25))
    assert first is not None
    window = latest_window(t, first, utc(2026, 3, 31, 12))  # six days off, over the change
    assert window is not None and window.missed == 6
    assert window.due.astimezone(BERLIN).strftime("%m-%d %H:%M") == "03-31 07:30"
    assert window_id("s1", window.due) == f"s1@{iso(window.due)}" and iso(window.due).endswith("Z")


NOW = utc(2026, 5, 1, 10, 0)


def test_parse_forms():
    assert parse_timing(now=NOW, at="+3s").at == NOW + timedelta(seconds=3)
    assert parse_timing(now=NOW, at="+1h30m").at == NOW + timedelta(minutes=90)
    at = parse_timing(now=NOW, at="2026-05-01T20:00", zone="Asia/Shanghai")
    assert at.at == utc(2026, 5, 1, 12, 0)
    every = parse_timing(now=NOW, every="15m")
    assert every.every_s == 900 and every.at == NOW + timedelta(minutes=15)
    d = parse_timing(now=NOW, daily="7:05", weekdays="mon,Fri", zone="Europe/Berlin")
    assert (d.hour, d.minute, d.weekdays, d.zone) == (7, 5, frozenset({0, 4}), "Europe/Berlin")
    assert Timing.from_dict(d.to_dict()) == d


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"daily": "25:00"}, "--daily 25:00: hour must be 0–23"),
        ({"daily": "07:60"}, "minute must be 0–59"),
        ({"daily": "7am"}, "HH:MM"),
        ({"daily": "07:00", "zone": "Mars/Olympus"}, "unknown time zone 'Mars/Olympus'"),
        ({"daily": "07:00", "weekdays": "mon,funday"}, "unknown day 'funday'"),
        ({"every": "10s"}, "shortest interval is 1m"),
        ({"every": "soon"}, "--every soon: not a duration"),
        ({"at": "+0s"}, "longer than zero"),
        ({"at": "2020-01-01T00:00Z"}, "has passed already"),
        ({"at": "tomorrow"}, "--at tomorrow: not a time"),
        ({"at": "+1m", "every": "5m"}, "exactly one of"),
        ({}, "exactly one of"),
        ({"every": "5m", "weekdays": "mon"}, "only with --daily"),
    ],
)
def test_parse_errors_say_what_is_wrong(kwargs, says, monkeypatch):
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
    with pytest.raises(TimingError) as err:
        parse_timing(now=NOW, **kwargs)
    assert says in str(err.value)


def test_parse_errors_in_chinese(monkeypatch):
    monkeypatch.setenv("MIKA_LANGUAGE", "zh")
    with pytest.raises(TimingError, match="小时必须是 0–23"):
        parse_timing(now=NOW, daily="25:00")
