"""A test capability shaped like the phone: screen-sized reads, taps, a screenshot.

Its group is "phone" so it unfolds with "screens" like the real one, and its reads are
screen observations (place = app, title = "screen") of a realistic size: a numbered
listing of ~40 elements, ~2 KB, as uistate writes them. The real phone capability is
built concurrently; this one is ours and real (it goes through the same executor,
approval and records), only its "device" is a list of screens in memory.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image as PILImage

from mika.model.messages import Image
from mika.observe.observation import Observation, ObsKind, Place
from mika.tool.declaration import ActionTarget, AgentTool, EntryKind, Risk, ToolOutcome

APP = "com.example.shop"


def screen_listing(name: str, version: int, lines: int = 40) -> str:
    """A compact element listing like uistate's: number, role, text, flags."""
    seed = int(hashlib.sha1(f"{name}:{version}".encode()).hexdigest()[:8], 16)
    out = [f"Screen {name} (v{version}) · {APP}"]
    for i in range(1, lines + 1):
        price = (seed >> (i % 16)) % 900 + 100
        out.append(f'[{i}] button "{name} item {i} · ¥{price / 10:.1f}" clickable')
    return "\n".join(out)


def tiny_png(tag: str) -> bytes:
    img = PILImage.new("RGB", (36, 80), (hash(tag) & 255, 120, 200))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


@dataclass
class PhoneishWorld:
    screen: str = "Home"
    version: int = 0
    lines: int = 40
    taps: list[str] = field(default_factory=list)
    # Taps on these labels change nothing (to drive the guards).
    dead: set[str] = field(default_factory=set)
    fail: bool = False
    # label -> words the user types while that tap runs (a steer mid-step).
    say_during: dict[str, str] = field(default_factory=dict)

    def listing(self) -> str:
        return screen_listing(self.screen, self.version, self.lines)


class _Base(AgentTool):
    capability = "phoneish"
    group = "phone"

    def __init__(self, world: PhoneishWorld) -> None:
        self.world = world


class SimLaunch(_Base):
    name = "sim_launch"
    entry = EntryKind.OPENS
    risk = Risk.WRITE
    parameters = {"type": "object", "properties": {"app": {"type": "string"}}, "required": ["app"]}

    @classmethod
    def description(cls) -> str:
        return "Open an app on the test phone by name and show its first screen."

    @classmethod
    def entry_description(cls) -> str:
        return "Open an app on the test phone."

    async def run(self, args: dict[str, Any], ctx) -> ToolOutcome:
        self.world.screen, self.world.version = str(args["app"]), self.world.version + 1
        return ToolOutcome(text=f"Opened {args['app']}.", effect="place_changed")


class SimTap(_Base):
    name = "sim_tap"
    risk = Risk.WRITE
    batchable = True
    parameters = {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]}

    @classmethod
    def description(cls) -> str:
        return "Tap an element of the current screen by its label."

    async def target(self, args: dict[str, Any], ctx) -> ActionTarget:
        return ActionTarget(label=args["label"], app=APP, kind="tap", screen_text="")

    async def run(self, args: dict[str, Any], ctx) -> ToolOutcome:
        label = str(args["label"])
        if self.world.fail:
            return ToolOutcome.error("tap_failed", f"Could not tap {label}.")
        self.world.taps.append(label)
        if label in self.world.say_during:
            ctx.inbox.steer(self.world.say_during[label])
        if label in self.world.dead:
            return ToolOutcome(text=f"Tapped {label}; nothing changed.", effect="no_effect")
        self.world.screen, self.world.version = label, self.world.version + 1
        return ToolOutcome(text=f"Tapped {label}.", effect="place_changed")


class SimSend(_Base):
    name = "sim_send"
    risk = Risk.EXTERNAL
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

    @classmethod
    def description(cls) -> str:
        return "Send a chat message in the open conversation."

    async def target(self, args: dict[str, Any], ctx) -> ActionTarget:
        return ActionTarget(label="Send", app=APP, kind="tap", screen_text="Chat · Send")

    async def run(self, args: dict[str, Any], ctx) -> ToolOutcome:
        self.world.taps.append("send:" + str(args["text"]))
        return ToolOutcome(text=f"Sent: {args['text']}", effect="done")


class SimRead(_Base):
    name = "sim_read"
    risk = Risk.READ
    parameters = {"type": "object", "properties": {"shot": {"type": "boolean"}, "part": {"type": "string"}}}

    @classmethod
    def description(cls) -> str:
        return "Read the current screen as a numbered listing; shot=true adds a screenshot."

    async def run(self, args: dict[str, Any], ctx) -> ToolOutcome:
        obs = Observation.build(
            ObsKind.READ, "phoneish", self.world.listing(), title="screen", place=Place.app(APP), step=ctx.step
        )
        image = Image(tiny_png(f"{self.world.screen}{self.world.version}"), ref=obs.id) if args.get("shot") else None
        return ToolOutcome(text=obs.text, observations=(obs,), image=image)


class SimPage(_Base):
    name = "sim_page"
    risk = Risk.READ
    parameters = {"type": "object", "properties": {"size": {"type": "integer"}}}

    @classmethod
    def description(cls) -> str:
        return "Read a long help page of the app as text."

    async def run(self, args: dict[str, Any], ctx) -> ToolOutcome:
        size = int(args.get("size") or 6000)
        body = ("Help text about orders, refunds and delivery. " * (size // 46 + 1))[:size]
        obs = Observation.build(
            ObsKind.READ, "phoneish", body, title="help page", place=Place.page("https://help.example/x"), step=ctx.step
        )
        return ToolOutcome(text=obs.text, observations=(obs,))


class PhoneishCapability:
    id = "phoneish"
    group = "phone"
    surface = None

    def __init__(self, world: PhoneishWorld | None = None) -> None:
        self.world = world or PhoneishWorld()

    def tools(self):
        return [
            SimLaunch(self.world),
            SimTap(self.world),
            SimSend(self.world),
            SimRead(self.world),
            SimPage(self.world),
        ]

    def prompt_section(self) -> str | None:
        return "The test phone runs one shop app. Read a screen before you act on it."

    def services(self) -> Sequence[object]:
        return (self.world,)

    async def close(self) -> None:
        return None
