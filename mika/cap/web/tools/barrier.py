"""Risk-control pages (captcha frames, "unusual traffic", rate-limit statuses) found after a
navigate, an action or a read: the result says so and tells the model to hand the page to
the user; the site is remembered so a second navigate to it in this run is refused."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mika.cap.web.port import PageRead
from mika.cap.web.reader import site_of
from mika.cap.web.session import WebSession
from mika.resources import prompt
from mika.tool.declaration import ToolOutcome
from mika.uistate import Screen

# Every risk-control page is one result code (the model's rule is one: hand it over);
# which kind it was goes in the result's data and sentence.
CODE = "access_blocked"
_KIND_WORDS = {
    "captcha": "a captcha (human verification)",
    "rate_limited": "a rate limit (too many requests)",
    "access_blocked": "a risk-control block (access refused as unusual)",
}


def recognise(read: PageRead, text: str) -> Any:
    from mika.cap.web.barrier import recognise as wpage_recognise

    return wpage_recognise(read, text)


def check_barrier(session: WebSession, read: PageRead, screen: Screen | None = None) -> Any:
    """The barrier the page shows (mika.cap.web.barrier), or None; a barrier's site is
    remembered in the session."""
    text = " ".join(screen.texts()) if screen is not None else ""
    barrier = recognise(read, text)
    if barrier is not None:
        site = site_of(read.state.url)
        if site:
            session.blocked[site] = _KIND_WORDS.get(barrier.kind, barrier.kind)
    return barrier


def barrier_sentence(kind: str, site: str) -> str:
    return prompt("feedback/web_barrier.md").format(kind=kind, what=_KIND_WORDS.get(kind, kind), site=site)


def barrier_outcome(result: ToolOutcome, barrier: Any, read: PageRead) -> ToolOutcome:
    site = site_of(read.state.url)
    said = barrier_sentence(barrier.kind, site)
    return replace(
        result,
        ok=False,
        code=CODE,
        text=f"{said}\n\n{result.text}",
        data={**result.data, "barrier": barrier.kind, "evidence": barrier.evidence, "site": site},
    )


def blocked_refusal(session: WebSession, url: str) -> ToolOutcome | None:
    """A navigate to a site that already showed a risk-control page in this run: refused."""
    site = site_of(url)
    said = session.blocked.get(site)
    if said is None:
        return None
    return ToolOutcome.error(
        "site_blocked", prompt("feedback/web_site_blocked.md").format(site=site, said=said), site=site
    )
