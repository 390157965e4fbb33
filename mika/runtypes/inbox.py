"""`RunInbox`: everything that reaches a running loop from outside (seed §2 收件箱与插话).

Steer and Redirect are additions the loop takes before its next model call; Answer,
Confirm and HandBack resolve a question the run is waiting on; Cancel is a control
signal, never queued behind steers. `steer_signal` is set while a steer waits unread, so
waits that yield to steers (and the model request in flight) can end early.

Callers may be on another thread (the TUI's workers): every entry point takes one lock
and wakes the loop through `call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import enum
import threading
from collections.abc import Callable
from dataclasses import dataclass


class InputKind(enum.Enum):
    STEER = "steer"
    REDIRECT = "redirect"
    ANSWER = "answer"
    CONFIRM = "confirm"
    HAND_BACK = "hand_back"
    CANCEL = "cancel"


@dataclass(frozen=True)
class RunInput:
    kind: InputKind
    text: str = ""
    question_id: str = ""
    allowed: bool = False  # Confirm
    done: bool = False  # HandBack: the user finished (True) or skipped (False)


@dataclass(frozen=True)
class Reply:
    """The user's reply to a question the run asked."""

    kind: InputKind
    text: str = ""
    allowed: bool = False
    done: bool = False


class RunInbox:
    def __init__(self, on_input: Callable[[RunInput, str], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._steers: list[RunInput] = []
        self._closed = False
        self._waiting: dict[str, asyncio.Future[Reply]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self.steer_signal = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.cancel_reason = ""
        # Told of every accepted input and its state ("received", "consumed"), for events.
        self._on_input = on_input

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def _wake(self, fn: Callable[[], None]) -> None:
        loop = self._loop
        if loop is None or _running_loop() is loop:
            fn()
        else:
            loop.call_soon_threadsafe(fn)

    # -- from outside -------------------------------------------------------------

    def steer(self, text: str, kind: InputKind = InputKind.STEER) -> bool:
        """Queue a message for the loop; False when the inbox is already closed (the
        caller then makes it the conversation's next task)."""
        item = RunInput(kind, text=text)
        with self._lock:
            if self._closed:
                return False
            self._steers.append(item)
        self._wake(self.steer_signal.set)
        self._notify(item, "received")
        return True

    def reply(self, item: RunInput) -> bool:
        """Answer / Confirm / HandBack for `item.question_id`; False if nothing waits on it."""
        with self._lock:
            future = self._waiting.get(item.question_id)
        if future is None:
            return False
        reply = Reply(item.kind, text=item.text, allowed=item.allowed, done=item.done)

        def resolve() -> None:
            if not future.done():
                future.set_result(reply)

        self._wake(resolve)
        self._notify(item, "received")
        return True

    def cancel(self, reason: str = "stopped by the user") -> None:
        with self._lock:
            self.cancel_reason = self.cancel_reason or reason
            waiting = list(self._waiting.values())

        def fire() -> None:
            self.cancelled.set()
            for future in waiting:
                if not future.done():
                    future.cancel()

        self._wake(fire)

    # -- from the loop --------------------------------------------------------------

    def take_steers(self) -> list[RunInput]:
        with self._lock:
            taken, self._steers = self._steers, []
            self.steer_signal.clear()
        for item in taken:
            self._notify(item, "consumed")
        return taken

    def has_steers(self) -> bool:
        with self._lock:
            return bool(self._steers)

    def close_unless_steered(self) -> bool:
        """Look and close under one lock: True = closed (no steer waited); False = a steer
        arrived at the last moment and the loop must go on with it."""
        with self._lock:
            if self._steers:
                return False
            self._closed = True
            return True

    def close(self) -> list[RunInput]:
        """Close for good (end of run); returns steers that never reached the model."""
        with self._lock:
            self._closed = True
            left, self._steers = self._steers, []
            return left

    @property
    def closed(self) -> bool:
        with self._lock:
            return self._closed

    def expect(self, question_id: str) -> None:
        """Start waiting for `question_id` before the question is shown, so an answer
        given the instant it appears (another thread, a test) is never lost."""
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        with self._lock:
            self._waiting.setdefault(question_id, future)

    async def wait_reply(self, question_id: str) -> Reply:
        """Wait for the user's reply to `question_id`; raises CancelledError on cancel."""
        self.expect(question_id)
        with self._lock:
            future = self._waiting[question_id]
        if self.cancelled.is_set():
            future.cancel()
        try:
            return await future
        finally:
            with self._lock:
                self._waiting.pop(question_id, None)

    def waiting_on(self) -> list[str]:
        with self._lock:
            return list(self._waiting)

    def _notify(self, item: RunInput, state: str) -> None:
        if self._on_input is not None:
            self._on_input(item, state)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
