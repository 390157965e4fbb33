"""`wm size` and `wm density`: the physical value and, when set, the override in force."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.cap.phone.adb.parse.decode import ShellOutputError, shell_text


@dataclass(frozen=True)
class SizeOverride:
    physical: tuple[int, int] | None
    override: tuple[int, int] | None

    @property
    def effective(self) -> tuple[int, int] | None:
        return self.override or self.physical


@dataclass(frozen=True)
class DensityOverride:
    physical: int | None
    override: int | None

    @property
    def effective(self) -> int | None:
        return self.override or self.physical


_SIZE = re.compile(r"^\s*(Physical|Override) size:\s*(\d+)\s*x\s*(\d+)", re.MULTILINE)
_DENSITY = re.compile(r"^\s*(Physical|Override) density:\s*(\d+)", re.MULTILINE)


def parse_wm_size(data: bytes | str) -> SizeOverride:
    text = shell_text(data)
    values = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in _SIZE.finditer(text)}
    if not values:
        raise ShellOutputError("wm size", "no 'Physical size: WxH' line", text.strip())
    return SizeOverride(values.get("Physical"), values.get("Override"))


def parse_wm_density(data: bytes | str) -> DensityOverride:
    text = shell_text(data)
    values = {m.group(1): int(m.group(2)) for m in _DENSITY.finditer(text)}
    if not values:
        raise ShellOutputError("wm density", "no 'Physical density: N' line", text.strip())
    return DensityOverride(values.get("Physical"), values.get("Override"))
