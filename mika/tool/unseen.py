"""Sub-calls whose results the model does not read one by one (a sandbox command's
`mika phone dump`, printed or parsed by a script): a capability that sends small changes
as deltas against the last result the model read must not take one of these as that base.

Capability-neutral, so the sandbox bridge (which knows no capability) can say so and the
phone's listings (which know no sandbox) can hear it.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

_UNSEEN: contextvars.ContextVar[bool] = contextvars.ContextVar("mika_results_unseen", default=False)


@contextmanager
def results_unseen() -> Iterator[None]:
    token = _UNSEEN.set(True)
    try:
        yield
    finally:
        _UNSEEN.reset(token)


def are_results_unseen() -> bool:
    return _UNSEEN.get()
