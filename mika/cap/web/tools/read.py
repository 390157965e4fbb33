"""web_read_page: an address (or the current page) → its main text, cut to a budget.

Enough on its own (EntryKind.ALONE): answering a question from a page needs no element
numbers. The text is the page's (readability-style, no menus or footers), fenced with the
page's address as its place, so an answer can name its sources.
"""

from __future__ import annotations

from typing import Any

from mika.action.risk import RiskClass, classify_place
from mika.cap.web.fenced import text_observation
from mika.cap.web.port import WebError
from mika.cap.web.reader import without_fragment
from mika.cap.web.session import WebSession
from mika.cap.web.tools.barrier import barrier_outcome, blocked_refusal, check_barrier
from mika.cap.web.tools.base import WebTool, pace
from mika.resources import prompt
from mika.tool.context import ToolContext
from mika.tool.declaration import EntryKind, Risk, ToolOutcome
from mika.tool.links import LinkReader

BUDGET = 6000  # characters of main text by default
BUDGET_MAX = 20000


def payment_place_refusal(url: str) -> ToolOutcome | None:
    """A read-only open is no way around the payment check: an address that reads as
    checkout / pay / order is opened only by web_navigate, which asks (seed: payments asked)."""
    if classify_place(url).risk is RiskClass.NONE:
        return None
    return ToolOutcome.error("payment_address", prompt("feedback/web_payment_address.md").format(url=url))


class WebReadPage(WebTool):
    name = "web_read_page"
    risk = Risk.READ
    entry = EntryKind.ALONE
    parameters = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "The http(s) address to read; default the current page."},
            "max_chars": {"type": "integer", "description": f"Budget of text; default {BUDGET}."},
        },
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        budget = max(200, min(int(args.get("max_chars") or BUDGET), BUDGET_MAX))
        url = str(args.get("url") or "").strip()
        reader = session.reader
        waited = 0
        if url and (reader.last is None or without_fragment(reader.last.state.url) != without_fragment(url)):
            refused = blocked_refusal(session, url) or payment_place_refusal(url)
            if refused is not None:
                return refused
            stop, waited = await pace(session, ctx, "navigate", url)
            if stop is not None:
                return stop
            await session.port.open(url)
        return await main_text_outcome(session, budget, ctx.step, waited)


async def main_text_outcome(session: WebSession, budget: int, step: int = 0, waited: int = 0) -> ToolOutcome:
    """The current page's main text as a result: fenced, its address as the place and the
    source, a risk-control page said as such."""
    reader = session.reader
    screen = await reader.read()
    read = reader.last
    assert read is not None  # set by the read just made
    if session.pacing is not None:
        session.pacing.page_seen(read.state.url)
    barrier = check_barrier(session, read, screen)
    text, cut = await session.port.main_text(budget)
    title = read.state.title.strip()
    body = "\n".join(p for p in (f"# {title}" if title else "", text.strip()) if p)
    status = f" · HTTP {read.state.status}" if read.state.status and read.state.status >= 400 else ""
    head = f"Main text of {read.state.url}{status}" + (f" · cut to {budget} characters" if cut else "")
    obs = text_observation(body or "(the page has no main text)", read, step, head=head)
    outcome = ToolOutcome(
        text=obs.text,
        observations=(obs,),
        data={"url": read.state.url, "cut": cut, "chars": len(text), "sources": [read.state.url]},
        wait_ms=waited,
    )
    return barrier_outcome(outcome, barrier, read) if barrier is not None else outcome


class WebLinkReader(LinkReader):
    """phone_open_link's way to read an http(s) link in Mika's browser (mika.tool.links)."""

    def __init__(self, session: WebSession) -> None:
        self.session = session

    async def read_link(self, url: str) -> ToolOutcome:
        session = self.session
        refused = blocked_refusal(session, url) or payment_place_refusal(url)
        if refused is not None:
            return refused
        try:
            await session.port.open(url)
            return await main_text_outcome(session, BUDGET)
        except WebError as exc:
            return ToolOutcome.error(exc.code, str(exc))
