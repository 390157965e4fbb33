"""The process-wide tab budget (seed §6: 8 tabs in all): shared by every port of the
process, a slot taken when a tab opens and given back when it closes."""

from __future__ import annotations

import threading

from mika.cap.web.options import TABS_IN_ALL


class TabBudget:
    def __init__(self, limit: int = TABS_IN_ALL) -> None:
        self.limit = limit
        self._used = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self._used >= self.limit:
                return False
            self._used += 1
            return True

    def give_back(self, count: int = 1) -> None:
        with self._lock:
            self._used = max(0, self._used - count)

    @property
    def used(self) -> int:
        return self._used


PROCESS_TABS = TabBudget()
