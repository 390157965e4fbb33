"""The built-in screen's rotation, as the window manager sets it from two settings.

With auto-rotate off (system `accelerometer_rotation` 0) the screen takes the rotation
`user_rotation` names (0–3, Surface.ROTATION_0…270); that is also what freezing a rotation
writes (UiAutomation.setRotation / UiDevice.setOrientation…, `wm user-rotation lock`).
With auto-rotate on it follows the sensor, and the simulated phone is always held upright.
"""

from __future__ import annotations

from typing import Protocol

from mika.sim.world.display import Display


class World(Protocol):
    """What of the world a rotation reads and sets (world.py imports this module, so the
    world is named by its shape here rather than imported)."""

    extra_settings: dict[str, dict[str, str]]
    displays: dict[int, Display]

    def changed(self) -> None: ...


def follow_settings(world: World) -> None:
    """Give display 0 the rotation its settings mean now (after one of them changed)."""
    system = world.extra_settings["system"]
    user = system.get("user_rotation", "0")
    wanted = int(user) % 4 if system.get("accelerometer_rotation", "0") == "0" and user.isdigit() else 0
    display = world.displays[0]
    if display.rotation != wanted:
        display.rotation = wanted
        world.changed()


def freeze(world: World, rotation: int | None = None) -> None:
    """Lock the screen at `rotation` (None: where it is now), auto-rotate off."""
    system = world.extra_settings["system"]
    current = world.displays[0].rotation if rotation is None else rotation % 4
    system["user_rotation"] = str(current)
    system["accelerometer_rotation"] = "0"
    follow_settings(world)


def thaw(world: World) -> None:
    """Auto-rotate on again: the upright phone goes back to its natural rotation."""
    world.extra_settings["system"]["accelerometer_rotation"] = "1"
    follow_settings(world)
