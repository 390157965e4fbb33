"""phone_extract: what the screen shows, as text, as list rows, or as form fields.

Secret fields (mika.cap.phone.secret_fields) never give their text: a form reports only
whether one is filled, and text and rows leave it out.
"""

from __future__ import annotations

import re
from typing import Any

from mika.cap.phone.overlap import list_node, row_line, rows_of, structured
from mika.cap.phone.secret_fields import SECRET_WORDS, field_label, secret_nodes
from mika.cap.phone.tools.base import PhoneTool
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import Screen
from mika.uistate.tree import UiNode

KINDS = ("text", "rows", "form")
SECRET = "(password, filled)"
SECRET_EMPTY = "(password, empty)"
SECRET_UNKNOWN = "(password; the screen does not show whether it is filled)"


def _shown(n: UiNode) -> bool:
    b = n.bounds
    return n.visible_to_user and b.right > b.left and b.bottom > b.top


def visible_text(screen: Screen) -> list[str]:
    """Texts and descriptions in reading order (top to bottom, then left to right)."""
    secret = secret_nodes(screen.tree)
    items = []
    for n in screen.tree.nodes():
        if not _shown(n) or n.order in secret:
            continue
        for value in (n.safe_text, n.content_desc):
            if value and value.strip():
                items.append((n.bounds.top, n.bounds.left, n.order, value.strip()))
    items.sort()
    out: list[str] = []
    for *_, v in items:
        if not out or out[-1] != v:
            out.append(v)
    return out


def form_fields(screen: Screen) -> list[dict[str, str]]:
    """label → value for text fields, switches and checkboxes, top to bottom."""
    secret = secret_nodes(screen.tree)
    out: list[dict[str, str]] = []
    previous: UiNode | None = None
    for n in screen.tree.nodes():
        if not _shown(n):
            continue
        if n.editable or n.order in secret:
            label = field_label(n, previous)
            if n.order in secret:
                kind, shown = "password", _password_state(n)
            else:
                # an empty field shows its hint as its text
                kind, shown = "field", ("" if n.text == n.hint else n.text)
            out.append({"label": label, "kind": kind, "value": shown})
        elif n.checkable:
            label = (n.safe_text or n.content_desc or (previous.safe_text if previous else "") or n.short_id).strip()
            kind = "switch" if "switch" in n.class_name.casefold() else "checkbox"
            out.append({"label": label, "kind": kind, "value": "on" if n.checked else "off"})
        elif n.safe_text.strip():
            previous = n
    return out


def _password_state(n: UiNode) -> str:
    """Filled or empty, never the text: a dump holds dots, the hint, nothing, or (from a
    careless app) the secret itself."""
    text = n.text.strip()
    if not text:
        return SECRET_UNKNOWN
    # an empty field shows its hint as its text, and a hint names the field (密码, PIN)
    if text == n.hint.strip() or SECRET_WORDS.fullmatch(text) or _HINTISH.search(text):
        return SECRET_EMPTY
    return SECRET


_HINTISH = re.compile(
    r"^(?:enter|type|input|your|请输入|输入)?\s*(?:your\s*)?(?:password|passcode|pin|密码|支付密码)$", re.I
)


class PhoneExtract(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_extract"
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {
            "kind": {
                "type": "string",
                "enum": list(KINDS),
                "description": "text: visible text in reading order; rows: the list's rows; form: field label → value.",
            }
        },
        "required": ["kind"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        kind = args.get("kind")
        if kind not in KINDS:
            raise BadArguments(f"phone_extract: kind must be one of {', '.join(KINDS)} (got {kind!r}).")
        session = self.session(ctx)
        # a fresh read: extracting from an old screen would report what is no longer there
        screen = await session.reader.read()
        attrs = {"source": "screen", "app": screen.foreground_package}
        if screen.tree_blind and not screen.elements:
            return ToolOutcome.error(
                "unreadable",
                "phone_extract: this screen can't be read (a secure window or one drawn only in pixels); "
                "nothing was extracted.",
            )
        if kind == "text":
            lines = visible_text(screen)
            head = f"Visible text on screen v{screen.version}, {len(lines)} line(s), in reading order:"
            return ToolOutcome(
                text=head + "\n" + (fence("\n".join(lines), attrs) if lines else "(none)"), data={"lines": lines}
            )
        if kind == "rows":
            lst = list_node(screen)
            if lst is None:
                return ToolOutcome.error("no_list", "phone_extract: there is no list on this screen; use kind=text.")
            secret = secret_nodes(screen.tree)
            rows = structured(rows_of(lst, skip=secret))
            body = "\n".join(row_line(r) for r in rows)
            head = f"{len(rows)} row(s) of the list on screen v{screen.version}:"
            text = head + "\n" + (fence(body, attrs) if rows else "(none)")
            if lst.scrollable:
                # Only what is on screen: never let this pass for the whole list.
                text += (
                    "\nThese are the rows on screen only: the list scrolls and goes on past the screen. "
                    "phone_collect reads all of it."
                )
            return ToolOutcome(text=text, data={"rows": rows, "whole_list": not lst.scrollable})
        fields = form_fields(screen)
        body = "\n".join(f"{f['label']} ({f['kind']}): {f['value']}" for f in fields)
        head = f"{len(fields)} form field(s) on screen v{screen.version}; passwords are never shown:"
        return ToolOutcome(text=head + "\n" + (fence(body, attrs) if fields else "(none)"), data={"rows": fields})
