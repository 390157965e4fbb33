"""What a run leaves on the phone through its display, and how it is cleared or given back.

- the run's app tasks on its display: `am stack list` finds them (Android 10–11 print
  "Stack id=N … displayId=D", 12–14 "RootTask id=N … displayId=D"), and at the end of
  the run `am stack remove N` finishes them (the same command on 10–14) — or, when the
  user wants them, `am display move-stack N 0` puts them on the main screen;
- the agent's app muted on its display: `appops get PKG PLAY_AUDIO` before, `appops set
  PKG PLAY_AUDIO ignore` while the run works, the previous mode written back after. An
  op never set reads "No operations."; it is given back as `allow`, not `default`
  (seed §6: Android plays sound only for allow).

Blocking-free: these are command strings and parsers; the keeper and the restorers run them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

MUTE_OP = "PLAY_AUDIO"
MUTED_KIND = "muted_app"  # BorrowedLedger kind: key "<serial>/<package>"
TASK_KIND = "display_task"  # BorrowedLedger kind: key "<serial>/task-<id>"

_ROOT = re.compile(r"^\s*(?:RootTask|Stack) id=(\d+)\b.*?\bdisplayId=(\d+)")
_TASK = re.compile(r"^\s*taskId=(\d+):\s*([\w.]+)/")
_MODE = re.compile(r"^\s*" + MUTE_OP + r":\s*([a-z]+)")


@dataclass(frozen=True)
class DisplayTask:
    id: int
    display: int
    package: str  # of its top activity; "" when the list did not say


def parse_tasks(text: str) -> list[DisplayTask]:
    """`am stack list` → its root tasks with the display each is on."""
    out: list[DisplayTask] = []
    current: tuple[int, int] | None = None
    package = ""
    for line in text.splitlines():
        root = _ROOT.match(line)
        if root:
            if current is not None:
                out.append(DisplayTask(current[0], current[1], package))
            current, package = (int(root.group(1)), int(root.group(2))), ""
            continue
        task = _TASK.match(line)
        if task and current is not None and not package:
            package = task.group(2)
    if current is not None:
        out.append(DisplayTask(current[0], current[1], package))
    return out


def remove_task_command(task_id: int) -> str:
    return f"am stack remove {int(task_id)}"


def move_to_main_command(task_id: int) -> str:
    return move_command(task_id, 0)


def move_command(task_id: int, display: int) -> str:
    return f"am display move-stack {int(task_id)} {int(display)}"


def get_mode_command(package: str) -> str:
    return f"appops get {shlex.quote(package)} {MUTE_OP}"


def set_mode_command(package: str, mode: str) -> str:
    return f"appops set {shlex.quote(package)} {MUTE_OP} {shlex.quote(mode)}"


def parse_mode(output: str) -> str | None:
    """The op's mode from `appops get PKG PLAY_AUDIO` ("PLAY_AUDIO: ignore; time=+1m2s ago"
    → "ignore"); None when it was never set ("No operations.")."""
    for line in output.splitlines():
        found = _MODE.match(line)
        if found:
            return found.group(1)
    return None


def mode_to_give_back(previous: str | None) -> str:
    """What to write back: the user's explicit mode as it was; an unset one as allow."""
    if not previous or previous == "default":
        return "allow"
    return previous
