"""Test-only fault injection: kill this process at a chosen event boundary of a run.

`MIKA_TEST_KILL_AT=<event type>:<n>` makes a run SIGKILL its own process right after
the n-th recorded event of that type has reached every subscriber (the recorder, the
task center, headless output). `*` counts every recorded event, so `*:7` kills at
the seventh boundary. Ephemeral events (stream deltas) are never recorded and never
counted, so boundary N of `*` is the N-th line of the run's events.jsonl.

It exists so the crash tests (tests/run_center/test_kill_points.py) can kill a real
`mika --no-ui` at every boundary of a run and check that recovery tells each outcome
exactly once. The variable is read once per run, when the run is built; unset, the
run's only cost is one `is None` check per event. Never set it outside tests.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass

ENV = "MIKA_TEST_KILL_AT"
ANY = "*"


class BadKillPoint(ValueError):
    pass


@dataclass
class KillPoint:
    event_type: str
    n: int
    seen: int = 0

    @classmethod
    def parse(cls, text: str) -> KillPoint:
        kind, sep, count = text.strip().rpartition(":")
        if not sep or not kind or not count.isdigit() or int(count) < 1:
            raise BadKillPoint(f"{ENV}={text!r}: expected <event type>:<n> with n ≥ 1, e.g. outcome:1 or *:7")
        return cls(kind, int(count))

    def after(self, event_type: str) -> None:
        """Called once an event has been handled; kills the process at the chosen one."""
        if self.event_type != ANY and self.event_type != event_type:
            return
        self.seen += 1
        if self.seen == self.n:
            os.kill(os.getpid(), signal.SIGKILL)


def kill_point_from_env() -> KillPoint | None:
    text = os.environ.get(ENV)
    return KillPoint.parse(text) if text else None
