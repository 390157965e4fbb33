"""Two-finger gestures on the simulated phone: a pinch zooms, a twist rotates.

A screen takes them by naming world-data paths in its spec:
`"gestures": {"zoom": "photo.zoom", "rotation": "photo.rotation"}` (zoom in percent,
rotation in degrees, 0–359). Screens without it ignore two fingers, as most apps do.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mika.sim.world.world import World

ZOOM_MIN, ZOOM_MAX = 25, 800  # percent
# Below these a two-finger touch is a wobble, not a gesture (a real recogniser's slop).
SCALE_SLOP = 0.05
ANGLE_SLOP = 5.0


def _get(data: dict[str, Any], path: str, default: float) -> float:
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return float(node) if isinstance(node, int | float) else default


def _put(data: dict[str, Any], path: str, value: int) -> None:
    *parents, last = path.split(".")
    node = data
    for part in parents:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[last] = value


def two_fingers(
    world: World,
    display_id: int,
    start: tuple[tuple[int, int], tuple[int, int]],
    end: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    """Two fingers moved from `start` to `end`: the top screen's zoom grows by the ratio of
    their distances, its rotation by the change of the line between them."""
    activity = world.top_activity(display_id)
    if activity is None or not world.screen_on or world.locked:
        return
    spec = world.apps[activity.package].screens[activity.screen].spec
    wants = spec.get("gestures") or {}
    (a0, b0), (a1, b1) = start, end
    d0 = math.dist(a0, b0)
    d1 = math.dist(a1, b1)
    changed = False
    if "zoom" in wants and d0 > 0:
        ratio = d1 / d0
        if abs(ratio - 1) >= SCALE_SLOP:
            zoom = _get(world.data, wants["zoom"], 100) * ratio
            _put(world.data, wants["zoom"], round(min(ZOOM_MAX, max(ZOOM_MIN, zoom))))
            changed = True
    if "rotation" in wants and d0 > 0 and d1 > 0:
        turn = math.degrees(math.atan2(b1[1] - a1[1], b1[0] - a1[0]) - math.atan2(b0[1] - a0[1], b0[0] - a0[0]))
        turn = (turn + 180) % 360 - 180  # the short way round
        if abs(turn) >= ANGLE_SLOP:
            _put(world.data, wants["rotation"], round(_get(world.data, wants["rotation"], 0) + turn) % 360)
            changed = True
    if changed:
        world.changed()
