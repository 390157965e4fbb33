"""What a tool gets when it runs: the run it belongs to and the services around it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mika.record.events import RunEvent
from mika.run.spec import RunSpec
from mika.tool.surface import NoSurface, SurfaceLayer

if TYPE_CHECKING:
    from mika.observe.evidence import EvidenceLedger
    from mika.run.inbox import RunInbox


class SkippedForNewMessage(Exception):
    """A wait or pacing pause was ended by a new user message; nothing was done."""


@dataclass
class ToolContext:
    spec: RunSpec
    inbox: RunInbox
    emit: Callable[[RunEvent], None]
    evidence: EvidenceLedger
    surface: SurfaceLayer = field(default_factory=NoSurface)
    # Per-capability services (the phone's port, the web page…), keyed by capability id.
    services: dict[str, Any] = field(default_factory=dict)
    step: int = 0
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    # Stores an image as a frame of the run record; returns the frame's file name.
    save_frame: Callable[[Any, int], str] | None = None
    # Sub-actions of composite tools (do_steps) go back through the executor with this.
    perform: Callable[..., Awaitable[Any]] | None = None

    @property
    def run_id(self) -> str:
        return self.spec.id

    async def wait_or_steer(self, seconds: float) -> None:
        """Sleep, but end early with SkippedForNewMessage when the user says something."""
        if seconds <= 0:
            return
        signal = self.inbox.steer_signal
        if signal.is_set():
            raise SkippedForNewMessage()
        waiter = asyncio.ensure_future(signal.wait())
        sleeper = asyncio.ensure_future(self.sleep(seconds))
        try:
            done, _ = await asyncio.wait({waiter, sleeper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (waiter, sleeper):
                if not task.done():
                    task.cancel()
        if waiter in done and signal.is_set():
            raise SkippedForNewMessage()
