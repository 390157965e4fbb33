"""Pure queries over usage rows. The local time zone is applied here, at query time.

"24h" is the rolling 24 whole UTC hours up to and including the current one, by hour;
"7d", "30d", "90d" and FROM..TO are local calendar days including today (or both ends),
by day, and by week (7-day steps from the first day) beyond 45 days. An hour bucket
belongs to the local day its start falls on, so DST days come out right.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, tzinfo

from mika.usage.ledger import UsageRow

WEEKLY_BEYOND_DAYS = 45
_PRESET = {"7d": 7, "30d": 30, "90d": 90}
_CUSTOM = re.compile(r"^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$")


class UsageRangeError(ValueError):
    """A --range the user typed that we can't read; the message says what works."""


@dataclass(frozen=True)
class UsageRange:
    label: str
    step: str  # hour | day | week
    # Bucket starts as UTC epoch seconds plus the end of the last one.
    edges: tuple[int, ...]
    first_day: date | None = None
    last_day: date | None = None

    @property
    def start(self) -> int:
        return self.edges[0]

    @property
    def end(self) -> int:
        return self.edges[-1]


@dataclass(frozen=True)
class Totals:
    input: int = 0
    output: int = 0
    cached: int = 0
    calls: int = 0
    unreported: int = 0

    @property
    def tokens(self) -> int:
        return self.input + self.output

    def __add__(self, other: Totals) -> Totals:
        return Totals(
            self.input + other.input,
            self.output + other.output,
            self.cached + other.cached,
            self.calls + other.calls,
            self.unreported + other.unreported,
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "input": self.input,
            "output": self.output,
            "cached": self.cached,
            "calls": self.calls,
            "unreported": self.unreported,
            "tokens": self.tokens,
        }


@dataclass(frozen=True)
class Bucket:
    start: int
    end: int
    by_provider: dict[str, Totals] = field(default_factory=dict)

    @property
    def total(self) -> Totals:
        return sum(self.by_provider.values(), Totals())


@dataclass(frozen=True)
class UsageReport:
    range: UsageRange
    buckets: tuple[Bucket, ...]
    total: Totals
    by_provider: tuple[tuple[str, Totals], ...]
    by_model: tuple[tuple[str, str, Totals], ...]


def _local_midnight(day: date, tz: tzinfo) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=tz).timestamp())


def _day_edges(first: date, last: date, tz: tzinfo) -> tuple[str, tuple[int, ...]]:
    days = (last - first).days + 1
    step = 1 if days <= WEEKLY_BEYOND_DAYS else 7
    edges = [_local_midnight(first + timedelta(days=i), tz) for i in range(0, days, step)]
    edges.append(_local_midnight(last + timedelta(days=1), tz))
    return ("day" if step == 1 else "week"), tuple(edges)


def parse_range(text: str, now: datetime, tz: tzinfo) -> UsageRange:
    """`24h`, `7d`, `30d`, `90d` or `YYYY-MM-DD..YYYY-MM-DD` (local dates, both included)."""
    text = (text or "7d").strip().lower()
    if text == "24h":
        this_hour = int(now.timestamp()) // 3600 * 3600
        edges = tuple(this_hour - 3600 * (23 - i) for i in range(25))
        return UsageRange("24h", "hour", edges)
    today = now.astimezone(tz).date()
    if text in _PRESET:
        first = today - timedelta(days=_PRESET[text] - 1)
        step, edges = _day_edges(first, today, tz)
        return UsageRange(text, step, edges, first, today)
    match = _CUSTOM.match(text)
    if not match:
        raise UsageRangeError(f"unknown range {text!r}: use 24h, 7d, 30d, 90d or FROM..TO like 2026-01-01..2026-01-31")
    try:
        first, last = date.fromisoformat(match.group(1)), date.fromisoformat(match.group(2))
    except ValueError as exc:
        raise UsageRangeError(f"bad date in range {text!r}: {exc}") from None
    if last < first:
        raise UsageRangeError(f"range {text!r} ends before it starts")
    step, edges = _day_edges(first, last, tz)
    return UsageRange(text, step, edges, first, last)


def _bucket_index(edges: tuple[int, ...], at: int) -> int | None:
    if at < edges[0] or at >= edges[-1]:
        return None
    lo, hi = 0, len(edges) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if edges[mid] <= at:
            lo = mid
        else:
            hi = mid
    return lo


def _totals(row: UsageRow) -> Totals:
    return Totals(row.input, row.output, row.cached, row.calls, row.unreported)


def summarize(rows: Iterable[UsageRow], rng: UsageRange) -> UsageReport:
    """Every bucket of the range (empty ones too, for charts), with per-provider totals."""
    edges = rng.edges
    cells: list[dict[str, Totals]] = [{} for _ in range(len(edges) - 1)]
    providers: dict[str, Totals] = {}
    models: dict[tuple[str, str], Totals] = {}
    for row in rows:
        # The hour's start decides the bucket (and so the local day) it belongs to.
        index = _bucket_index(edges, row.hour)
        if index is None:
            continue
        t = _totals(row)
        cells[index][row.provider] = cells[index].get(row.provider, Totals()) + t
        providers[row.provider] = providers.get(row.provider, Totals()) + t
        models[(row.provider, row.model)] = models.get((row.provider, row.model), Totals()) + t
    buckets = tuple(Bucket(edges[i], edges[i + 1], cells[i]) for i in range(len(cells)))
    total = sum(providers.values(), Totals())
    by_provider = tuple(sorted(providers.items(), key=lambda kv: (-kv[1].tokens, kv[0])))
    by_model = tuple((p, m, t) for (p, m), t in sorted(models.items(), key=lambda kv: (-kv[1].tokens, kv[0])))
    return UsageReport(rng, buckets, total, by_provider, by_model)


def bucket_label(bucket: Bucket, step: str, tz: tzinfo) -> str:
    start = datetime.fromtimestamp(bucket.start, tz)
    if step == "hour":
        return start.strftime("%m-%d %H:00")
    if step == "day":
        return start.strftime("%Y-%m-%d")
    last = datetime.fromtimestamp(bucket.end - 1, tz)
    return f"{start:%Y-%m-%d}..{last:%Y-%m-%d}"


def local_zone() -> tzinfo:
    return datetime.now().astimezone().tzinfo or UTC
