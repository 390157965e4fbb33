"""Displays, tasks and their back stacks."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

_ids = itertools.count(100)


@dataclass
class Activity:
    """One screen of an app on a back stack, with what the user did on it so far."""

    package: str
    screen: str
    params: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, Any] = field(default_factory=dict)
    scroll: dict[str, int] = field(default_factory=dict)
    # A list that loads more at its end (`page` in its spec): how many items it shows now,
    # and when the page it is loading arrives (set once its "Loading more" footer is seen).
    shown: dict[str, int] = field(default_factory=dict)
    more_at: dict[str, float] = field(default_factory=dict)
    focus: str | None = None  # the field that has input focus
    focus_node: str | None = None  # the other view DPAD/TAB focus is on (mika/sim/apps/focus.py)
    loading_until: float = 0.0
    dialog: dict[str, Any] | None = None  # the app's own dialog over this screen
    popup: dict[str, Any] | None = None  # the floating text toolbar (Copy / Paste) after a long press
    # A screen that changes by itself (its spec's "after"): how often it was dumped while on
    # top, when its countdown started, and whether it already ran.
    dumps: int = 0
    after_from: float | None = None
    after_done: bool = False
    token: str = field(default_factory=lambda: f"{next(_ids) * 7919 % 0xFFFFFFF:07x}")


@dataclass
class Task:
    package: str
    stack: list[Activity]
    id: int = field(default_factory=lambda: next(_ids))

    @property
    def top(self) -> Activity:
        return self.stack[-1]


@dataclass
class Display:
    id: int
    width: int
    height: int
    density: int
    name: str = "Built-in Screen"
    # Who made it: "" for the built-in screen; a virtual display names its owner's package
    # (scrcpy's is com.android.shell) as `dumpsys display` does.
    owner: str = ""
    # What happens to its tasks when it is removed: False moves them to display 0, as a
    # virtual display created without DESTROY_CONTENT_ON_REMOVAL does.
    destroy_content: bool = True
    override_size: tuple[int, int] | None = None
    # The framework may power a virtual display off on its own (Android 16 was seen doing
    # it to an idle scrcpy display): its pictures are black and `dumpsys display` says
    # state OFF until it is powered on again. The built-in screen follows `screen_on`.
    powered: bool = True
    override_density: int | None = None
    tasks: list[Task] = field(default_factory=list)  # bottom … top
    # Surface.ROTATION_0…270 as 0–3 (mika/sim/world/rotation.py). Apps, touches and
    # pictures see the rotated size; `wm size` and the panel's own info the natural one.
    rotation: int = 0

    @property
    def size(self) -> tuple[int, int]:
        w, h = self.override_size or (self.width, self.height)
        return (h, w) if self.rotation % 2 else (w, h)

    def lit(self, screen_on: bool) -> bool:
        """Whether it shows a picture: the phone's screen is on and the display is powered."""
        return screen_on and self.powered

    @property
    def state(self) -> str:
        """Its power state as `dumpsys display` prints it for a virtual display."""
        return "ON" if self.powered else "OFF"

    @property
    def top_task(self) -> Task | None:
        return self.tasks[-1] if self.tasks else None

    def task_for(self, package: str) -> Task | None:
        for task in self.tasks:
            if task.package == package:
                return task
        return None
