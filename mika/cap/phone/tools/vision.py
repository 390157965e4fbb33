"""Looking at the phone's picture with the vision model: phone_describe, phone_find_visually.

Offered only when a vision model is configured (`roles.vision`); the assembly hands that
model to the phone capability. Both tools send one screenshot (`port.screenshot(display)`:
on the agent's own display that is a decoded video frame) and a fixed prompt from
`prompts/roles/`. What the vision model says is about the app's pixels, so it is fenced
as untrusted like the screen itself. `phone_find_visually` asks the tree first and calls
the vision model only when no element is named like the query; a box it returns is
checked against the names in the tree at its centre, and marked unverified when nothing
there bears the name (on a tree-blind screen nothing can confirm it: the tap's effect must).
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from mika.cap.phone.model_picture import ModelPicture, for_model
from mika.cap.phone.screenshot import ScreenshotError, SecureScreen
from mika.cap.phone.tools.base import PhoneTool, element_under
from mika.cap.phone.tools.observe import app_window_black
from mika.model.base import Model, complete
from mika.model.errors import ModelError
from mika.model.messages import Image, Message, ModelRequest, Text
from mika.observe.untrusted import fence
from mika.resources import prompt
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome
from mika.uistate import Element, Screen

PURPOSE = "vision"  # booked under this purpose in the usage ledger
DESCRIBE_MAX_TOKENS = 600
LOCATE_MAX_TOKENS = 200
DESCRIPTION_MAX = 3000  # characters of a description handed to the main model
_JSON_OBJECT = re.compile(r"\{.*\}", re.S)


class VisionReplyError(Exception):
    """The vision model's reply is not the JSON box it was asked for."""


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def _names(e: Element) -> list[str]:
    return [_norm(n) for n in (e.label, e.node.safe_text, e.node.content_desc) if n and n.strip()]


def tree_matches(screen: Screen, query: str) -> list[Element]:
    """Elements whose label, text or description contains the query, best first:
    an exact name before a partial one, something pressable before plain text."""
    q = _norm(query)
    if not q:
        return []
    hits = [e for e in screen.elements if not e.bounds.empty and any(q in n for n in _names(e))]
    return sorted(hits, key=lambda e: (q not in _names(e), not e.actionable, e.bounds.area))


def parse_box(reply: str, width: int, height: int) -> tuple[bool, tuple[int, int, int, int], str]:
    """(found, box in image pixels, what the model says is there) from the model's JSON."""
    m = _JSON_OBJECT.search(reply)
    if m is None:
        raise VisionReplyError("it has no JSON object")
    try:
        data = json.loads(m.group(0))
    except json.JSONDecodeError as exc:
        raise VisionReplyError(f"its JSON does not parse ({exc.msg})") from None
    if not isinstance(data, dict):
        raise VisionReplyError("its JSON is not an object")
    label = str(data.get("label") or "")[:200]
    if data.get("found") is False:
        return False, (0, 0, 0, 0), label
    box = data.get("box")
    if not (
        isinstance(box, list)
        and len(box) == 4
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in box)
    ):
        raise VisionReplyError('"box" is not four numbers [left, top, right, bottom]')
    left, top, right, bottom = (round(v) for v in box)
    if not (0 <= left < right <= width and 0 <= top < bottom <= height):
        raise VisionReplyError(f"the box {[left, top, right, bottom]} is not inside the {width}x{height} picture")
    return True, (left, top, right, bottom), label


