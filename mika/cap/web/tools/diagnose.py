"""web_diagnose: what the page is — a risk-control page, a dialog, still loading, an error
status, frames — and what to do about it."""

from __future__ import annotations

from typing import Any

from mika.cap.web.fenced import fence_attrs, page_line
from mika.cap.web.tools.barrier import barrier_sentence, check_barrier
from mika.cap.web.tools.base import WebTool
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome


class WebDiagnose(WebTool):
    name = "web_diagnose"
    risk = Risk.READ
    parameters = {"type": "object", "properties": {}}

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        reader = session.reader
        screen = await reader.read()
        read = reader.last
        assert read is not None  # set by the read just made
        tabs = await reader.count_tabs()
        attrs = fence_attrs(read.state.url)
        lines = [page_line(read, tabs)]
        data: dict[str, Any] = {"url": read.state.url, "status": read.state.status, "loading": read.state.loading}
        barrier = check_barrier(session, read, screen)
        if barrier is not None:
            from mika.cap.web.reader import site_of

            lines.append(barrier_sentence(barrier.kind, site_of(read.state.url)))
            data["barrier"] = barrier.kind
        if read.dialog:
            lines.append(
                f"A dialog box is open: {fence(read.dialog, attrs, block=False)} — web_press_key Enter accepts it, "
                "Escape dismisses it."
            )
        if read.state.loading:
            lines.append("The page is still loading: web_wait_for network_quiet, then look again.")
        status = read.state.status
        if status and status >= 400:
            lines.append(f"The server answered HTTP {status}: the page is an error page, not the content.")
        if read.frames:
            shown = ", ".join(read.frames[:8])
            lines.append(f"Frames in the page ({len(read.frames)}): {fence(shown, attrs, block=False)}")
        if not screen.elements:
            lines.append("The accessibility tree names nothing here: try web_read_page or web_screenshot.")
        if len(lines) == 1:
            lines.append("Nothing stands in the way: the page is loaded and shows no dialog or barrier.")
        if session.last_target is not None:
            tool, x, y, label = session.last_target
            what = fence(label, attrs, block=False) if label else "an element"
            lines.append(f"The last {tool} clicked {what} at {round(x)},{round(y)}.")
        return ToolOutcome(text="\n".join(lines), data=data)
