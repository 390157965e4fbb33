"""Page pacing (seed §6 一页一页看的节奏): dwell between pages of one site, page limits per run.

Pure: the clock and the randomness are handed in, nothing here sleeps or touches a browser.
The web tools tell `PagePacing` when a page came (`page_seen` after an open or a read whose
address changed, ignoring `#`; `note_loaded_more` when a scroll down brought JSON or text
responses) and ask it before an action how long the current page is still owed
(`dwell_before`) and whether the site's page budget is spent (`refusal`).

The numbers are the seed's:
- pages are counted per registrable domain (`registrable_domain`);
- the first page of a site in the last 10 minutes is not dwelt on; the second 4–7 s; each
  further one raises both bounds by 0.6 / 1 s, at most 12 s. A site whose knowledge says
  `pace: careful`: 10–16 s from the second page, same steps, at most 30 s;
- only actions that may change the page owe the dwell (navigate within the site, tap,
  back, key, scroll down, swipe); typing, clearing, scrolling up, reading and going to
  another site owe nothing; time the model spent thinking and reading counts;
- at most 20 pages of one site per run (careful: 12), not reset by the 10-minute window;
  past it navigate / tap / back / key are refused with `page_limit` (scrolling down and
  reading go on); the user answering resets the counts; an outward action done on a site
  lifts its limit for the rest of the run.

`PagePacing.off()` (pace "fast", tests) neither dwells nor limits.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from mika.cap.web.sites import registrable_domain
from mika.resources import prompt

WINDOW_S = 600.0  # "the last 10 minutes" of a site


@dataclass(frozen=True)
class DwellSteps:
    first_s: tuple[float, float]  # the second page of a site in the window
    step_s: tuple[float, float]  # added to the bounds for each further page
    max_s: float
    page_limit: int


NORMAL = DwellSteps((4.0, 7.0), (0.6, 1.0), 12.0, 20)
CAREFUL = DwellSteps((10.0, 16.0), (0.6, 1.0), 30.0, 12)

# Actions that may bring a new page: they owe the current page's dwell.
PAGE_CHANGING = frozenset({"navigate", "tap", "back", "key", "scroll_down", "swipe"})
# Of those, the ones refused past the page limit (scrolling down goes on: seed §6).
LIMITED = frozenset({"navigate", "tap", "back", "key"})
# Everything else the web tools do, for the record: never waits, never refused.
FREE = frozenset({"type", "clear", "scroll_up", "read", "observe", "screenshot", "evaluate", "wait", "tabs"})


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def _without_fragment(url: str) -> str:
    return url.split("#", 1)[0]


@dataclass(frozen=True)
class PageLimit:
    """A refused page-changing action: `code` "page_limit" and the sentence for the model."""

    site: str
    pages: int
    limit: int
    message: str
    code: str = "page_limit"


@dataclass
class _Page:
    site: str
    arrived: float
    dwell_s: float  # what this page is owed before a page-changing action leaves it


class PagePacing:
    """One run's page pacing. `site_pace(host)` says "careful" for a site whose knowledge
    asks for it (looked up by the current host name), "" otherwise."""

    def __init__(
        self,
        *,
        clock: Callable[[], float],
        rng: random.Random,
        site_pace: Callable[[str], str] = lambda _host: "",
        enabled: bool = True,
    ) -> None:
        self._clock = clock
        self._rng = rng
        self._site_pace = site_pace
        self.enabled = enabled
        self._last_url: str | None = None
        self._page: _Page | None = None
        self._recent: dict[str, list[float]] = {}  # site → arrival times (the 10-minute window)
        self._counted: dict[str, int] = {}  # site → pages since the run began / the user answered
        self._lifted: set[str] = set()
        self._careful: dict[str, bool] = {}  # site → whether a host of it asked for careful

    @classmethod
    def off(cls) -> PagePacing:
        """No dwell, no limits (pace "fast", tests, evaluations)."""
        return cls(clock=lambda: 0.0, rng=random.Random(0), enabled=False)

    # ------------------------------------------------------------ pages coming

    def page_seen(self, url: str) -> bool:
        """An open or a read showed `url`; True when it counts as a new page (the address
        changed, ignoring `#`)."""
        if not self.enabled:
            return False
        bare = _without_fragment(url)
        if bare == self._last_url:
            return False
        self._last_url = bare
        self._arrive(url)
        return True

    def note_loaded_more(self, url: str) -> None:
        """A scroll down brought JSON or text responses (the page loaded more): a new page."""
        if not self.enabled:
            return
        self._last_url = _without_fragment(url)
        self._arrive(url)

    def _arrive(self, url: str) -> None:
        site = registrable_domain(url)
        if not site:
            self._page = None
            return
        if self._site_pace(_host(url)) == "careful":
            self._careful[site] = True
        now = self._clock()
        recent = [t for t in self._recent.get(site, []) if now - t < WINDOW_S]
        recent.append(now)
        self._recent[site] = recent
        self._counted[site] = self._counted.get(site, 0) + 1
        self._page = _Page(site, now, self._draw(site, len(recent)))

    def _steps(self, site: str) -> DwellSteps:
        return CAREFUL if self._careful.get(site) else NORMAL

    def _draw(self, site: str, nth: int) -> float:
        """The dwell of the `nth` page of `site` in the window: 0 for the first."""
        if nth <= 1:
            return 0.0
        s = self._steps(site)
        extra = nth - 2
        low = s.first_s[0] + s.step_s[0] * extra
        high = s.first_s[1] + s.step_s[1] * extra
        value = low + (high - low) * self._rng.random()
        return min(s.max_s, value)

    # ------------------------------------------------------------ before an action

    def dwell_before(self, action_kind: str, url: str) -> float:
        """Seconds the current page is still owed before `action_kind` on `url` (the page's
        address; for navigate, the address being opened). 0 for actions that do not change
        the page, for another site, and under `off()`."""
        if not self.enabled or action_kind not in PAGE_CHANGING or self._page is None:
            return 0.0
        if registrable_domain(url) != self._page.site:
            return 0.0
        spent = self._clock() - self._page.arrived
        return max(0.0, self._page.dwell_s - spent)

    def refusal(self, action_kind: str, url: str) -> PageLimit | None:
        """A `PageLimit` when `action_kind` would bring one more page of a site whose budget
        for this run is spent; None when the action may go ahead."""
        if not self.enabled or action_kind not in LIMITED:
            return None
        site = registrable_domain(url)
        if not site or site in self._lifted:
            return None
        if site not in self._careful and self._site_pace(_host(url)) == "careful":
            self._careful[site] = True
        limit = self._steps(site).page_limit
        pages = self._counted.get(site, 0)
        if pages < limit:
            return None
        text = prompt("feedback/web_page_limit.md").format(site=site, pages=pages)
        return PageLimit(site=site, pages=pages, limit=limit, message=text)

    # ------------------------------------------------------------ the run's events

    def user_answered(self) -> None:
        """The user answered (a question, a handed-back takeover): every site counts anew."""
        self._counted.clear()

    def outward_done(self, domain: str) -> None:
        """An outward action (send, submit) was done on this site: no page limit there for
        the rest of the run, whatever the user answers later."""
        site = registrable_domain(domain)
        if site:
            self._lifted.add(site)

    def pages(self, url_or_site: str) -> int:
        """Pages of that site counted towards its limit."""
        return self._counted.get(registrable_domain(url_or_site), 0)
