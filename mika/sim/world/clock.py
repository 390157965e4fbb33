"""The phone's clock: starts at the scenario's time and runs with real time, unless
frozen; tests set or advance it through `simctl set time …`."""

from __future__ import annotations

import time
from datetime import UTC, datetime

# The day names app data uses (an alarm's "days"), Monday first as datetime.weekday() counts:
# the world reads them to find the next alarm, the app files' templates to print them.
WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


class Clock:
    def __init__(self, start: float, frozen: bool = False) -> None:
        self._base = start
        self._mono = time.monotonic()
        self.frozen = frozen

    def now(self) -> float:
        if self.frozen:
            return self._base
        return self._base + (time.monotonic() - self._mono)

    def set(self, epoch: float) -> None:
        self._base = epoch
        self._mono = time.monotonic()

    def advance(self, seconds: float) -> None:
        """Used by `sleep` when frozen, and by `simctl set time +Ns`."""
        if self.frozen:
            self._base += seconds

    def jump(self, seconds: float) -> None:
        self.set(self.now() + seconds)

    def local(self) -> datetime:
        # The simulated phone's zone is UTC, so what tests set is what the screen shows.
        return datetime.fromtimestamp(self.now(), tz=UTC)


def parse_time(text: str) -> float:
    """ISO 8601 ("2026-12-01T08:00[:00]", UTC unless it says otherwise) or epoch seconds."""
    if text.replace(".", "", 1).isdigit():
        return float(text)
    dt = datetime.fromisoformat(text)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()
