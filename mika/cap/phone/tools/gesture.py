"""phone_gesture: a one-finger path, or two fingers pinching or twisting about a centre.

Every finger's points go to the port's timed stroke (`AndroidPort.stroke`): on the agent's
display each point at its time; two fingers need that display. Pacing (seed 手势的节奏): a
two-point path is a paced swipe (arc, easing, ±8 %); a longer path is drawn as given,
only its duration varies; two fingers vary only their duration.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from mika.cap.phone.tools.base import (
    ELEMENT_OR_POINT,
    PhoneTool,
    current_screen,
    point_of,
    quoted,
    stale_outcome,
    target_for,
)
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import StaleElement, UnknownElement

PATH_POINTS_MAX = 50
DURATION_MIN_MS, DURATION_MAX_MS = 50, 5000
SCALE_MIN, SCALE_MAX = 1.1, 5.0
NEAR_SPAN_PX = 160  # the fingers' distance at the small end of a pinch, and while twisting
TWIST_SPAN_PX = 300
STEP_MS = 16  # one point per frame


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadArguments(f"phone_gesture: `{field}` must be a whole number, got {value!r}.")
    return int(value)


def _path(raw: Any) -> list[tuple[int, int]]:
    if not isinstance(raw, list) or not 2 <= len(raw) <= PATH_POINTS_MAX:
        raise BadArguments(
            f"phone_gesture: `path` must be a list of 2 to {PATH_POINTS_MAX} points [x, y], e.g. "
            "[[200, 1500], [800, 1500]]."
        )
    points = []
    for i, p in enumerate(raw):
        if not isinstance(p, list | tuple) or len(p) != 2:
            raise BadArguments(f"phone_gesture: `path[{i}]` must be a point [x, y], got {p!r}.")
        x, y = _int(p[0], f"path[{i}][0]"), _int(p[1], f"path[{i}][1]")
        if x < 0 or y < 0:
            raise BadArguments(f"phone_gesture: `path[{i}]` ({x}, {y}) is off the screen; use screen pixels.")
        points.append((x, y))
    return points


def _duration(args: dict[str, Any], default: int) -> int:
    raw = args.get("duration_ms")
    if raw is None:
        return default
    ms = _int(raw, "duration_ms")
    if not DURATION_MIN_MS <= ms <= DURATION_MAX_MS:
        raise BadArguments(f"phone_gesture: `duration_ms` must be {DURATION_MIN_MS} to {DURATION_MAX_MS}, got {ms}.")
    return ms


def _which(args: dict[str, Any]) -> str:
    given = [k for k in ("path", "pinch", "rotate") if args.get(k) is not None]
    if len(given) != 1:
        named = ", ".join(f"`{k}`" for k in given) or "none"
        raise BadArguments(f"phone_gesture: give exactly one of `path`, `pinch` or `rotate` (got {named}).")
    return given[0]


def _timed(points: list[tuple[int, int]], ms: int) -> list[tuple[int, int, int]]:
    """A drawn path's points, each at its share of the distance (even speed)."""
    legs = [math.dist(a, b) for a, b in itertools.pairwise(points)]
    total = sum(legs) or 1.0
    out, run = [(0, *points[0])], 0.0
    for leg, p in zip(legs, points[1:], strict=True):
        run += leg
        out.append((round(ms * run / total), *p))
    return _dense(out)


