"""Waiting, in code, until the screen shows what a step expects (seed §3 `UntilWait`).

Shared by phone and web: it only needs a way to read the current `Screen`. It polls
that reader until the condition holds, and gives up early — saying why — when:

* a new user message arrives (`new_message` event set)  → stopped="new_message"
* a dialog appears that was not there at the start      → stopped="dialog"
* the foreground app changes (and `expect_app` isn't it) → stopped="app_changed"
* the time is up                                         → stopped="timeout"

Clock and sleep are injected so tests run in no time and a port can substitute a
"wake on change" sleep (accessibility events, DOM mutations) for the fixed poll.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from mika.uistate.screen import Screen

DEFAULT_TIMEOUT_S = 8.0
MAX_TIMEOUT_S = 20.0
POLL_S = 0.3
STABLE_READS = 2  # this many equal reads in a row count as "stable"


class WaitSpecError(ValueError):
    def __init__(self, detail: str) -> None:
        super().__init__(f"Invalid wait condition: {detail}.")


@dataclass(frozen=True)
class WaitResult:
    met: bool
    stopped: str | None  # None when met; else new_message | timeout | dialog | app_changed
    waited_ms: int
    screen: Screen | None = None  # the last screen read

    def as_dict(self) -> dict[str, object]:
        return {"met": self.met, "stopped": self.stopped, "waited_ms": self.waited_ms}


def _has_text(screen: Screen, wanted: str) -> bool:
    w = wanted.casefold()
    return any(w in t.casefold() for t in screen.texts())


@dataclass(frozen=True)
class UntilWait:
    expect: str | None = None
    expect_gone: str | None = None
    expect_app: str | None = None
    wait_stable: bool = False
    timeout_s: float = DEFAULT_TIMEOUT_S
    poll_s: float = POLL_S

    def __post_init__(self) -> None:
        if not isinstance(self.timeout_s, (int, float)) or self.timeout_s != self.timeout_s or self.timeout_s <= 0:
            raise WaitSpecError(f"timeout_s must be a positive number of seconds, got {self.timeout_s!r}")
        if self.timeout_s > MAX_TIMEOUT_S:
            # The seed caps a wait at 20 s; a longer ask is clamped, not refused.
            object.__setattr__(self, "timeout_s", MAX_TIMEOUT_S)
        for name in ("expect", "expect_gone", "expect_app"):
            value = getattr(self, name)
            if value is not None and not str(value).strip():
                raise WaitSpecError(f"{name} is empty")
        if not self.has_condition:
            raise WaitSpecError("give expect, expect_gone, expect_app or wait_stable")

    @property
    def has_condition(self) -> bool:
        return bool(self.expect or self.expect_gone or self.expect_app or self.wait_stable)

    def holds(self, screen: Screen, stable: bool) -> bool:
        if self.expect and not _has_text(screen, self.expect):
            return False
        if self.expect_gone and _has_text(screen, self.expect_gone):
            return False
        if self.expect_app and not _app_matches(screen, self.expect_app):
            return False
        return stable or not self.wait_stable

    async def run(
        self,
        read: Callable[[], Awaitable[Screen]],
        new_message: asyncio.Event | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> WaitResult:
        start = clock()
        deadline = start + self.timeout_s

        def waited() -> int:
            return round((clock() - start) * 1000)

        first: Screen | None = None
        last: Screen | None = None
        last_key: str | None = None
        equal_reads = 0
        while True:
            if new_message is not None and new_message.is_set():
                return WaitResult(False, "new_message", waited(), last)
            screen = await read()
            key = screen.content_key()
            equal_reads = equal_reads + 1 if key == last_key else 1
            last_key, last = key, screen
            if first is None:
                first = screen
            if self.holds(screen, equal_reads >= STABLE_READS):
                return WaitResult(True, None, waited(), screen)
            if screen.has_dialog and not first.has_dialog:
                return WaitResult(False, "dialog", waited(), screen)
            if screen.foreground_package != first.foreground_package and not self.expect_app:
                return WaitResult(False, "app_changed", waited(), screen)
            if new_message is not None and new_message.is_set():
                return WaitResult(False, "new_message", waited(), screen)
            remaining = deadline - clock()
            if remaining <= 0:
                return WaitResult(False, "timeout", waited(), screen)
            pause = min(self.poll_s, remaining)
            if new_message is None:
                await sleep(pause)
            else:
                await _sleep_or_message(sleep, pause, new_message)


def _app_matches(screen: Screen, wanted: str) -> bool:
    w = wanted.strip()
    return screen.foreground_package == w or (bool(screen.activity) and w in screen.activity)


async def _sleep_or_message(sleep: Callable[[float], Awaitable[object]], seconds: float, event: asyncio.Event) -> None:
    """Sleep, but wake at once when a new user message arrives."""
    sleeper = asyncio.ensure_future(sleep(seconds))
    waiter = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait({sleeper, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sleeper, waiter):
            if not task.done():
                task.cancel()
        await asyncio.gather(sleeper, waiter, return_exceptions=True)


# ---------------------------------------------------------------- settling after an action

SETTLE_POLL_S = 0.04  # between reads while the screen has not shown the action's effect yet
QUIET_S = 0.25  # an unchanged screen is only called "no effect" after this long unchanged


@dataclass(frozen=True)
class Settled:
    screen: Screen
    reads: int
    waited_ms: int
    # changed: the effect was seen on an idle dump · stable: two equal reads · unchanged: the
    # screen stayed as before for the quiet window · cap: still changing when the cap was reached
    why: str


async def settle(
    read: Callable[[], Awaitable[Screen]],
    before: Screen | None,
    *,
    cap_s: float,
    poll_s: float = SETTLE_POLL_S,
    quiet_s: float = QUIET_S,
    idle_dumps: bool = True,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    first: Screen | None = None,
) -> Settled:
    """Read until the screen after an action can be judged, on evidence rather than a fixed wait.

    * The first read that differs from `before` ends the wait when `idle_dumps`: the dump
      itself waited for the UI to be idle (uiautomator's dump and uiautomator2's
      dumpWindowHierarchy both wait for UiAutomation idle and fail with "could not get idle
      state" otherwise), so a second equal read would prove nothing more.
    * Without that evidence (`idle_dumps=False`, the paced runs) a changed screen needs two
      equal reads in a row, `poll_s` apart.
    * A screen still equal to `before` is polled every `poll_s` and called unchanged only
      after `quiet_s`: an app that answers late is still seen, and "no effect" is said no
      sooner than before.
    * Never longer than `cap_s` (an animated screen that never stops changing).
    * `first`: a read the tool itself made after its last input (phone_type_text reads
      the field back) is the first read here too: it is the same evidence, read already.
    """
    start = clock()
    deadline = start + cap_s
    before_key = before.content_key() if before is not None else None
    reads = 0
    last_key: str | None = None
    unchanged_since: float | None = start  # the action ended at `start`

    def done(screen: Screen, why: str) -> Settled:
        return Settled(screen, reads, round((clock() - start) * 1000), why)

    pending = first
    while True:
        if pending is not None:
            screen, pending = pending, None
        else:
            screen = await read()
        reads += 1
        key = screen.content_key()
        now = clock()
        if key != before_key:
            unchanged_since = None
            if idle_dumps:
                return done(screen, "changed")
            if key == last_key:
                return done(screen, "stable")
        else:
            if unchanged_since is None:
                unchanged_since = now
            if now - unchanged_since >= quiet_s:
                return done(screen, "unchanged")
        last_key = key
        remaining = deadline - now
        if remaining <= 0:
            return done(screen, "cap")
        await sleep(min(poll_s, remaining))
