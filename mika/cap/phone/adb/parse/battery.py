"""`dumpsys battery`: level, charging, temperature — old and new field sets."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.cap.phone.adb.parse.decode import ShellOutputError, shell_text

_FIELD = re.compile(r"^\s+([A-Za-z][A-Za-z ]*?):\s*(.*?)\s*$")
_STATUS = {1: "unknown", 2: "charging", 3: "discharging", 4: "not_charging", 5: "full"}


@dataclass(frozen=True)
class BatteryState:
    level: int | None
    scale: int | None
    status: str  # charging | discharging | not_charging | full | unknown
    powered_by: tuple[str, ...]  # ac, usb, wireless, dock
    temperature_c: float | None
    voltage_mv: int | None
    technology: str
    fields: dict[str, str]

    @property
    def percent(self) -> int | None:
        if self.level is None:
            return None
        scale = self.scale or 100
        return round(self.level * 100 / scale)


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


def parse_battery(data: bytes | str) -> BatteryState:
    text = shell_text(data)
    if "Battery Service state" not in text and "level:" not in text:
        raise ShellOutputError("dumpsys battery", "no battery state in the output", text.strip())
    fields: dict[str, str] = {}
    for line in text.split("\n"):
        m = _FIELD.match(line)
        if m and m.group(1) not in fields:
            fields[m.group(1)] = m.group(2)
    powered = tuple(
        name
        for key, name in (
            ("AC powered", "ac"),
            ("USB powered", "usb"),
            ("Wireless powered", "wireless"),
            ("Dock powered", "dock"),
        )
        if fields.get(key) == "true"
    )
    temperature = _int(fields.get("temperature"))
    return BatteryState(
        level=_int(fields.get("level")),
        scale=_int(fields.get("scale")),
        status=_STATUS.get(_int(fields.get("status")) or 1, "unknown"),
        powered_by=powered,
        temperature_c=temperature / 10 if temperature is not None else None,
        voltage_mv=_int(fields.get("voltage")),
        technology=fields.get("technology", ""),
        fields=fields,
    )
