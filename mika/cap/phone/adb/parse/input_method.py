"""`dumpsys input_method`: is the soft keyboard showing?

Android prints `mInputShown=true|false` (older) or, on 11+, also `mIsInputViewShown`
/ `isInputViewShown=`; any of them being true means the keyboard covers part of the
screen. None when the output names none of them.
"""

from __future__ import annotations

import re

from mika.cap.phone.adb.parse.decode import shell_text

_SHOWN = re.compile(r"\b(mInputShown|mIsInputViewShown|isInputViewShown|mImeWindowVis)=(\w+)")


def parse_input_shown(data: bytes | str) -> bool | None:
    values: list[bool] = []
    for m in _SHOWN.finditer(shell_text(data)):
        name, value = m.group(1), m.group(2)
        if name == "mImeWindowVis":
            # A bit mask: 0x1 = IME_ACTIVE, 0x2 = IME_VISIBLE.
            try:
                values.append(bool(int(value, 16) & 0x2))
            except ValueError:
                continue
        else:
            values.append(value == "true")
    if not values:
        return None
    return any(values)
