"""Typing: web_type_text and web_clear_text.

The field is the element given, else the focused text field, else the only one on the
page. It is focused through its accessibility node, the text typed with real key events
(CJK through the IME-style insert), then read back from the field itself. A password
field's text is registered with the run's redactor before it is typed and never echoed.
Enter after typing (`submit`) presses the form's submit: the payment check looks at that
button's label, as it would for a tap on it.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from mika.cap.web.fenced import fence_attrs
from mika.cap.web.tools.base import (
    WebTool,
    enter_target,
    fresh_screen,
    handle_of,
    pace,
    page_url,
    quoted,
    resolve_element,
    stale_outcome,
)
from mika.cap.web.tools.touch import ElementGone
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.uistate import Element, Screen, StaleElement, UnknownElement

MAX_TEXT = 4000


def _fields(screen: Screen) -> list[Element]:
    return [e for e in screen.elements if e.node.editable]


def focused_field(screen: Screen) -> Element | None:
    fields = _fields(screen)
    for e in fields:
        if e.node.focused:
            return e
    return fields[0] if len(fields) == 1 else None


def _norm(text: str) -> str:
    return unicodedata.normalize("NFC", text or "").strip()


async def field_for(args: dict[str, Any], tool: WebTool, ctx: ToolContext) -> tuple[Element | None, ToolOutcome | None]:
    session = tool.session(ctx)
    if args.get("element") is not None:
        if session.reader.current is None:
            await fresh_screen(session)
        try:
            el = resolve_element(session, int(args["element"]))
        except (StaleElement, UnknownElement) as exc:
            return None, stale_outcome(exc, session)
        if not el.node.editable:
            return None, ToolOutcome.error(
                "not_a_field", f"Element {args['element']} is not a text field. Nothing was typed; pick the input."
            )
        return el, None
    focused = focused_field(await fresh_screen(session))
    if focused is None:
        return None, ToolOutcome.error(
            "no_focus", "No text field has the focus and none was given: pass the field's element number."
        )
    return focused, None


class WebTypeText(WebTool):
    name = "web_type_text"
    changes_page = True
    parameters = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "What to type, any language."},
            "element": {"type": "integer", "description": "The text field's number; default the focused one."},
            "clear_first": {"type": "boolean", "description": "Empty the field first; default false."},
            "submit": {"type": "boolean", "description": "Press Enter afterwards (submits the form); default false."},
        },
        "required": ["text"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget | None:
        if not args.get("submit"):
            return None
        session = self.session(ctx)
        screen = await fresh_screen(session)
        field = None
        if args.get("element") is not None:
            try:
                field = resolve_element(session, int(args["element"]))
            except (StaleElement, UnknownElement):
                field = None
        else:
            field = focused_field(screen)
        return enter_target(screen, session, "type", field)

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        text = str(args["text"])
        if len(text) > MAX_TEXT:
            return ToolOutcome.error("bad_arguments", f"web_type_text: at most {MAX_TEXT} characters at once.")
        field, problem = await field_for(args, self, ctx)
        if problem is not None:
            return problem
        assert field is not None
        handle = handle_of(field)
        secret = field.node.password
        if secret and session.redact is not None:
            session.redact(text)  # before it is typed: nothing later may record it
        if not await session.port.focus(handle):
            await fresh_screen(session)
            return stale_outcome(ElementGone(int(args.get("element") or 0), session.reader.shown_version or 0), session)
        if args.get("clear_first"):
            await session.port.clear_focused()
        await session.port.type_text(text)
        value = await session.port.field_value(handle)
        name = f" {quoted(field.label, page_url(session))}" if field.label and not secret else ""
        data: dict[str, Any] = {"field": handle}
        if secret:
            said = f"Typed {len(text)} characters into the password field (it can't be read back)."
            verified = True
        elif value is None:
            said, verified = f'Typed "{text}", but the field{name} is gone from the page.', False
        else:
            verified = _norm(text) in _norm(value)
            shown = fence(value, fence_attrs(page_url(session)), block=False)
            if verified:
                said = f'Typed "{text}" into{name} (read back: {shown}, matches).'
            else:
                said = f'Typed "{text}", but the field{name} now holds {shown}. Check the field before going on.'
        data["verified"] = verified
        waited = 0
        if args.get("submit") and verified:
            stop, waited = await pace(session, ctx, "key", page_url(session))
            if stop is not None:
                return ToolOutcome(text=f"{said} Not submitted: {stop.text}", ok=False, code=stop.code, data=data)
            await session.port.press_key("Enter")
            said += " Pressed Enter."
        if not verified:
            return ToolOutcome(text=said, ok=False, code="text_mismatch", data=data)
        return ToolOutcome(text=said, data=data, wait_ms=waited)


class WebClearText(WebTool):
    name = "web_clear_text"
    changes_page = True
    parameters = {
        "type": "object",
        "properties": {"element": {"type": "integer", "description": "The text field; default the focused one."}},
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        field, problem = await field_for(args, self, ctx)
        if problem is not None:
            return problem
        assert field is not None
        handle = handle_of(field)
        if not await session.port.focus(handle):
            await fresh_screen(session)
            return stale_outcome(ElementGone(int(args.get("element") or 0), session.reader.shown_version or 0), session)
        await session.port.clear_focused()
        left = await session.port.field_value(handle)
        if left and left != "***":
            shown = fence(left, fence_attrs(page_url(session)), block=False)
            return ToolOutcome(text=f"The field still holds {shown}.", ok=False, code="not_cleared")
        return ToolOutcome(text="Cleared the field.")