class VisionTool(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    risk = Risk.READ
    yields_to_steer = True  # only asks the vision model: a new user message ends it early

    def __init__(self, model: Model) -> None:
        self.model = model

    async def picture(self, ctx: ToolContext) -> tuple[ModelPicture, Screen] | ToolOutcome:
        """The screen's picture as the vision model gets it (scaled, JPEG) and its scale."""
        session = self.session(ctx)
        try:
            picture = await session.port.screenshot(session.display, session.picture_long_side)
        except ScreenshotError as exc:
            return ToolOutcome.error("screenshot_failed", str(exc))
        # The read just before (find_visually's tree look) is reused: the same screen version.
        screen = await session.reader.read(reuse_fresh=True)
        if app_window_black(picture, screen):
            return ToolOutcome.error("screenshot_failed", str(SecureScreen()))
        sent = await asyncio.to_thread(
            for_model, picture, screen.size, session.picture_long_side, session.picture_format
        )
        return sent, screen

    async def ask(self, role_prompt: str, image: Image, instruction: str, max_tokens: int) -> str:
        request = ModelRequest(
            system=prompt(role_prompt),
            messages=(Message("user", (image, Text(instruction))),),
            max_output_tokens=max_tokens,
            purpose=PURPOSE,
        )
        return (await complete(self.model, request)).message.text.strip()


def _model_failed(exc: ModelError) -> ToolOutcome:
    return ToolOutcome.error(
        "vision_failed", f"The vision model could not be asked: {exc}. Read the screen with phone_observe instead."
    )


class PhoneDescribe(VisionTool):
    name = "phone_describe"
    parameters = {
        "type": "object",
        "properties": {
            "focus": {"type": "string", "description": "Optional: what to pay attention to (a dialog, a list)."},
        },
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        got = await self.picture(ctx)
        if isinstance(got, ToolOutcome):
            return got
        sent, screen = got
        w, h = sent.scale.picture
        instruction = f"Describe this {w}x{h} phone screen."
        if str(args.get("focus") or "").strip():
            instruction += f" Pay attention to: {str(args['focus']).strip()[:200]}"
        try:
            words = await self.ask("roles/describe.md", sent.image, instruction, DESCRIBE_MAX_TOKENS)
        except ModelError as exc:
            return _model_failed(exc)
        if not words:
            return ToolOutcome.error("vision_failed", "The vision model gave an empty description. Use phone_observe.")
        app = screen.foreground_package
        text = (
            f"Description of screen v{screen.version} · {app} from its picture, by the vision model "
            "(rough; element numbers come only from phone_observe):\n"
            + fence(words[:DESCRIPTION_MAX], {"source": "vision", "app": app})
        )
        self.session(ctx).reader.mark_shown(screen)
        return ToolOutcome(text=text, data={"version": screen.version, "package": app, "treeBlind": screen.tree_blind})


class PhoneFindVisually(VisionTool):
    name = "phone_find_visually"
    parameters = {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What it looks like or says, e.g. 'the gear icon at the top', 'Send button'.",
            },
        },
        "required": ["query"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        query = str(args.get("query") or "").strip()
        if not query:
            return ToolOutcome.error("bad_arguments", "phone_find_visually: say what to look for in `query`.")
        session = self.session(ctx)
        screen = await session.reader.read()
        session.reader.mark_shown(screen)
        hits = tree_matches(screen, query)
        if hits:
            el = hits[0]
            x, y = el.centre
            return ToolOutcome(
                text=(
                    f"Found in the screen's tree (v{screen.version}): element {el.number}, {el.role} "
                    f"{fence(el.label or query, {'source': 'screen', 'app': screen.foreground_package}, block=False)} "
                    f"at {x},{y}. Tap it with phone_tap element={el.number}."
                ),
                data={"source": "tree", "element": el.number, "x": x, "y": y, "verified": True},
            )
        got = await self.picture(ctx)
        if isinstance(got, ToolOutcome):
            return got
        sent, screen = got
        session.reader.mark_shown(screen)
        w, h = sent.scale.picture
        instruction = f"The picture is {w}x{h} pixels. Find: {query[:300]}"
        try:
            reply = await self.ask("roles/locate.md", sent.image, instruction, LOCATE_MAX_TOKENS)
            found, box, seen = parse_box(reply, w, h)
        except ModelError as exc:
            return _model_failed(exc)
        except VisionReplyError as exc:
            return ToolOutcome.error(
                "vision_reply_unreadable",
                f"The vision model's reply could not be read as a box: {exc}. Nothing was located; "
                "try phone_describe, or a point from the listing.",
            )
        app = screen.foreground_package
        if not found:
            return ToolOutcome.error(
                "not_found", f"The vision model did not find {query!r} on screen v{screen.version}.", source="vision"
            )
        # The box is in the scaled picture's pixels: its own scale maps it to the screen.
        left, top, right, bottom = sent.scale.box_to_screen(*box)
        x, y = (left + right) // 2, (top + bottom) // 2
        under = element_under(screen, x, y)
        wanted = [_norm(p) for p in (query, seen) if p.strip()]
        verified = under is not None and any(w_ in n or n in w_ for n in _names(under) for w_ in wanted)
        said = f" It says it is {fence(seen, {'source': 'vision', 'app': app}, block=False)}." if seen else ""
        if verified:
            assert under is not None
            check = f"Checked: element {under.number} in the tree at that point bears that name."
        elif under is not None and _names(under):
            check = (
                f"UNVERIFIED: element {under.number} at that point is named otherwise; "
                "tap only if the picture is what you want, then check the effect."
            )
        else:
            check = "UNVERIFIED: nothing in the tree at that point confirms it; tap it, then check the effect."
        text = (
            f"Located by the vision model on screen v{screen.version}: box [{left},{top},{right},{bottom}], "
            f"tap point {x},{y} (phone_tap x={x} y={y}).{said}\n{check}"
        )
        return ToolOutcome(
            text=text,
            data={
                "source": "vision",
                "x": x,
                "y": y,
                "box": [left, top, right, bottom],
                "verified": verified,
                "element": under.number if verified and under is not None else None,
            },
        )
