"""`ResourceScheduler`: what parallel runs really share (seed §8).

Runs of different conversations each work on their own display, but some things are
one of a kind: an app (one run at a time may drive it), the clipboard (set-then-paste
must not interleave), and the user's main screen during a takeover. Each is an
exclusive resource with a FIFO queue of waiting runs; a run may take the same one
again while it holds it. `release_run` frees all a run held and drops its waits (at
run end, however it ended).

This is per process: the task center in one Mika process schedules its own runs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass

MAX_PARALLEL = 3


def parallel_limit(requested: int, displays: int = 1) -> int:
    """How many runs may go at once: the setting (1–3), but never more than the
    displays the devices can give (one per run)."""
    return max(1, min(int(requested or 1), MAX_PARALLEL, max(1, int(displays))))


class RunApps:
    """One run's view of the scheduler's apps, as its tools see it (mika.tool.AppClaims)."""

    def __init__(self, scheduler: ResourceScheduler, run_id: str) -> None:
        self.scheduler = scheduler
        self.run_id = run_id

    def claim(self, package: str) -> str | None:
        try:
            self.scheduler.claim_app(self.run_id, package)
        except ResourceBusy as busy:
            return busy.holder
        return None


class ResourceBusy(Exception):
    def __init__(self, resource: str, holder: str) -> None:
        self.resource = resource
        self.holder = holder
        super().__init__(f"{resource} is in use by run {holder}; it is free again when that run ends.")


class _Exclusive:
    def __init__(self, name: str) -> None:
        self.name = name
        self.holder: str | None = None
        self.depth = 0
        self.waiters: deque[tuple[str, asyncio.Future[None]]] = deque()

    def try_take(self, run_id: str) -> bool:
        if self.holder is None and not self.waiters:
            self.holder, self.depth = run_id, 1
            return True
        if self.holder == run_id:
            self.depth += 1
            return True
        return False

    async def take(self, run_id: str) -> None:
        if self.try_take(run_id):
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append((run_id, future))
        try:
            await future
        except asyncio.CancelledError:
            self._forget(future)
            # Handed to us in the same tick we were cancelled: pass it on.
            if self.holder == run_id and future.done() and not future.cancelled():
                self.release(run_id)
            raise

    def _forget(self, future: asyncio.Future[None]) -> None:
        self.waiters = deque(w for w in self.waiters if w[1] is not future)

    def release(self, run_id: str, *, all_of_it: bool = False) -> None:
        if self.holder != run_id:
            return
        self.depth = 0 if all_of_it else self.depth - 1
        if self.depth > 0:
            return
        self.holder = None
        while self.waiters:
            waiter, future = self.waiters.popleft()
            if future.done():
                continue
            self.holder, self.depth = waiter, 1
            future.set_result(None)
            return

    def drop_waits(self, run_id: str) -> None:
        for waiter, future in list(self.waiters):
            if waiter == run_id and not future.done():
                future.cancel()
        self.waiters = deque(w for w in self.waiters if w[0] != run_id)

    @property
    def queue(self) -> tuple[str, ...]:
        return tuple(w for w, f in self.waiters if not f.done())


@dataclass(frozen=True)
class ResourceState:
    apps: dict[str, str]  # package -> run id holding it
    clipboard: str | None
    takeover: str | None
    takeover_queue: tuple[str, ...]


class ResourceScheduler:
    CLIPBOARD = "clipboard"
    TAKEOVER = "takeover"

    def __init__(self) -> None:
        self._apps: dict[str, _Exclusive] = {}
        self._clipboard = _Exclusive(self.CLIPBOARD)
        self._takeover = _Exclusive(self.TAKEOVER)

    def _app(self, package: str) -> _Exclusive:
        return self._apps.setdefault(package, _Exclusive(f"app {package}"))

    # -- apps ---------------------------------------------------------------------------

    def app_holder(self, package: str) -> str | None:
        res = self._apps.get(package)
        return res.holder if res else None

    def claim_app(self, run_id: str, package: str) -> None:
        """Take `package` for `run_id` now, or raise `ResourceBusy` naming the holder
        (a tool tells the model another task is using that app)."""
        res = self._app(package)
        if not res.try_take(run_id):
            raise ResourceBusy(res.name, res.holder or (res.queue[0] if res.queue else "?"))

    async def acquire_app(self, run_id: str, package: str, timeout: float | None = None) -> None:
        """Wait (FIFO) until `package` is free, then take it."""
        res = self._app(package)
        if timeout is None:
            await res.take(run_id)
            return
        try:
            await asyncio.wait_for(res.take(run_id), timeout)
        except TimeoutError:
            raise ResourceBusy(res.name, res.holder or "?") from None

    def release_app(self, run_id: str, package: str) -> None:
        res = self._apps.get(package)
        if res is not None:
            res.release(run_id, all_of_it=True)

    # -- clipboard and takeover ------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def clipboard(self, run_id: str) -> AsyncIterator[None]:
        """Hold the clipboard for one set-and-paste."""
        await self._clipboard.take(run_id)
        try:
            yield
        finally:
            self._clipboard.release(run_id)

    @contextlib.asynccontextmanager
    async def takeover(self, run_id: str) -> AsyncIterator[None]:
        """The user's main screen for one takeover; other takeovers wait their turn."""
        await self._takeover.take(run_id)
        try:
            yield
        finally:
            self._takeover.release(run_id)

    # -- whole runs ---------------------------------------------------------------------------

    def release_run(self, run_id: str) -> None:
        for res in (*self._apps.values(), self._clipboard, self._takeover):
            res.drop_waits(run_id)
            res.release(run_id, all_of_it=True)

    def state(self) -> ResourceState:
        return ResourceState(
            apps={p: r.holder for p, r in self._apps.items() if r.holder},
            clipboard=self._clipboard.holder,
            takeover=self._takeover.holder,
            takeover_queue=self._takeover.queue,
        )
