"""When the next enabled alarm rings (what `dumpsys alarm` reports)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from mika.sim.world.clock import WEEKDAYS

if TYPE_CHECKING:
    from mika.sim.world.world import World


def next_alarm(world: World) -> tuple[datetime, dict[str, Any]] | None:
    now = world.clock.local()
    best: tuple[datetime, dict[str, Any]] | None = None
    for alarm in world.data.get("alarms", []):
        if not alarm.get("enabled", True):
            continue
        try:
            hour, minute = int(alarm["hour"]), int(alarm["minute"])
        except (KeyError, TypeError, ValueError):
            continue
        days = alarm.get("days") or []
        for ahead in range(8):
            day = now + timedelta(days=ahead)
            when = day.replace(hour=hour, minute=minute, second=0, microsecond=0)
            if when <= now:
                continue
            if days and WEEKDAYS[when.weekday()] not in days:
                continue
            if best is None or when < best[0]:
                best = (when, alarm)
            break
    return best
