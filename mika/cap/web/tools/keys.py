"""Keys: web_press_key. Enter, Space and the like press what has the focus, so they are
checked like a tap on it (in a text field: its form's submit button)."""

from __future__ import annotations

from typing import Any

from mika.cap.web.tools.base import WebTool, _target, enter_target, fresh_screen, pace, page_url
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.tool.errors import BadArguments

# Keys that press whatever has the focus, as a click would.
ACTIVATING = frozenset({"Enter", "NumpadEnter", " ", "Space"})
KEYS = (
    "Enter",
    "Escape",
    "Tab",
    "Backspace",
    "Delete",
    "Space",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "PageUp",
    "PageDown",
    "Home",
    "End",
)


def key_arg(args: dict[str, Any]) -> str:
    key = str(args.get("key") or "").strip()
    for known in KEYS:
        if key.lower() == known.lower():
            return known
    raise BadArguments(f"web_press_key: {key!r} is not a key this tool presses; one of {', '.join(KEYS)}.")


class WebPressKey(WebTool):
    name = "web_press_key"
    changes_page = True
    page_kind = "key"
    parameters = {
        "type": "object",
        "properties": {"key": {"type": "string", "enum": list(KEYS), "description": "The key's name."}},
        "required": ["key"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget:
        session = self.session(ctx)
        try:
            key = key_arg(args)
        except BadArguments:
            return _target(session, "", "key")
        if key in ACTIVATING:
            # A fresh read: the focus moves with keys the listing never saw (Tab).
            screen = await fresh_screen(session)
            if session.reader.last is not None and session.reader.last.dialog:
                # Enter answers the page's dialog: its OK, checked against what it says.
                return _target(session, "OK", "key")
            return enter_target(screen, session, "key")
        return _target(session, "", "key")

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        key = key_arg(args)
        stop, waited = await pace(session, ctx, self.page_kind, page_url(session))
        if stop is not None:
            return stop
        answer = getattr(session.port, "answer_dialog", None)
        last = session.reader.last
        if key in ("Enter", "Escape") and answer is not None and last is not None and last.dialog:
            # A JavaScript dialog blocks the page's keys: Enter is its OK, Escape its Cancel.
            await answer(key == "Enter")
            said = "Accepted the page's dialog (OK)." if key == "Enter" else "Dismissed the page's dialog."
            return ToolOutcome(text=said, wait_ms=waited)
        await session.port.press_key(" " if key == "Space" else key)
        return ToolOutcome(text=f"Pressed {key}.", wait_ms=waited)
