"""Reading the page: web_observe, web_list_elements, web_screenshot."""

from __future__ import annotations

import json
from typing import Any

from mika.cap.web.fenced import listing_observation, page_line, text_observation
from mika.cap.web.tools.barrier import barrier_outcome, check_barrier
from mika.cap.web.tools.base import WebTool
from mika.model.messages import Image
from mika.observe.observation import Observation, ObsKind
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome
from mika.uistate import Screen


def page_data(screen: Screen, url: str) -> dict[str, Any]:
    return {"page_version": screen.version, "url": url, "elements": len(screen.elements)}


async def show_page(tool: WebTool, ctx: ToolContext, text: str = "") -> ToolOutcome:
    """Read the page, give the model its listing, and say so when it is a risk-control page."""
    session = tool.session(ctx)
    reader = session.reader
    screen = await reader.read(whole=False)
    read = reader.last
    assert read is not None  # set by the read just made
    if session.pacing is not None:
        session.pacing.page_seen(read.state.url)
    reader.mark_shown(screen)
    tabs = await reader.count_tabs()
    obs, shown = listing_observation(screen, read, ctx.step, reader, tabs)
    outcome = ToolOutcome(
        text=f"{text}\n\n{shown}" if text else shown, observations=(obs,), data=page_data(screen, read.state.url)
    )
    barrier = check_barrier(session, read, screen)
    return barrier_outcome(outcome, barrier, read) if barrier is not None else outcome


class WebObserve(WebTool):
    name = "web_observe"
    risk = Risk.READ
    parameters = {"type": "object", "properties": {}}

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        return await show_page(self, ctx)


class WebListElements(WebTool):
    name = "web_list_elements"
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {
            "only_actionable": {"type": "boolean", "description": "Leave out plain text; default false."},
        },
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        reader = session.reader
        # The whole document, numbered: these numbers can be tapped like the listing's
        # (the tap scrolls the element into view first).
        screen = await reader.read(whole=True)
        read = reader.last
        reader.mark_shown(screen)
        rows = []
        view_h = read.viewport[1] if read is not None else 0
        for e in screen.elements:
            if args.get("only_actionable") and not e.actionable:
                continue
            where = "above" if e.bounds.bottom <= 0 else "below" if e.bounds.top >= view_h else "in view"
            rows.append({"n": e.number, "role": e.role, "label": e.label, "states": list(e.states), "where": where})
        head = f"Page v{screen.version}, every element of the document ({len(rows)})\n{page_line(read, reader.tabs)}"
        obs = text_observation(
            "\n".join(json.dumps(r, ensure_ascii=False) for r in rows), read, ctx.step, head=head, title="elements"
        )
        url = read.state.url if read is not None else ""
        return ToolOutcome(text=obs.text, observations=(obs,), data=page_data(screen, url))


class WebScreenshot(WebTool):
    name = "web_screenshot"
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {"full_page": {"type": "boolean", "description": "The whole page, not just the view."}},
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        png = await session.port.screenshot(full_page=bool(args.get("full_page")))
        obs = Observation.build(ObsKind.READ, "web", "screenshot", title="screenshot", image=Image(png), step=ctx.step)
        return ToolOutcome(text="Screenshot of the page attached.", image=Image(png), observations=(obs,))
