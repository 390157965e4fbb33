"""Spacing between outward actions in one app or site (seed §4 对外动作之间的间隔).

Pure logic with an injected clock and random source. The first outward action in a
place goes at once; each later one waits until 8–20 s (random) after the previous one
ended, both bounds raised by 0.5 / 1 s for every outward action there in the last 30
minutes, never more than 30 s. Time spent reading and thinking counts toward the gap.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable
from dataclasses import dataclass, field

WINDOW_S = 30 * 60
BASE_LOW, BASE_HIGH = 8.0, 20.0
STEP_LOW, STEP_HIGH = 0.5, 1.0
CAP_S = 30.0


@dataclass
class OutwardPacing:
    clock: Callable[[], float]
    rand: Callable[[], float] = field(default_factory=lambda: _random.Random().random)
    enabled: bool = True
    _history: dict[str, list[float]] = field(default_factory=dict)

    def delay(self, place: str) -> float:
        """Seconds to wait before an outward action in `place` may start."""
        if not self.enabled or not place:
            return 0.0
        now = self.clock()
        done = [t for t in self._history.get(place, []) if now - t <= WINDOW_S]
        if not done:
            return 0.0
        recent = len(done) - 1
        low = min(CAP_S, BASE_LOW + STEP_LOW * recent)
        high = min(CAP_S, BASE_HIGH + STEP_HIGH * recent)
        gap = low + (high - low) * self.rand()
        return max(0.0, min(CAP_S, gap) - (now - done[-1]))

    def finished(self, place: str) -> None:
        """An outward action in `place` just ended."""
        if not self.enabled or not place:
            return
        now = self.clock()
        kept = [t for t in self._history.get(place, []) if now - t <= WINDOW_S]
        kept.append(now)
        self._history[place] = kept
