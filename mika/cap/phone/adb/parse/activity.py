"""Resumed activity per display from `dumpsys activity activities` or `dumpsys activity top`.

Lines used, by Android version:
* `mResumedActivity: ActivityRecord{8079d7e u0 com.pkg/com.pkg.Main t42}` (≤ 9, per stack);
* `ResumedActivity: ActivityRecord{…}` (10+, per display) and `Resumed: ActivityRecord{…}`
  (12+, "Resumed activities in task display areas");
* `topResumedActivity=ActivityRecord{…}` (11+);
* `ACTIVITY com.pkg/.Main 1f72345 pid=3784` (`dumpsys activity top`).
The display is the latest `Display #N` header above the line (0 when there is none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.cap.phone.adb.parse.decode import shell_text
from mika.cap.phone.adb.parse.window import Component

_DISPLAY = re.compile(r"^\s*Display #(\d+)")
_RESUMED = re.compile(
    r"\b(?:mResumedActivity|ResumedActivity|Resumed|topResumedActivity)[:=]\s*ActivityRecord\{([^}]*)\}(\s*t\d+)?"
)
_TOP = re.compile(r"^\s*ACTIVITY\s+(\S+/\S+)\s")
_TASK = re.compile(r"\bt(\d+)\b")


@dataclass(frozen=True)
class ResumedActivity:
    display_id: int
    component: Component
    task_id: int | None = None

    @property
    def package(self) -> str:
        return self.component.package


def parse_resumed_activities(data: bytes | str) -> tuple[ResumedActivity, ...]:
    """One entry per display, first mention wins (the dump lists top first)."""
    text = shell_text(data)
    display = 0
    seen: dict[int, ResumedActivity] = {}
    for line in text.split("\n"):
        if m := _DISPLAY.match(line):
            display = int(m.group(1))
            continue
        record = None
        if m := _RESUMED.search(line):
            # Android 13 closes the braces before the task: `{… com.pkg/.Main} t12}`.
            record = m.group(1) + (m.group(2) or "")
        elif m := _TOP.match(line):
            record = m.group(1)
        if record is None or display in seen:
            continue
        component = Component.parse(record)
        if component is None:
            continue
        task = _TASK.search(record.split("/", 1)[-1])
        seen[display] = ResumedActivity(display, component, int(task.group(1)) if task else None)
    return tuple(seen[d] for d in sorted(seen))
