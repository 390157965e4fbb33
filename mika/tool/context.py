"""What a tool gets when it runs: the run it belongs to and the services around it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from mika.record.events import RunEvent
from mika.runtypes.spec import RunSpec
from mika.tool.race import Interrupted, race
from mika.tool.surface import NoSurface, SurfaceLayer

if TYPE_CHECKING:
    from mika.observe.evidence import EvidenceLedger
    from mika.runtypes.inbox import RunInbox


T = TypeVar("T")


class AppClaims(Protocol):
    """Parallel runs share one phone: an app is driven by one run at a time (seed §8).
    `claim` takes `package` for this run and returns None, or returns the id of the run
    that holds it (nothing is taken then)."""

    def claim(self, package: str) -> str | None: ...


class RunTools(Protocol):
    """The run's tools as a tool looks them up (mika.tool.registry.ToolRegistry). Named
    here by what is read, not imported: the registry holds tools, and a tool's
    declaration takes this context, so the two would import each other."""

    @property
    def tools(self) -> tuple[Any, ...]: ...

    def get(self, name: str) -> Any: ...


class SkippedForNewMessage(Exception):
    """A wait or pacing pause was ended by a new user message; nothing was done."""


@dataclass
class ToolContext:
    spec: RunSpec
    inbox: RunInbox
    emit: Callable[[RunEvent], None]
    evidence: EvidenceLedger
    surface: SurfaceLayer = field(default_factory=NoSurface)
    # The run's services (its ApprovalPolicy, the phone's session…), keyed by their class:
    # tools ask `ctx.service(TheClass)`, so a lookup is checked by the type checker and
    # nothing is found by a string. Built with `services_by_type`.
    services: dict[type, object] = field(default_factory=dict)
    step: int = 0
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    # Stores an image as a frame of the run record; returns the frame's file name.
    save_frame: Callable[[Any, int], str] | None = None
    # Set by the task center when runs may go in parallel; None: this run is alone.
    apps: AppClaims | None = None
    # Sub-actions of composite tools (do_steps) go back through the executor with this.
    perform: Callable[..., Awaitable[Any]] | None = None
    # The run's tools, frozen (the sandbox bridge finds the ones it may call here, by their
    # `sandbox_callable` declaration); None outside a run.
    tools: RunTools | None = None

    @property
    def run_id(self) -> str:
        return self.spec.id

    def service(self, kind: type[T]) -> T | None:
        """This run's service of that class, or None when the run has none."""
        found = self.services.get(kind)
        return found if isinstance(found, kind) else None

    async def wait_or_steer(self, seconds: float) -> None:
        """Sleep, but end early with SkippedForNewMessage when the user says something."""
        if seconds <= 0:
            return
        signal = self.inbox.steer_signal
        if signal.is_set():
            raise SkippedForNewMessage()
        try:
            await race(self.sleep(seconds), signal)
        except Interrupted:
            raise SkippedForNewMessage() from None


def services_by_type(objects: Iterable[object]) -> dict[type, object]:
    """The services of a run keyed by class; two of one class would make a lookup ambiguous."""
    out: dict[type, object] = {}
    for obj in objects:
        kind = type(obj)
        # A base class that declares itself a service protocol (`service_protocol = True`,
        # e.g. LinkReader) finds its one implementation too: the tool asking for it does
        # not know which capability brings it.
        for key in (kind, *(b for b in kind.__mro__[1:] if b.__dict__.get("service_protocol", False))):
            if key in out:
                raise ValueError(f"two services of class {key.__name__} in one run; each class may be given once")
            out[key] = obj
    return out
