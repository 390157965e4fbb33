"""The web capability: Mika's own browser (Playwright driving Chromium), beside the phone.

`port.py` is the line between the web tools and the browser: the tools, the reader and
the surface speak `WebPort` only; `playwright/` holds the one implementation.

`WebCapability` gives the run its web tools (group "web"; `web_navigate` opens it,
`web_read_page` is enough on its own), the prompt section, the shared `WebSession`, and the
SurfaceLayer that checks every page-changing action. `open_web` builds it over the
Playwright port (cheap: the browser starts on the first call that needs it).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from mika.cap.web.options import WebOptions
from mika.cap.web.port import WebPort
from mika.cap.web.reader import WebReader
from mika.cap.web.session import WebSession
from mika.cap.web.surface import WebSurface
from mika.cap.web.tools.diagnose import WebDiagnose
from mika.cap.web.tools.keys import WebPressKey
from mika.cap.web.tools.navigate import WebBack, WebNavigate
from mika.cap.web.tools.observe import WebListElements, WebObserve, WebScreenshot
from mika.cap.web.tools.read import WebLinkReader, WebReadPage
from mika.cap.web.tools.script import WebEvaluateJs
from mika.cap.web.tools.site_mode import WebSiteMode
from mika.cap.web.tools.tabs import WebTabs
from mika.cap.web.tools.text import WebClearText, WebTypeText
from mika.cap.web.tools.touch import WebScroll, WebTap
from mika.cap.web.tools.wait import WebWaitFor
from mika.resources import prompt
from mika.tool.declaration import AgentTool

if TYPE_CHECKING:
    from mika.action.input_gate import InputGate

__all__ = ["WebCapability", "WebSession", "open_web"]


def _pacing(pace: str, clock: Callable[[], float]) -> Any:
    """wpage's PagePacing for the run's pace: none at "fast" (tests, evaluations)."""
    if pace == "fast":
        return None
    from mika.cap.web.pacing import PagePacing

    return PagePacing(clock=clock, rng=random.Random())


class WebCapability:
    id = "web"
    group = "web"

    def __init__(
        self,
        port: WebPort,
        options: WebOptions | None = None,
        *,
        redact: Callable[[str], None] | None = None,
        images: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.port = port
        self.options = options or WebOptions()
        self.reader = WebReader(port)
        self.session = WebSession(
            port, self.reader, self.options, redact=redact, pacing=_pacing(self.options.pace, clock)
        )
        tools: list[AgentTool] = [
            WebNavigate(),
            WebReadPage(),
            WebObserve(),
            WebListElements(),
            WebTap(),
            WebTypeText(),
            WebClearText(),
            WebScroll(),
            WebPressKey(),
            WebBack(),
            WebTabs(),
            WebWaitFor(),
            WebEvaluateJs(),
            WebDiagnose(),
            WebSiteMode(),
        ]
        if images:
            # A picture of the page only for a main model that sees images.
            tools.append(WebScreenshot())
        self._tools = tools
        self.surface = WebSurface(self.session, {t.name: t for t in tools})
        # phone_open_link hands an http(s) link the run only reads to this browser.
        self.link_reader = WebLinkReader(self.session)

    def tools(self) -> Sequence[AgentTool]:
        return list(self._tools)

    def bind_gate(self, gate: InputGate) -> None:
        """The run's InputGate judges every input the web tools send and every page the
        browser is about to show (mika.cap.web.gated_port). The live preview and a
        person's hand-over window keep the browser's own port: they act for the user."""
        from mika.cap.web.gated_port import GatedWebPort

        self.session.port = GatedWebPort(self.port, gate, self.session)

    def prompt_section(self) -> str | None:
        return prompt("capabilities/web.md")

    def services(self) -> Sequence[object]:
        return (self.session, self.link_reader)

    async def close(self) -> None:
        await self.port.close()


def open_web(
    options: WebOptions, *, vision: Any = None, redact: Callable[[str], None] | None = None, images: bool = True
) -> WebCapability:
    """The web capability over Playwright's Chromium; nothing starts until the first page."""
    from mika.cap.web.playwright import PlaywrightWebPort

    return WebCapability(PlaywrightWebPort(options), options, redact=redact, images=images)
