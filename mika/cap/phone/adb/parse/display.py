"""`dumpsys display`: the logical displays (id, name, size, rotation, density, state).

Read from the `DisplayInfo{"Built-in Screen", displayId 0", … real 480 x 800, …
rotation 0, state OFF, type INTERNAL, … density 240 (…) dpi, … FLAG_SECURE …}` records
(the override record, printed after the base one, wins: it is what apps see).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.cap.phone.adb.parse.decode import ShellOutputError, shell_text

_INFO = re.compile(
    r"(mBaseDisplayInfo|mOverrideDisplayInfo|mDisplayInfo)?=?DisplayInfo\{\"(?P<name>[^\"]*)\",\s*(?P<body>[^\n]*)\}"
)
_ID = re.compile(r"displayId (\d+)")
_REAL = re.compile(r"\breal (\d+) x (\d+)")
_ROTATION = re.compile(r"\brotation (\d+)")
_STATE = re.compile(r"\bstate (\w+)")
_TYPE = re.compile(r"\btype (\w+)")
_DENSITY = re.compile(r"\bdensity (\d+)")


@dataclass(frozen=True)
class DisplayInfo:
    display_id: int
    name: str
    width: int | None
    height: int | None
    rotation: int | None
    density: int | None
    state: str  # ON | OFF | DOZE | … as printed; "" if absent
    type: str  # INTERNAL | EXTERNAL | VIRTUAL | OVERLAY | WIFI
    secure: bool  # FLAG_SECURE: the display itself refuses screenshots of secure content

    @property
    def size(self) -> tuple[int, int] | None:
        return (self.width, self.height) if self.width and self.height else None


def _m(pattern: re.Pattern[str], body: str) -> str | None:
    m = pattern.search(body)
    return m.group(1) if m else None


def parse_display(data: bytes | str) -> tuple[DisplayInfo, ...]:
    text = shell_text(data)
    if "DISPLAY MANAGER" not in text and "DisplayInfo{" not in text:
        raise ShellOutputError("dumpsys display", "no DISPLAY MANAGER section", text.strip())
    found: dict[int, DisplayInfo] = {}
    for m in _INFO.finditer(text):
        body = m.group("body")
        display_id = _m(_ID, body)
        if display_id is None:
            continue
        real = _REAL.search(body)
        rotation, density = _m(_ROTATION, body), _m(_DENSITY, body)
        info = DisplayInfo(
            display_id=int(display_id),
            name=m.group("name"),
            width=int(real.group(1)) if real else None,
            height=int(real.group(2)) if real else None,
            rotation=int(rotation) if rotation else None,
            density=int(density) if density else None,
            state=_m(_STATE, body) or "",
            type=_m(_TYPE, body) or "",
            secure="FLAG_SECURE" in body,
        )
        # Later records (the override after the base) describe what is in force.
        found[info.display_id] = info
    return tuple(found[k] for k in sorted(found))
