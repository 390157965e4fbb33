""" "You've hit the limit" notices that newly appear after an action (seed `LimitNotice`).

Only short texts count (toasts, dialog lines, banners — not an article that happens to
mention a limit), and only ones that were not on the screen before the action: a notice
that was already showing was not caused by it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.uistate.screen import Screen

_MAX_LEN = 80  # longer texts are content, not a notice
_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"limit (has been |was )?reached",
        r"reached (the|your|a) (daily |hourly )?limit",
        r"too many (requests|attempts|times)",
        r"try again (later|tomorrow)",
        r"rate.?limit",
        r"已达(到)?(上限|限制|最大)",
        r"达到(上限|限制|次数上限)",
        r"次数(已)?用(完|尽)",
        r"(明天|明日)再来",
        r"操作(过于|太)频繁",
        r"请求(过于|太)频繁",
        r"频繁操作",
        r"稍后再试",
        r"今日.{0,6}(已满|用完|上限)",
    )
)


@dataclass(frozen=True)
class LimitNotice:
    text: str

    @staticmethod
    def matches(text: str) -> bool:
        t = text.strip()
        return 0 < len(t) <= _MAX_LEN and any(p.search(t) for p in _PATTERNS)

    @staticmethod
    def detect(before: Screen | None, after: Screen) -> LimitNotice | None:
        """The first limit notice on `after` that `before` did not show."""
        old = {t.strip() for t in before.texts()} if before is not None else set()
        for text in after.texts():
            t = text.strip()
            if t not in old and LimitNotice.matches(t):
                return LimitNotice(t)
        return None
