"""Display ids from `dumpsys SurfaceFlinger`.

Three shapes are read:
* `--display-id` (Android 10+): `Display 4619827259835644672 (HWC display 0): port=0
  pnpId=GGL displayName="EMU_display_0"` — the physical id `screencap -d` wants;
* `--displays` (Android 13+): `Display 0 (internal, primary, "Primary display")`
  followed by `powerMode=…` and `{id=0, …, resolution=480x800, …}` modes;
* the full dump of older versions: `Display N color modes:` headers only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.cap.phone.adb.parse.decode import shell_text

_ID_LINE = re.compile(r"^Display (\d+) \(HWC display (\d+)\):(.*)$")
_DISPLAYS_LINE = re.compile(r"^Display (\d+) \(([^)]*)\)\s*$")
_COLOR_LINE = re.compile(r"^Display (\d+) color modes:")
_PORT = re.compile(r"\bport=(\d+)")
_NAME = re.compile(r'displayName="([^"]*)"')
_RESOLUTION = re.compile(r"resolution=(\d+)x(\d+)")
_POWER = re.compile(r"^\s*powerMode=(\w+)")


@dataclass(frozen=True)
class SfDisplay:
    id: int  # SurfaceFlinger's id (physical display id on 10+)
    hwc_id: int | None = None
    port: int | None = None
    name: str = ""
    primary: bool = False
    resolution: tuple[int, int] | None = None
    power_mode: str = ""


def parse_surfaceflinger_displays(data: bytes | str) -> tuple[SfDisplay, ...]:
    out: dict[int, SfDisplay] = {}
    current: int | None = None
    for line in shell_text(data).split("\n"):
        if m := _ID_LINE.match(line):
            rest = m.group(3)
            port, name = _PORT.search(rest), _NAME.search(rest)
            display = SfDisplay(
                int(m.group(1)),
                hwc_id=int(m.group(2)),
                port=int(port.group(1)) if port else None,
                name=name.group(1) if name else "",
                primary=m.group(2) == "0",
            )
            out[display.id] = display
            current = None
            continue
        if m := _DISPLAYS_LINE.match(line):
            desc = m.group(2)
            name = re.search(r'"([^"]*)"', desc)
            display = SfDisplay(int(m.group(1)), name=name.group(1) if name else "", primary="primary" in desc)
            out[display.id] = display
            current = display.id
            continue
        if m := _COLOR_LINE.match(line):
            out.setdefault(int(m.group(1)), SfDisplay(int(m.group(1))))
            current = None
            continue
        if current is not None:
            d = out[current]
            if (p := _POWER.match(line)) and not d.power_mode:
                out[current] = _replace(d, power_mode=p.group(1))
            elif (r := _RESOLUTION.search(line)) and d.resolution is None:
                out[current] = _replace(d, resolution=(int(r.group(1)), int(r.group(2))))
    return tuple(out[k] for k in sorted(out))


def _replace(d: SfDisplay, **changes: object) -> SfDisplay:
    from dataclasses import replace

    return replace(d, **changes)  # type: ignore[arg-type]
