"""What a run is: its goal and limits (`RunSpec`), where it came from and whether
someone can answer it (`RunProvenance`), and the earlier turns it continues."""

from __future__ import annotations

import enum
import secrets
from dataclasses import dataclass, field


class RunOrigin(enum.Enum):
    UI = "ui"
    CLI = "cli"
    TRIGGER = "trigger"
    MCP = "mcp"
    CHILD = "child"


class Attendance(enum.Enum):
    PRESENT = "present"  # the user is watching and can answer now
    REACHABLE = "reachable"  # the user can be asked, answers may take a while
    UNATTENDED = "unattended"  # nobody will answer


@dataclass(frozen=True)
class RunProvenance:
    origin: RunOrigin
    attendance: Attendance

    @property
    def can_ask(self) -> bool:
        return self.attendance is not Attendance.UNATTENDED


@dataclass(frozen=True)
class PriorTurn:
    """An earlier turn of the same conversation, as the next run sees it."""

    user: str
    answer: str
    outcome: str = ""
    run_id: str = ""
    groups: tuple[str, ...] = ()


UNLIMITED_STEPS = 0


def new_run_id() -> str:
    # The record folder adds the start time; the id itself stays short to type.
    return secrets.token_hex(5)


@dataclass(frozen=True)
class RunSpec:
    goal: str
    provenance: RunProvenance
    id: str = field(default_factory=new_run_id)
    conversation_id: str = ""
    prior_turns: tuple[PriorTurn, ...] = ()
    # Capability ids this run may use; empty means every assembled capability.
    capabilities: tuple[str, ...] = ()
    read_only: bool = False
    parent: str | None = None
    # 0 = no limit (normal runs); evals and child runs set one.
    step_budget: int = UNLIMITED_STEPS
    # Tool groups the previous turn really used; opened from the start.
    preload_groups: tuple[str, ...] = ()
