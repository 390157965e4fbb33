"""A run's metrics (mika.record.metrics) said for a person: seconds, the time split and
a small bar of it. Shared by `mika runs show` and the TUI's runs screen, so both read the
same numbers the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The split in the order it is read; each part has its own bar character, so the bar is
# legible without colour (a pipe, a log, NO_COLOR).
SPLIT = (
    ("thinking", "thinking_ms", "█"),
    ("reading", "reading_ms", "▓"),
    ("acting", "acting_ms", "▒"),
    ("waiting", "waiting_ms", "░"),
)


def secs(ms: Any) -> str:
    """`1234` → `1.2s`; `None` (never measured) → `—`."""
    if ms is None:
        return "—"
    return f"{int(ms) / 1000:.1f}s"


def split_parts(metrics: Mapping[str, Any]) -> list[tuple[str, int]]:
    return [(name, max(0, int(metrics.get(key) or 0))) for name, key, _ in SPLIT]


def split_bar(metrics: Mapping[str, Any], width: int = 24) -> str:
    """The split as `width` cells, each part's share of the whole (largest remainder, so
    the cells add up to `width` exactly and a part that took any time shows at least one
    cell when there is room). Empty when no time was measured."""
    parts = split_parts(metrics)
    total = sum(ms for _, ms in parts)
    if total <= 0 or width <= 0:
        return ""
    exact = [ms * width / total for _, ms in parts]
    cells = [int(x) for x in exact]
    for i in sorted(range(len(parts)), key=lambda i: exact[i] - cells[i], reverse=True)[: width - sum(cells)]:
        cells[i] += 1
    # A part that took time but rounded to nothing borrows a cell from the largest.
    for i, (_, ms) in enumerate(parts):
        if ms and not cells[i]:
            largest = max(range(len(cells)), key=lambda j: cells[j])
            if cells[largest] > 1:
                cells[largest] -= 1
                cells[i] = 1
    return "".join(char * n for (_, _, char), n in zip(SPLIT, cells, strict=True))
