"""The phases a run passes through in the task center (queued … ended), as its record
and the conversations list show them."""

from __future__ import annotations

import enum


class RunPhase(enum.Enum):
    QUEUED = "queued"
    PREPARING = "preparing"
    RUNNING = "running"
    WAITING_USER = "waiting_user"
    PARKED = "parked"
    PAUSED = "paused"
    FINISHING = "finishing"
    AFTERCARE = "aftercare"
    ENDED = "ended"
    INTERRUPTED = "interrupted"
