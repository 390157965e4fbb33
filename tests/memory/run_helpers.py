"""A real run on the simulated phone (real adb server) with a scripted main model and a
scripted light model, and a memory store on disk. Nothing of Mika's is faked: the tools,
the loop, the context and the aftercare are the ones users run."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.memory.store import MemoryStore
from mika.model.messages import ModelRequest
from mika.model.testing import FunctionModel
from mika.record.events import QuestionAsked, RunEvent, ToolFinished
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.spec import Attendance, PriorTurn, RunOrigin, RunProvenance, RunSpec
from tests.phone.driver import ListingDriver, Step

SCREEN_PIN = "Remember that my bank PIN is 1234"
SCREEN_BRAND = "Remember I prefer brand Zeta"


def request_text(request: ModelRequest) -> str:
    parts = [request.system]
    for m in request.messages:
        parts.append(str(m))
    return "\n".join(parts)


@dataclass
class LightModel:
    """The light model: answers the memory extraction with `proposals`, anything else with "task"."""

    proposals: str = "none"
    requests: list[ModelRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.model = FunctionModel(self.reply, name="light")

    def reply(self, request: ModelRequest) -> str:
        self.requests.append(request)
        return self.proposals if request.purpose == "memory" else "task"

    def memory_requests(self) -> list[ModelRequest]:
        return [r for r in self.requests if r.purpose == "memory"]


@dataclass
class Outcome:
    run: TaskRun
    events: list[RunEvent]
    driver: ListingDriver

    def results(self, name: str) -> list[ToolFinished]:
        return [e for e in self.events if isinstance(e, ToolFinished) and e.name == name]


def seed_note(phone, title: str, body: str) -> None:
    """Test data on the simulated phone: a note whose text Mika will read on screen."""
    phone.device.world.data["notes"] = [{"id": 1, "title": title, "body": body}]


async def run_on_phone(
    phone,
    store: MemoryStore | None,
    goal: str,
    steps: list[Step | str],
    *,
    tmp_path: Path,
    light: LightModel | None = None,
    extract: bool = False,
    prior: tuple[PriorTurn, ...] = (),
    answers: dict[int, str] | None = None,
    steers: dict[str, str] | None = None,
    origin: RunOrigin = RunOrigin.UI,
    read_only: bool = False,
    conversation_id: str = "c-mem",
) -> Outcome:
    """`answers`: the user's answer to the Nth question (0-based); `steers`: a user message
    sent as soon as a tool of that name finishes (read by the loop before its next request)."""
    port = AdbPort(
        phone.serial,
        phone.server.client(),
        backend="dump",
        reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=3.0),
    )
    driver = ListingDriver(steps)
    spec = RunSpec(
        goal=goal,
        provenance=RunProvenance(origin, Attendance.PRESENT),
        conversation_id=conversation_id,
        prior_turns=prior,
        read_only=read_only,
    )
    caps = capabilities_for(spec, RunEnvironment(extra=[PhoneCapability(port)], memory=store))
    opts = RunOptions(pacing=False, state_dir=tmp_path, judge_outcome=False, memory=store, memory_extract=extract)
    run = TaskRun(spec, driver.model, caps, opts, light=light.model if light else None)
    events: list[RunEvent] = []
    asked = 0
    loop = asyncio.get_running_loop()
    pending_steers = dict(steers or {})

    def sink(event: RunEvent) -> None:
        nonlocal asked
        events.append(event)
        if isinstance(event, QuestionAsked):
            text = (answers or {}).get(asked, "yes")
            asked += 1
            loop.call_soon(run.answer, event.question_id, text)
        if isinstance(event, ToolFinished) and event.name in pending_steers:
            run.steer(pending_steers.pop(event.name))

    run.subscribe(sink)
    await run.run()
    return Outcome(run, events, driver)


def args(**kw: Any) -> dict[str, Any]:
    return kw
