"""Several screens in one run (issue 15): the phone's surface and another capability's
are joined, and each call reaches only its own.

The phone side is the real PhoneCapability on the simulated phone through a real adb
server. The other side is a small capability written for this test (a "pad" with a
screen of text and a surface of its own that logs what reaches it) — ours and real,
driven through the same executor and dispatcher as the phone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.runtypes.result import OutcomeStatus
from mika.tool.declaration import ActionTarget, AgentTool, Risk, ToolOutcome
from mika.tool.surface import JoinedSurface, NoSurface, join_surfaces
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record, results_of


@pytest.fixture
def phone_cap(sim_phone):
    return PhoneCapability(AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump"))


@dataclass
class PadSurface:
    """The pad's layer: logs every call it is handed and marks its outcomes."""

    calls: list[tuple[str, str, str]] = field(default_factory=list)
    forgotten: int = 0

    async def before(self, capability: str, tool: str, args: dict[str, Any]) -> Any:
        self.calls.append(("before", capability, tool))
        return f"token-{tool}"

    async def after(self, capability: str, tool: str, args, token, outcome: ToolOutcome) -> ToolOutcome:
        self.calls.append(("after", capability, tool))
        assert token == f"token-{tool}"  # its own token came back, not the phone's
        return replace(outcome, text=outcome.text + "\n[pad screen: Notes]")

    async def is_locked(self, capability: str) -> bool:
        self.calls.append(("is_locked", capability, ""))
        return False

    def user_had_device(self) -> None:
        self.forgotten += 1


class PadWrite(AgentTool):
    name = "pad_write"
    capability = "pad"
    group = "pad"
    risk = Risk.WRITE
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    @classmethod
    def description(cls) -> str:
        return "Write a line on the pad."

    async def target(self, args: dict[str, Any], ctx) -> ActionTarget:
        return ActionTarget(label="write", app="pad", kind="type", screen_text="\n".join(self.lines))

    async def run(self, args: dict[str, Any], ctx) -> ToolOutcome:
        self.lines.append(args["text"])
        return ToolOutcome(text=f"Wrote {args['text']!r}.")


class PadCapability:
    id = "pad"
    group = "pad"

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.surface = PadSurface()

    def tools(self) -> Sequence[AgentTool]:
        return [PadWrite(self.lines)]

    def prompt_section(self) -> str | None:
        return None

    def services(self) -> Sequence[object]:
        return ()

    async def close(self) -> None:
        return None


def test_one_layer_is_used_as_it_is_and_none_gives_none():
    pad = PadSurface()
    assert join_surfaces({}) is None
    assert join_surfaces({"pad": pad}) is pad
    joined = join_surfaces({"pad": pad, "other": NoSurface()})
    assert isinstance(joined, JoinedSurface)


async def test_a_capability_without_a_layer_passes_through_untouched():
    pad = PadSurface()
    joined = JoinedSurface({"pad": pad})
    out = ToolOutcome(text="general")
    assert await joined.before("general", "wait", {}) is None
    assert await joined.after("general", "wait", {}, None, out) is out
    assert await joined.is_locked("general") is False
    assert pad.calls == []


async def test_each_call_of_a_run_reaches_only_its_own_surface(tmp_path, sim_phone, phone_cap):
    pad = PadCapability()
    driver = ListingDriver(
        [
            step("phone_launch_app", app="时钟"),
            step("pad_write", text="buy milk"),
            step("phone_tap", pick="Timer", role="button"),
            "Done.",
        ]
    )
    run = make_run(tmp_path, phone_cap, driver)
    run.capabilities.append(pad)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer

    # The pad's layer saw its one call (lock check, before, after) and nothing of the phone's.
    assert pad.surface.calls == [
        ("is_locked", "pad", ""),
        ("before", "pad", "pad_write"),
        ("after", "pad", "pad_write"),
    ]
    assert pad.lines == ["buy milk"]
    launch, write, tap = driver.results[0], driver.results[1], driver.results[2]
    # The pad's result carries the pad's screen and no phone listing; the phone's results
    # carry the phone's effect and listing and never the pad's mark.
    assert "[pad screen: Notes]" in write and "Screen v" not in write
    assert "Effect: " in tap and "Screen v" in tap
    assert "[pad screen" not in launch and "[pad screen" not in tap
    events = record(run)
    assert results_of(events, "phone_tap")[0]["effect"] in ("done", "place_changed")


async def test_a_person_having_had_the_device_reaches_every_layer(sim_phone, phone_cap):
    pad = PadSurface()
    phone = phone_cap.surface
    await phone_cap.session.reader.read()
    assert phone_cap.session.reader.current is not None
    JoinedSurface({"phone": phone, "pad": pad}).user_had_device()
    assert pad.forgotten == 1
    # The phone forgot its screen too: nothing read before the person is trusted.
    assert phone_cap.session.reader.current is None
