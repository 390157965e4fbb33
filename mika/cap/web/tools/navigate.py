"""Going places: web_navigate (opens the web tools) and web_back."""

from __future__ import annotations

from typing import Any

from mika.cap.web.reader import site_of
from mika.cap.web.tools.barrier import blocked_refusal
from mika.cap.web.tools.base import WebTool, _target, pace, page_text, page_url
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, EntryKind, ToolOutcome
from mika.tool.errors import BadArguments


def url_arg(args: dict[str, Any], tool: str) -> str:
    url = str(args.get("url") or "").strip()
    if not url:
        raise BadArguments(f"{tool}: give the full address to open (http:// or https://).")
    return url


def link_target(session: Any, url: str) -> ActionTarget:
    """Opening an address is checked by its words: a checkout / pay / order address is a
    payment step, asked like the button that leads there (mika.action.risk.classify_place)."""
    read = session.reader.last
    return ActionTarget(label=url, app=site_of(url), kind="link", screen_text=page_text(read))


class WebNavigate(WebTool):
    name = "web_navigate"
    entry = EntryKind.OPENS
    changes_page = True
    page_kind = "navigate"
    parameters = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "The full http:// or https:// address."},
            "new_tab": {"type": "boolean", "description": "Open it in a new tab; default false."},
        },
        "required": ["url"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget:
        return link_target(self.session(ctx), str(args.get("url") or ""))

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        url = url_arg(args, self.name)
        refused = blocked_refusal(session, url)
        if refused is not None:
            return refused
        stop, waited = await pace(session, ctx, self.page_kind, url)
        if stop is not None:
            return stop
        state = await session.port.open(url, new_tab=bool(args.get("new_tab")))
        where = "in a new tab" if args.get("new_tab") else ""
        status = f" (HTTP {state.status})" if state.status else ""
        text = " ".join(p for p in (f"Opened {state.url}{status}", where) if p) + "."
        return ToolOutcome(text=text, data={"url": state.url, "status": state.status, "tab": state.tab}, wait_ms=waited)


class WebBack(WebTool):
    name = "web_back"
    changes_page = True
    page_kind = "back"
    parameters = {"type": "object", "properties": {}}

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget:
        return _target(self.session(ctx), "", "back")

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        stop, waited = await pace(session, ctx, self.page_kind, page_url(session))
        if stop is not None:
            return stop
        if not await session.port.back():
            return ToolOutcome.error("no_history", "There is no earlier page in this tab to go back to.")
        return ToolOutcome(text="Went back one page.", wait_ms=waited)