def _dense(timed: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Moves in between a frame apart: a finger reports where it is every frame, and the
    phone reads a fling's speed from them, so a leg is never one jump."""
    out = [timed[0]]
    for (t0, x0, y0), (t1, x1, y1) in itertools.pairwise(timed):
        n = max(1, (t1 - t0) // STEP_MS)
        for i in range(1, n):
            out.append((t0 + (t1 - t0) * i // n, round(x0 + (x1 - x0) * i / n), round(y0 + (y1 - y0) * i / n)))
        out.append((t1, x1, y1))
    return out


def _two_fingers(
    centre: tuple[int, int], span0: float, span1: float, turn_deg: float, ms: int
) -> list[list[tuple[int, int, int]]]:
    """Two fingers opposite each other about the centre: their distance goes from span0 to
    span1 while the line between them turns by turn_deg (clockwise on the screen)."""
    cx, cy = centre
    steps = max(4, min(60, ms // STEP_MS))
    fingers: list[list[tuple[int, int, int]]] = [[], []]
    for i in range(steps + 1):
        u = i / steps
        s = u * u * (3 - 2 * u)  # eased: starts and ends slowly, like fingers
        half = (span0 + (span1 - span0) * s) / 2
        angle = math.radians(turn_deg * s)
        dx, dy = half * math.cos(angle), half * math.sin(angle)
        t = round(ms * u)
        fingers[0].append((t, round(cx - dx), round(cy - dy)))
        fingers[1].append((t, round(cx + dx), round(cy + dy)))
    return fingers


class PhoneGesture(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    page_capped = True  # stopped by a careful app's screen cap (mika.action.pace)
    name = "phone_gesture"
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "path": {
                "type": "array",
                "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
                "description": "One finger along these points [[x, y], …] (2 to 50), e.g. a pattern unlock or a drag.",
            },
            "pinch": {
                "type": "string",
                "enum": ["in", "out"],
                "description": "Two fingers: out zooms in, in zooms out.",
            },
            "scale": {"type": "number", "description": "How far a pinch goes: 1.1 to 5 (default 2)."},
            "rotate": {"type": "integer", "description": "Two fingers twist by this many degrees (clockwise > 0)."},
            **ELEMENT_OR_POINT,
            "duration_ms": {"type": "integer", "description": "Duration; default 300 for a path, 500 for two fingers."},
        },
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget | None:
        # For pacing: where the fingers come down. Every finger is judged by the gated port
        # as the stroke is sent (a path that stays put on Pay is a tap on Pay).
        try:
            if _which(args) == "path":
                x0, y0 = _path(args["path"])[0]
                return await target_for({"x": x0, "y": y0}, self.session(ctx), "gesture")
        except BadArguments:
            return None  # run() says what is wrong
        return await target_for(args, self.session(ctx), "gesture")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        g = session.gestures
        kind = _which(args)
        if kind == "path":
            points = _path(args["path"])
            ms = _duration(args, 300)
            if len(points) == 2:
                (x1, y1), (x2, y2) = points
                timed = _dense(g.swipe(x1, y1, x2, y2, ms))
            else:
                # A drawn path is followed as drawn; only its duration varies.
                timed = _timed(points, g.pinch_ms(ms))
            await ctx.sleep(g.pre_touch_ms() / 1000)
            way = await session.port.stroke(session.display, [timed])
            text = (
                f"Drew a {len(points)}-point path from {points[0][0]},{points[0][1]} to {points[-1][0]},{points[-1][1]}"
            )
            return ToolOutcome(text=f"{text} in {ms} ms.", data={"way": way, "points": len(timed)})
        try:
            x, y, el = await point_of(args, session, self.name)
        except (StaleElement, UnknownElement) as exc:
            return stale_outcome(exc, session)
        except BadArguments:
            raise BadArguments(
                f"phone_gesture: `{kind}` needs a centre: `element` (a number from the listing) or `x` and `y`."
            ) from None
        ms = _duration(args, 500)
        if kind == "pinch":
            direction = args["pinch"]
            if direction not in ("in", "out"):
                raise BadArguments(f'phone_gesture: `pinch` must be "in" or "out", got {direction!r}.')
            raw_scale = args.get("scale", 2.0)
            if isinstance(raw_scale, bool) or not isinstance(raw_scale, int | float) or not math.isfinite(raw_scale):
                raise BadArguments(f"phone_gesture: `scale` must be a number from {SCALE_MIN} to {SCALE_MAX}.")
            scale = float(raw_scale)
            if not SCALE_MIN <= scale <= SCALE_MAX:
                raise BadArguments(f"phone_gesture: `scale` must be {SCALE_MIN} to {SCALE_MAX}, got {scale:g}.")
            near, far = NEAR_SPAN_PX, NEAR_SPAN_PX * scale
            span0, span1 = (near, far) if direction == "out" else (far, near)
            fingers = _two_fingers((x, y), span0, span1, 0.0, g.pinch_ms(ms))
            what = f"Pinched {direction} ×{scale:g}"
        else:
            angle = _int(args["rotate"], "rotate")
            if not 5 <= abs(angle) <= 180:
                raise BadArguments(f"phone_gesture: `rotate` must be 5 to 180 degrees either way, got {angle}.")
            fingers = _two_fingers((x, y), TWIST_SPAN_PX, TWIST_SPAN_PX, float(angle), g.pinch_ms(ms))
            what = f"Rotated {angle}°"
        screen = await current_screen(session)
        if screen.size:
            w, h = screen.size
            off = [(px, py) for f in fingers for _, px, py in f if not (0 <= px < w and 0 <= py < h)]
            if off:
                raise BadArguments(
                    f"phone_gesture: around {x},{y} the fingers would leave the {w}x{h} screen at "
                    f"{off[0][0]},{off[0][1]}; use a smaller `scale` or a centre nearer the middle."
                )
        await ctx.sleep(g.pre_touch_ms() / 1000)
        way = await session.port.stroke(session.display, fingers)
        where = quoted(el.label, el.package) if el is not None and el.label else f"{x},{y}"
        return ToolOutcome(text=f"{what} about {where} in {ms} ms.", data={"way": way})
