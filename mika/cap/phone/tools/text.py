"""Typing: phone_type_text and phone_clear_text.

The field is found (the element given, else the focused editable one, else the only
editable one — tapped first), the text typed by the port (any language), then read
back from a fresh screen. A mismatch is cleared and typed once more, then reported.
A password field's text is never echoed: results say how many characters went in.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from mika.cap.phone.session import PhoneSession
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
from mika.uistate import Element, Screen, StaleElement, UnknownElement

MAX_TEXT = 2000


def _editables(screen: Screen) -> list[Element]:
    return [e for e in screen.elements if e.node.editable]


def focused_field(screen: Screen) -> Element | None:
    fields = _editables(screen)
    for e in fields:
        if e.node.focused:
            return e
    return fields[0] if len(fields) == 1 else None


def _same_field(screen: Screen, field: Element) -> Element | None:
    """The field on a newer read: by resource id when that is unique (a keyboard coming up
    can move and resize it), else by bounds, else the focused one."""
    fields = _editables(screen)
    if field.node.resource_id:
        same_id = [e for e in fields if e.node.resource_id == field.node.resource_id]
        if len(same_id) == 1:
            return same_id[0]
    for e in fields:
        if e.bounds == field.bounds:
            return e
    return focused_field(screen)


def _held_text(field: Element) -> str:
    """What the field really holds: Android reports the hint as the text of an empty field."""
    text = field.node.text or ""
    return "" if text == (field.node.hint or "") or (text == field.label and field.label_source == "hint") else text


def field_key(field: Element) -> str:
    return field.node.resource_id or str(field.bounds)


def remember(session: PhoneSession, field: Element | None) -> None:
    if field is not None and not field.node.password:
        session.first_seen.setdefault(field_key(field), field.node.text or "")


def _norm(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip()


async def _field_for(args: dict[str, Any], session: PhoneSession, tool: str) -> tuple[Element | None, str]:
    """The field to type into; taps it first when it is not focused. ("" or an error code)."""
    screen = await current_screen(session)
    if args.get("element") is not None or (args.get("x") is not None and args.get("y") is not None):
        x, y, el = await point_of(args, session, tool)
        if el is not None and el.node.editable and el.node.focused:
            return el, ""
        had_focus = focused_field(screen)
        await session.port.tap(session.display, x, y)
        screen = await session.reader.read()
        if el is not None and el.node.editable:
            return _same_field(screen, el), ""
        # Not a field in the tree: type only if the tap gave some field the focus (seed:
        # "点出了树里看得到的输入框就照常对着它打"), never into the one focused before.
        now = focused_field(screen)
        if now is None or (
            had_focus is not None
            and now.node.focused
            and _same_field(screen, had_focus) is now
            and had_focus.node.focused
        ):
            return None, "not_a_field"
        return now, ""
    field = focused_field(screen)
    if field is None:
        return None, "no_focus"
    if not field.node.focused:
        await session.port.tap(session.display, *field.centre)
        screen = await session.reader.read()
        field = _same_field(screen, field)
    return field, ""


class PhoneTypeText(PhoneTool):
    name = "phone_type_text"
    replayable = True  # seed §9: a verified run may record it, by its anchor
    sandbox_callable = True
    sandbox_name = "type"
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "What to type, any language."},
            **ELEMENT_OR_POINT,
            "clear_first": {"type": "boolean", "description": "Empty the field first; default false."},
            "submit": {"type": "boolean", "description": "Press Enter afterwards; default false."},
        },
        "required": ["text"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget | None:
        # For pacing only: a submit reads the screen before it goes. Every input of the call
        # (the focus tap, the text, the Enter) is judged by the gated port as it is sent.
        if not args.get("submit"):
            return None
        return await target_for({}, self.session(ctx), "type")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        text = str(args["text"])
        if len(text) > MAX_TEXT:
            return ToolOutcome.error("bad_arguments", f"phone_type_text: at most {MAX_TEXT} characters at once.")
        try:
            field, problem = await _field_for(args, session, self.name)
        except (StaleElement, UnknownElement) as exc:
            return stale_outcome(exc, session)
        if field is None and problem == "not_a_field":
            return ToolOutcome.error(
                problem,
                "That element is not a text field, and tapping it focused none. "
                "Nothing was typed; pick the input from the listing.",
            )
        if field is None:
            return ToolOutcome.error(
                problem or "no_focus",
                "No text field has the focus and none was given. Tap the field first (or pass its element number).",
            )
        remember(session, field)
        secret = field.node.password
        if secret and session.redact is not None:
            session.redact(text)
        held = "" if args.get("clear_first") or secret else _held_text(field)
        expected = held + text
        if args.get("clear_first"):
            await session.port.clear_text(session.display, len(field.node.text or "") + 4)
        chunks, paced_ok, held = await self._paced(session, field, ctx, text, held, secret)
        expected = held + text
        if paced_ok:
            method = await session.port.type_text(session.display, text[len(chunks[-2]) :], existing=held + chunks[-2])
        elif len(chunks) > 1:
            # The field did not take the first part as it was: type the whole text as usual.
            await session.port.clear_text(session.display, len(expected) + 4)
            method = await session.port.type_text(session.display, expected, existing="")
        else:
            method = await session.port.type_text(session.display, text, existing=held)
        shown, ok = await self._read_back(session, field, expected, text)
        retried = False
        if not ok and not secret:
            retried = True
            await session.port.clear_text(session.display, len(shown or "") + len(expected) + 4)
            method = await session.port.type_text(session.display, expected, existing="")
            shown, ok = await self._read_back(session, field, expected, expected)
        if args.get("submit") and ok:
            await session.port.key(session.display, "ENTER")
        what = f"{len(text)} characters into the password field" if secret else f'"{text}"'
        # The field's name and what it shows are the app's text: fenced.
        name = f" {quoted(field.label, field.package)}" if field.label and not secret else ""
        data = {"method": method, "retried": retried, "verified": ok, "chunks": len(chunks) if paced_ok else 1}
        if ok:
            return ToolOutcome(text=f"Typed {what} into{name} (read back: matches).", data=data)
        if secret:
            return ToolOutcome(text=f"Typed {what}; a password field can't be read back to check.", data=data)
        return ToolOutcome(
            text=f"Typed {what}, but the field{name} now shows {quoted(shown, field.package)}. "
            "Check the field before going on.",
            ok=False,
            code="text_mismatch",
            data=data,
        )

    async def _paced(
        self, session: PhoneSession, field: Element, ctx: ToolContext, text: str, held: str, secret: bool
    ) -> tuple[list[str], bool, str]:
        """Write growing prefixes at the pace's rhythm, all but the last; the caller writes the
        last. After the first, read back: a field that doesn't take partial text ends the
        pacing (False). Password fields are typed at once. Returns the prefixes planned,
        whether pacing went through, and what the field really held before."""
        plan = session.typing.plan(text, password=secret)
        prefixes = [c.prefix for c in plan]
        if len(plan) < 2:
            return prefixes, False, held
        typed = ""
        for n, chunk in enumerate(plan[:-1]):
            if chunk.delay_ms:
                await ctx.sleep(chunk.delay_ms / 1000)
            await session.port.type_text(session.display, chunk.prefix[len(typed) :], existing=held + typed)
            typed = chunk.prefix
            if n == 0:
                now = _same_field(await session.reader.read(), field)
                shown = _norm(now.node.text or "") if now is not None else None
                if shown == _norm(typed) and held:
                    held = ""  # what looked held was the field's hint (plain dumps report it as text)
                elif shown != _norm(held + typed):
                    return prefixes, False, held
        if plan[-1].delay_ms:
            await ctx.sleep(plan[-1].delay_ms / 1000)
        return prefixes, True, held

    async def _read_back(self, session: PhoneSession, field: Element, expected: str, typed: str) -> tuple[str, bool]:
        screen = await session.reader.read()
        now = _same_field(screen, field)
        if now is None:
            return "", False
        if now.node.password:
            return "", True  # nothing to compare: Android shows dots
        shown = now.node.text or ""
        return shown, _norm(expected) == _norm(shown) or (_norm(typed) in _norm(shown) and bool(_norm(typed)))


class PhoneClearText(PhoneTool):
    name = "phone_clear_text"
    replayable = True  # seed §9: a verified run may record it, by its anchor
    sandbox_callable = True
    sandbox_name = "clear"
    batchable = True
    changes_screen = True
    parameters = {"type": "object", "properties": dict(ELEMENT_OR_POINT)}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        try:
            field, problem = await _field_for(args, session, self.name)
        except (StaleElement, UnknownElement) as exc:
            return stale_outcome(exc, session)
        if field is None:
            return ToolOutcome.error(problem or "no_focus", "No text field has the focus. Tap the field first.")
        remember(session, field)
        before = field.node.text or ""
        await session.port.clear_text(session.display, len(before) + 4)
        screen = await session.reader.read()
        now = _same_field(screen, field)
        left = (now.node.text or "") if now is not None and not now.node.password else ""
        hint = now.node.hint if now is not None else ""
        # Empty, its hint, or back to what it showed before anything was typed (the hint,
        # as plain dumps report it) while the text it had is gone: cleared.
        placeholder = left == session.first_seen.get(field_key(field)) and left != before
        if left and left != hint and not placeholder:
            return ToolOutcome(
                text=f"The field still shows {quoted(left, field.package)}.", ok=False, code="not_cleared"
            )
        return ToolOutcome(text="Cleared the field.")
