"""web_wait_for: wait for a text on the page, an element, or the network to be quiet —
real conditions the browser watches, never a fixed sleep. A new user message ends it."""

from __future__ import annotations

from typing import Any

from mika.cap.web.tools.base import WebTool
from mika.cap.web.tools.observe import show_page
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome
from mika.tool.errors import BadArguments

TIMEOUT_S = 10.0
TIMEOUT_MAX_S = 60.0


class WebWaitFor(WebTool):
    name = "web_wait_for"
    risk = Risk.READ
    yields_to_steer = True
    parameters = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "Wait until this text shows on the page."},
            "role": {"type": "string", "description": "Or an element of this role (button, link, textbox …)."},
            "name": {"type": "string", "description": "… with this name."},
            "network_quiet": {"type": "boolean", "description": "Or until the page's network is quiet."},
            "timeout_s": {"type": "number", "description": f"Give up after this long; default {TIMEOUT_S:g}."},
        },
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        text, role, name = args.get("text"), args.get("role"), args.get("name")
        quiet = bool(args.get("network_quiet"))
        if not (text or role or name or quiet):
            raise BadArguments("web_wait_for: give a text, an element (role and/or name), or network_quiet.")
        timeout = max(0.5, min(float(args.get("timeout_s") or TIMEOUT_S), TIMEOUT_MAX_S))
        result = await self.session(ctx).port.wait_for(
            text=text or None, role=role or None, name=name or None, network_quiet=quiet, timeout_s=timeout
        )
        said = (
            f"The wait ended after {result.waited_s:.1f} s: {result.what or 'met'}."
            if result.met
            else f"Not met within {timeout:g} s; the page now:"
        )
        page = await show_page(self, ctx, said)
        if result.met or not page.ok:
            return page
        return ToolOutcome(text=page.text, ok=False, code="timeout", observations=page.observations, data=page.data)
