"""A test-only capability: a tiny shop with a screen of text, folded into group "toy".

It is ours and real (no mocks): its tools go through the same executor, approval and
records as the phone's. The "screen" is a string the test sets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mika.observe.observation import Observation, ObsKind, Place
from mika.tool.declaration import ActionTarget, AgentTool, EntryKind, Risk, ToolOutcome


@dataclass
class ToyWorld:
    screen: str = "Home"
    taps: list[str] = field(default_factory=list)
    tap_delay: float = 0.0


class ToyOpen(AgentTool):
    name = "toy_open"
    capability = "toy"
    group = "toy"
    entry = EntryKind.OPENS
    risk = Risk.WRITE
    parameters = {"type": "object", "properties": {"page": {"type": "string"}}, "required": ["page"]}

    def __init__(self, world: ToyWorld) -> None:
        self.world = world

    @classmethod
    def description(cls) -> str:
        return "Open a page of the toy shop (full text)."

    @classmethod
    def entry_description(cls) -> str:
        return "Open the toy shop."

    async def run(self, args: dict[str, Any], ctx) -> ToolOutcome:
        self.world.screen = args["page"]
        return ToolOutcome(text=f"Opened {args['page']}", effect="place_changed")


class ToyTap(AgentTool):
    name = "toy_tap"
    capability = "toy"
    group = "toy"
    risk = Risk.WRITE
    batchable = True
    parameters = {
        "type": "object",
        "properties": {"label": {"type": "string"}, "note": {"type": "string"}},
        "required": ["label"],
    }

    def __init__(self, world: ToyWorld) -> None:
        self.world = world

    @classmethod
    def description(cls) -> str:
        return "Tap a button by its label."

    async def target(self, args: dict[str, Any], ctx) -> ActionTarget:
        return ActionTarget(
            label=args["label"],
            app="com.toy.shop",
            kind="tap",
            screen_text=self.world.screen,
            on_screen=args["label"] in self.world.screen,
        )

    async def run(self, args: dict[str, Any], ctx) -> ToolOutcome:
        if self.world.tap_delay:
            await asyncio.sleep(self.world.tap_delay)
        self.world.taps.append(args["label"])
        return ToolOutcome(text=f"Tapped {args['label']}", effect="done")


class ToyRead(AgentTool):
    name = "toy_read"
    capability = "toy"
    group = "toy"
    risk = Risk.READ
    parameters = {"type": "object", "properties": {}}

    def __init__(self, world: ToyWorld) -> None:
        self.world = world

    @classmethod
    def description(cls) -> str:
        return "Read the screen."

    async def run(self, args: dict[str, Any], ctx) -> ToolOutcome:
        obs = Observation.build(
            ObsKind.READ, "toy", self.world.screen, title="screen", place=Place.app("com.toy.shop"), step=ctx.step
        )
        return ToolOutcome(text=obs.text, observations=(obs,))


class ToyCapability:
    id = "toy"
    group = "toy"
    surface = None

    def __init__(self, world: ToyWorld | None = None) -> None:
        self.world = world or ToyWorld()

    def tools(self):
        return [ToyOpen(self.world), ToyTap(self.world), ToyRead(self.world)]

    def prompt_section(self) -> str | None:
        return "The toy shop sells toys."

    def services(self) -> Sequence[object]:
        return (self.world,)

    async def close(self) -> None:
        return None
