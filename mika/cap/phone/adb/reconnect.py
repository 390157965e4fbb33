"""Waiting for a dropped phone to come back: capped exponential backoff, bounded time."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ReconnectPolicy:
    first_delay: float = 0.2
    max_delay: float = 2.0
    total: float = 20.0  # after this long without the phone the run ends device_unavailable

    def delays(self) -> list[float]:
        out, d, spent = [], self.first_delay, 0.0
        while spent < self.total:
            step = min(d, self.max_delay, self.total - spent)
            out.append(step)
            spent += step
            d *= 2
        return out


def wait_until(ready: Callable[[], bool], policy: ReconnectPolicy, sleep: Callable[[float], None] = time.sleep) -> bool:
    """True once `ready()` holds; False when the policy's time ran out."""
    if ready():
        return True
    for delay in policy.delays():
        sleep(delay)
        if ready():
            return True
    return False
