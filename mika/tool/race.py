"""`race(work, *events)`: await some work unless one of these events happens first.

The loop, the model caller and the dispatcher all need "run this, but stop if the user
cancels (or steers)". Done by hand, each copy had to remember to cancel the loser, to
wait for it to finish cleaning up, and to pass the work's own exception on; one place
does it here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar, Union

T = TypeVar("T")
log = logging.getLogger(__name__)

# What may interrupt: an asyncio.Event (waited for) or a future someone else owns (never
# cancelled by the race: only our wait on it is).
Trigger = Union[asyncio.Event, "asyncio.Future[Any]"]


class Interrupted(Exception):
    """One of the events happened before the work finished; the work was cancelled."""

    def __init__(self, by: Trigger) -> None:
        super().__init__("interrupted before the work finished")
        self.by = by


async def race(work: Awaitable[T], *events: Trigger) -> T:
    """The work's result, or `Interrupted(event)` when an event came first.

    The work's own exception is raised as it is. When both are ready at once the work
    wins (its result is not thrown away). If the caller is cancelled, the work is
    cancelled too and awaited before the CancelledError goes on. When this returns or
    raises, no task it started is left running."""
    for e in events:
        if not (isinstance(e, asyncio.Event) or asyncio.isfuture(e)):
            raise TypeError(f"race() waits for asyncio.Event or futures, not {type(e).__name__}")
    task: asyncio.Future[Any] = asyncio.ensure_future(work)
    watchers = {_watch(e): e for e in events}
    try:
        done, _ = await asyncio.wait({task, *watchers}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        await _drop(*watchers, task)
        raise
    await _drop(*watchers)
    if task in done:
        result: T = task.result()
        return result
    await _drop(task)
    raise Interrupted(next(e for w, e in watchers.items() if w in done))


def _watch(trigger: Trigger) -> asyncio.Future[Any]:
    if isinstance(trigger, asyncio.Event):
        return asyncio.ensure_future(trigger.wait())
    return asyncio.shield(trigger)  # cancelling the shield leaves the owner's future alone


async def _drop(*futures: asyncio.Future[Any]) -> None:
    """Cancel the losers and wait until they have finished cleaning up; their results
    and errors are nobody's any more."""
    for f in futures:
        f.cancel()
    for f in futures:
        try:
            await f
        except asyncio.CancelledError:
            if not f.done():
                raise  # we ourselves were cancelled meanwhile; f has already been told to stop
        except Exception:  # a loser failing while it stopped: its result was not wanted
            log.debug("a cancelled racer failed while stopping", exc_info=True)
