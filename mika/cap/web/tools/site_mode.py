"""web_site_mode: desktop or mobile pages for the current site, remembered for next time."""

from __future__ import annotations

from typing import Any

from mika.cap.web.tools.base import WebTool, page_url
from mika.tool.context import ToolContext
from mika.tool.declaration import ToolOutcome
from mika.tool.errors import BadArguments


class WebSiteMode(WebTool):
    name = "web_site_mode"
    changes_page = True
    parameters = {
        "type": "object",
        "properties": {
            "mode": {"type": "string", "enum": ["desktop", "mobile"]},
            "site": {"type": "string", "description": "The site; default the current page's."},
        },
        "required": ["mode"],
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        mode = str(args.get("mode") or "")
        if mode not in ("desktop", "mobile"):
            raise BadArguments("web_site_mode: mode is desktop or mobile.")
        current = page_url(session)
        where = str(args.get("site") or "") or current
        if not where:
            raise BadArguments("web_site_mode: no page is open; give the site.")
        setter = getattr(session.port, "set_site_mode", None)
        if setter is not None:
            # The port remembers it and loads the page again when it shows that site.
            site = await setter(where, mode)
            return ToolOutcome(
                text=f"{site} is shown as its {mode} version from now on.", data={"site": site, "mode": mode}
            )
        from mika.cap.web.site_modes import SiteModes

        site = SiteModes(session.options.site_modes_file).set(where, mode)
        said = f"{site} will be shown as its {mode} version from the next page on."
        return ToolOutcome(text=said, data={"site": site, "mode": mode})
