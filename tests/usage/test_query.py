"""UsageQuery: pure, local-time bucketing, including DST days."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from mika.usage.ledger import UsageRow
from mika.usage.query import UsageRangeError, bucket_label, parse_range, summarize

NY = ZoneInfo("America/New_York")
UTC = UTC


def row(at: datetime, provider="p", model="m", input=10, output=1, cached=0, calls=1, unreported=0):
    hour = int(at.timestamp()) // 3600 * 3600
    return UsageRow(hour, provider, model, "main", input, output, cached, calls, unreported)


def test_24h_is_the_last_24_whole_hours_including_this_one():
    now = datetime(2026, 5, 4, 15, 20, tzinfo=UTC)
    rng = parse_range("24h", now, UTC)
    assert rng.step == "hour" and len(rng.edges) == 25
    assert rng.edges[-2] == int(datetime(2026, 5, 4, 15, tzinfo=UTC).timestamp())
    report = summarize([row(now), row(now - timedelta(hours=23)), row(now - timedelta(hours=24))], rng)
    assert report.total.calls == 2
    assert report.buckets[-1].total.input == 10 and report.buckets[0].total.input == 10


def test_7d_by_local_day_including_today():
    now = datetime(2026, 5, 4, 2, 0, tzinfo=UTC)  # 22:00 on May 3rd in New York
    rng = parse_range("7d", now, NY)
    assert (rng.first_day, rng.last_day, rng.step) == (date(2026, 4, 27), date(2026, 5, 3), "day")
    report = summarize([row(now), row(now - timedelta(days=7))], rng)
    assert report.buckets[-1].total.calls == 1 and report.total.calls == 1
    assert bucket_label(report.buckets[-1], "day", NY) == "2026-05-03"


def test_dst_days_have_23_and_25_hours_and_hours_land_on_their_local_day():
    rng = parse_range("2026-03-07..2026-03-09", datetime(2026, 3, 10, tzinfo=UTC), NY)
    lengths = [(b - a) / 3600 for a, b in zip(rng.edges, rng.edges[1:], strict=False)]
    assert lengths == [24, 23, 24]
    # Every UTC hour of those local days, one token each.
    start = datetime(2026, 3, 7, tzinfo=NY).astimezone(UTC)
    rows = [row(start + timedelta(hours=h), input=1, output=0) for h in range(24 + 23 + 24)]
    report = summarize(rows, rng)
    assert [b.total.input for b in report.buckets] == [24, 23, 24]
    autumn = parse_range("2026-11-01..2026-11-01", datetime(2026, 11, 2, tzinfo=UTC), NY)
    assert (autumn.edges[1] - autumn.edges[0]) / 3600 == 25


def test_beyond_45_days_goes_by_week_from_the_first_day():
    now = datetime(2026, 6, 30, 12, tzinfo=UTC)
    rng = parse_range("90d", now, UTC)
    assert rng.step == "week" and len(rng.edges) - 1 == 13  # 12 full weeks + a 6-day tail
    assert (rng.edges[1] - rng.edges[0]) == 7 * 86400
    assert parse_range("30d", now, UTC).step == "day"
    assert parse_range("2026-01-01..2026-02-14", now, UTC).step == "day"  # 45 days
    assert parse_range("2026-01-01..2026-02-15", now, UTC).step == "week"  # 46 days


def test_per_provider_and_model_rankings():
    now = datetime(2026, 5, 4, 12, tzinfo=UTC)
    rows = [row(now, "a", "x", 100, 10), row(now, "b", "y", 5, 5), row(now, "a", "z", 1, 1, unreported=2, calls=0)]
    report = summarize(rows, parse_range("7d", now, UTC))
    assert [p for p, _ in report.by_provider] == ["a", "b"]
    assert report.by_provider[0][1].tokens == 112
    assert [(p, m) for p, m, _ in report.by_model] == [("a", "x"), ("b", "y"), ("a", "z")]
    assert report.total.unreported == 2
    assert report.buckets[-1].by_provider["b"].tokens == 10


@pytest.mark.parametrize("text", ["1y", "2026-02-30..2026-03-01", "2026-03-05..2026-03-01", "yesterday"])
def test_bad_ranges_say_what_works(text):
    with pytest.raises(UsageRangeError) as info:
        parse_range(text, datetime(2026, 5, 4, tzinfo=UTC), UTC)
    assert text in str(info.value)
