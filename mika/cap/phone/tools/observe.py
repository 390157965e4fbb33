"""Reading the phone: phone_observe, phone_list_elements, phone_query, phone_screenshot."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from mika.cap.phone.fenced import listing_observation, screen_observation
from mika.cap.phone.model_picture import for_model
from mika.cap.phone.picture import Picture
from mika.cap.phone.screenshot import ScreenshotError, SecureScreen
from mika.cap.phone.tools.base import PhoneTool
from mika.observe.observation import Observation, ObsKind
from mika.resources import prompt
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome
from mika.uistate import QueryError, Screen, find_nodes


def app_window_black(picture: Picture, screen: Screen) -> bool:
    """A secure window (FLAG_SECURE) comes out black while the status bar around it does
    not; the whole-picture check misses that, so look at the app's window alone."""
    apps = [w for w in screen.windows if w.kind in ("app", "dialog")]
    if not apps:
        return False
    window = max(apps, key=lambda w: w.bounds.area)
    box = window.bounds
    inside = [e.bounds for e in screen.elements if e.window == window.index and not e.bounds.empty]
    if inside and not any(w.is_bar for w in screen.windows):
        # A dump of the focused window alone shows no bars: look where its elements are.
        box = inside[0]
        for b in inside[1:]:
            box = box.union(b)
    top, bottom = box.top, box.bottom
    for bar in (w for w in screen.windows if w.is_bar):
        # Bars are drawn over the app's window: leave them out of the look.
        if bar.bounds.top <= top < bar.bounds.bottom:
            top = bar.bounds.bottom
        elif bar.bounds.top < bottom <= bar.bounds.bottom:
            bottom = bar.bounds.top
    # Screen coordinates → the picture's pixels (a video frame or a small capture may be
    # smaller than its display), rounded inward: a row the bar shares with the app's window
    # in a scaled picture is partly bar, not black.
    sx = picture.width / screen.size[0] if screen.size else 1.0
    sy = picture.height / screen.size[1] if screen.size else 1.0
    left, right = math.ceil(box.left * sx), min(math.floor(box.right * sx), picture.width)
    top, bottom = math.ceil(top * sy), min(math.floor(bottom * sy), picture.height)
    if right - left < 8 or bottom - top < 8:
        return False
    return picture.black_in((left, top, right, bottom))


def screen_data(screen: Screen) -> dict[str, Any]:
    return {
        "version": screen.version,
        "package": screen.foreground_package,
        "activity": screen.activity,
        "treeBlind": screen.tree_blind,
        "elements": len(screen.elements),
    }


class PhoneObserve(PhoneTool):
    name = "phone_observe"
    sandbox_callable = True
    risk = Risk.READ
    parameters = {"type": "object", "properties": {}}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        screen = await session.reader.read()
        session.reader.mark_shown(screen)
        obs, shown = listing_observation(screen, ctx.step, session.reader)
        return ToolOutcome(text=shown, observations=(obs,), tree_blind=screen.tree_blind, data=screen_data(screen))


class PhoneListElements(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_list_elements"
    sandbox_callable = True
    sandbox_name = "dump"
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {
            "only_actionable": {"type": "boolean", "description": "Leave out plain text; default false."},
        },
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        screen = await session.reader.read()
        session.reader.mark_shown(screen)
        rows = []
        for e in screen.elements:
            if args.get("only_actionable") and not e.actionable:
                continue
            rows.append(
                {
                    "n": e.number,
                    "role": e.role,
                    "label": e.label,
                    "states": list(e.states),
                    "bounds": e.bounds.as_list(),
                    "id": e.node.resource_id,
                    "package": e.package,
                }
            )
        head = f"Screen v{screen.version} · {screen.foreground_package}"
        obs = screen_observation(
            screen, ctx.step, "\n".join(json.dumps(r, ensure_ascii=False) for r in rows), head=head
        )
        return ToolOutcome(text=obs.text, observations=(obs,), data=screen_data(screen))


class PhoneQuery(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_query"
    sandbox_callable = True
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "Text or description to look for (substring, any case)."},
            "resource_id": {"type": "string", "description": "Resource id, full or after ':id/'."},
            "class_name": {"type": "string", "description": "Class, full or its last part (e.g. EditText)."},
            "exact": {"type": "boolean"},
        },
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        screen = await session.reader.read()
        try:
            hits = find_nodes(
                screen,
                text=args.get("text"),
                resource_id=args.get("resource_id"),
                class_name=args.get("class_name"),
                exact=bool(args.get("exact")),
            )
        except QueryError as exc:
            return ToolOutcome.error("bad_arguments", str(exc))
        session.reader.mark_shown(screen)
        if not hits:
            return ToolOutcome(text=f"Nothing on screen v{screen.version} matches.", data={"hits": 0})
        lines = []
        for h in hits:
            where = f"element {h.element}" if h.element else "no element acts on it"
            lines.append(
                f"- {json.dumps(h.text, ensure_ascii=False)} {h.node.short_class} "
                f"{h.node.bounds} {'visible' if h.node.visible_to_user else 'off-screen'} · {where}"
            )
        obs = screen_observation(
            screen, ctx.step, "\n".join(lines), head=f"{len(hits)} match(es) on screen v{screen.version}:"
        )
        return ToolOutcome(
            text=obs.text, observations=(obs,), data={"hits": len(hits), "elements": [h.element for h in hits]}
        )


class PhoneScreenshot(PhoneTool):
    name = "phone_screenshot"
    risk = Risk.READ
    parameters = {"type": "object", "properties": {}}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        try:
            picture = await session.port.screenshot(session.display, session.picture_long_side)
        except ScreenshotError as exc:
            return ToolOutcome.error("screenshot_failed", str(exc))
        screen = session.reader.current or await session.reader.read()
        if app_window_black(picture, screen):
            return ToolOutcome.error("screenshot_failed", str(SecureScreen()))
        sent = await asyncio.to_thread(
            for_model, picture, screen.size, session.picture_long_side, session.picture_format
        )
        session.shown_picture = sent.scale
        obs = Observation.build(
            ObsKind.READ, "phone", "screenshot", title="screenshot", image=sent.image, step=ctx.step
        )
        return ToolOutcome(
            text=prompt("feedback/screenshot_scale.md").format(scale=sent.scale.words()).strip(),
            image=sent.image,
            observations=(obs,),
            data={"picture": list(sent.scale.picture), "screen": list(sent.scale.screen)},
        )
