"""What the web tools of one run share: the browser port, the page reader, and what the run
learned about sites (risk-control pages met, page pacing, the secrets typed)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mika.cap.web.options import WebOptions
from mika.cap.web.port import WebPort
from mika.cap.web.reader import WebReader

if TYPE_CHECKING:
    from mika.tool.context import ToolContext


@dataclass
class WebSession:
    port: WebPort
    reader: WebReader
    options: WebOptions = field(default_factory=WebOptions)
    # Registers a secret the user's text carries (a password typed into a field) with the
    # run's redactor, so the record never holds it; None when nothing redacts.
    redact: Callable[[str], None] | None = None
    # Site (registrable domain) → the sentence of the risk-control page met there. A second
    # navigate to such a site in this run is refused with it: retrying a captcha or a
    # "unusual traffic" page in a loop is exactly what gets an account locked.
    blocked: dict[str, str] = field(default_factory=dict)
    # wpage's PagePacing (dwell between pages of one site, page limits); None: no pacing.
    pacing: Any = None
    # The tab's data-response count when the last scroll down started (None: no scroll
    # down since the last page-changing action): more since then means it loaded more.
    scrolled_at: int | None = None
    # Where the last acting call aimed (tool, x, y, the element's label), for web_diagnose.
    last_target: tuple[str, float, float, str] | None = None

    @property
    def port_id(self) -> int:
        return id(self.port)


def session_of(ctx: ToolContext) -> WebSession:
    session = ctx.service(WebSession)
    if session is None:
        from mika.tool.errors import ToolFault

        raise ToolFault("Mika's browser is not on in this run (the web capability is off).", code="no_browser")
    return session
