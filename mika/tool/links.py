"""`LinkReader`: a link the run only needs to read, read in Mika's own browser.

`phone_open_link` asks the run for one (`ctx.service(LinkReader)`) when the link is
http(s) and the run only reads: the page is read in Mika's browser instead of opening an
app on the phone (issue 15, seed §6). The web capability implements it; the phone never
knows the web (capabilities do not import each other), only this protocol in the core.
"""

from __future__ import annotations

import abc

from mika.tool.declaration import ToolOutcome


class LinkReader(abc.ABC):
    # Found by this base class whatever the implementation's class is (services_by_type).
    service_protocol = True

    @abc.abstractmethod
    async def read_link(self, url: str) -> ToolOutcome:
        """Open `url` (http or https) in Mika's browser and return what the page says, as a
        web tool's result would (fenced: a page's words are untrusted). Never raises for
        a page that cannot be had: that is an error outcome."""
        ...
