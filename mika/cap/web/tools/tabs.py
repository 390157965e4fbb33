"""web_tabs: list, switch, close, or open a new tab (at most a few per run, the port's limit)."""

from __future__ import annotations

from typing import Any

from mika.cap.web.fenced import fence_attrs
from mika.cap.web.tools.barrier import blocked_refusal
from mika.cap.web.tools.base import WebTool, pace
from mika.cap.web.tools.navigate import link_target, url_arg
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.tool.errors import BadArguments

ACTIONS = ("list", "switch", "close", "new")


class WebTabs(WebTool):
    name = "web_tabs"
    changes_page = True
    parameters = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS), "description": "Default list."},
            "tab": {"type": "string", "description": "The tab's id (t1, t2 …) to switch to or close."},
            "url": {"type": "string", "description": "For new: the address to open in it."},
        },
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget | None:
        if (args.get("action") or "list") == "new":
            # A new tab on a checkout address is the same payment step as navigating there.
            return link_target(self.session(ctx), str(args.get("url") or ""))
        return None

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        action = str(args.get("action") or "list")
        if action not in ACTIONS:
            raise BadArguments(f"web_tabs: action is one of {', '.join(ACTIONS)}.")
        port = session.port
        waited = 0
        if action == "new":
            url = url_arg(args, self.name)
            refused = blocked_refusal(session, url)
            if refused is not None:
                return refused
            stop, waited = await pace(session, ctx, "navigate", url)
            if stop is not None:
                return stop
            state = await port.open(url, new_tab=True)
            said = f"Opened {state.url} in a new tab ({state.tab})."
        elif action in ("switch", "close"):
            tab = str(args.get("tab") or "").strip()
            if not tab:
                raise BadArguments(f"web_tabs: {action} needs the tab's id (see web_tabs list).")
            if action == "switch":
                state = await port.switch_tab(tab)
                said = f"Switched to tab {state.tab}."
            else:
                await port.close_tab(tab)
                said = f"Closed tab {tab}."
        else:
            said = ""
        tabs = await port.tabs()
        lines = []
        for t in tabs:
            title = fence(t.title, fence_attrs(t.url), block=False) if t.title else "(no title)"
            lines.append(f"{t.id}{' (current)' if t.current else ''} · {t.url} · {title}")
        listing = "Tabs:\n" + "\n".join(lines) if lines else "No tabs are open."
        return ToolOutcome(
            text="\n".join(p for p in (said, listing) if p), data={"tabs": [t.id for t in tabs]}, wait_ms=waited
        )
