"""`dumpsys power`: the wakefulness (Awake, Asleep, Dozing, Dreaming).

Printed as `mWakefulness=Awake` (Android 5+; 10+ also prints `getWakefulnessLocked()=`).
The screen is usable only when Awake.
"""

from __future__ import annotations

import re

from mika.cap.phone.adb.parse.decode import shell_text

_WAKE = re.compile(r"\b(?:mWakefulness|getWakefulnessLocked\(\))=(\w+)")
_SCREEN_ON = re.compile(r"\bmScreenOn=(true|false)")  # Android ≤ 4.4


def parse_wakefulness(data: bytes | str) -> str | None:
    text = shell_text(data)
    m = _WAKE.search(text)
    if m:
        return m.group(1)
    m = _SCREEN_ON.search(text)
    if m:
        return "Awake" if m.group(1) == "true" else "Asleep"
    return None
