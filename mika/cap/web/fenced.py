"""The page as the model reads it: Mika's lines around the page's fenced content.

    Screen v3 · 127.0.0.1 · 1280x800                       ← Mika's header (the phone's)
    Page http://127.0.0.1:8123/shop/tea · 40% down · 1 tab ← Mika's line: where, how far, tabs
    <untrusted source="page" url="http://127.0.0.1:8123/shop/tea">
    == page "Green Tea — Mika Shop"                       ← the page's title: the page's words
    1 link "Home"
    2 button "Buy now"
    </untrusted>

The element lines are the phone's listing format (mika.uistate.listing), built from the
accessibility tree, never from HTML. The fence is put on once, here, where the observation
is built (DESIGN §3); everything a page says — its title and every label — is inside it.
The address stays in Mika's line because the model needs it to answer with sources; the
browser reports it percent-encoded (no spaces, no angle brackets), and it is defused and
cut all the same.

A page that changed little since the last full listing is sent as what changed, like the
phone's (mika.uistate.delta): same header, a sentence naming the base, the changed lines
fenced alike; a new document always gets the full listing.
"""

from __future__ import annotations

import contextvars
import json
import weakref
from dataclasses import dataclass, replace

from mika.cap.web.port import PageRead
from mika.observe.observation import Observation, ObsKind, Place
from mika.observe.untrusted import defuse, fence
from mika.resources import prompt
from mika.uistate import Screen, listing_parts
from mika.uistate.delta import listing_delta

URL_SHOWN_MAX = 300  # characters of the address in Mika's line
KEYFRAME_DELTAS = 2  # deltas in a row against one full listing (the phone's rule)
DELTAS = True


def fence_attrs(url: str) -> dict[str, str]:
    return {"source": "page", "url": url}


def scroll_words(read: PageRead | None) -> str:
    """ "top", "62% down", "bottom" — or "all in view" for a page no taller than the viewport."""
    if read is None:
        return ""
    room = read.page_size[1] - read.viewport[1]
    y = read.scroll[1]
    if room <= 2:
        return "all in view"
    if y <= 1:
        return "top"
    if y >= room - 2:
        return "bottom"
    return f"{round(100 * y / room)}% down"


def page_line(read: PageRead | None, tabs: int = 1) -> str:
    """Mika's one line about the page: address, scroll position, tabs, loading, dialog."""
    if read is None:
        return ""
    url = defuse(read.state.url)[:URL_SHOWN_MAX]
    parts = [f"Page {url}", scroll_words(read), f"{tabs} tab" + ("s" if tabs != 1 else "")]
    if read.state.status and read.state.status >= 400:
        parts.append(f"HTTP {read.state.status}")
    if read.state.loading:
        parts.append("still loading")
    if read.state.mobile:
        parts.append("mobile version")
    return " · ".join(p for p in parts if p)


def _pieces(screen: Screen, read: PageRead | None, tabs: int) -> tuple[str, str, str]:
    """(Mika's head lines, the page's fenced-to-be lines, Mika's remarks and the page's
    dialog fenced on its own)."""
    parts = listing_parts(replace(screen, notes=()))
    head = "\n".join(p for p in (parts.head, page_line(read, tabs)) if p)
    lines = parts.elements.splitlines()
    title = read.state.title.strip() if read is not None else ""
    # The title replaces the tree's window header: it is the page's word like its labels.
    body_lines = [f"== page {json.dumps(title, ensure_ascii=False)}" if title else "== page"]
    # A page is one window: the tree's own window header says nothing the title does not.
    body_lines += [ln for ln in lines if not ln.startswith("== ")]
    elements = "\n".join(body_lines) if screen.elements or title else ""
    tail: list[str] = []
    if parts.remarks:
        tail.append(parts.remarks)
    if read is not None and read.dialog:
        said = fence(read.dialog, fence_attrs(read.state.url), block=False)
        tail.append(f"The page shows a dialog box: {said} — web_press_key Enter accepts it, Escape dismisses it.")
    return head, elements, "\n".join(tail)


def page_observation(screen: Screen, read: PageRead | None, step: int, tabs: int = 1) -> Observation:
    url = read.state.url if read is not None else ""
    title = read.state.title if read is not None else ""
    head, elements, tail = _pieces(screen, read, tabs)
    return Observation.build(
        ObsKind.READ,
        "web",
        elements,
        head=head,
        tail=tail,
        title=f"page v{screen.version}",
        place=Place.page(url, title),
        step=step,
        fence_attrs=fence_attrs(url),
    )


def text_observation(
    text: str, read: PageRead | None, step: int, *, head: str = "", title: str = "page text"
) -> Observation:
    """Other things a page says (its main text, a script's answer, a list of elements),
    fenced with the page's address as their place."""
    url = read.state.url if read is not None else ""
    return Observation.build(
        ObsKind.READ,
        "web",
        text,
        head=head,
        title=title,
        place=Place.page(url, read.state.title if read is not None else ""),
        step=step,
        fence_attrs=fence_attrs(url),
    )


def fenced_page(screen: Screen, read: PageRead | None, tabs: int = 1) -> str:
    """The same text as a page observation's, for results that carry none (a stale
    element's fresh listing)."""
    head, elements, tail = _pieces(screen, read, tabs)
    url = read.state.url if read is not None else ""
    body = fence(elements, fence_attrs(url)) if elements else ""
    return "\n".join(p for p in (head, body, tail) if p)


@dataclass
class _Keyframe:
    version: int
    document: str
    url: str
    elements: str
    observation_id: str
    deltas: int = 0


_keyframes: weakref.WeakKeyDictionary[object, _Keyframe] = weakref.WeakKeyDictionary()
_unseen: contextvars.ContextVar[bool] = contextvars.ContextVar("mika_web_unseen_steps", default=False)


def forget_keyframe(shown_by: object) -> None:
    _keyframes.pop(shown_by, None)


def listing_observation(
    screen: Screen, read: PageRead | None, step: int, shown_by: object, tabs: int = 1
) -> tuple[Observation, str]:
    """The page's observation (the full listing) and the text the model gets for it: the
    same, or what changed since the last full listing `shown_by` (the reader) gave."""
    obs = page_observation(screen, read, step, tabs)
    if _unseen.get() or read is None:
        return obs, obs.text
    head, elements, tail = _pieces(screen, read, tabs)
    base = _keyframes.get(shown_by)
    delta = None
    if (
        DELTAS
        and base is not None
        and base.deltas < KEYFRAME_DELTAS
        and base.version <= screen.version
        and base.document == read.document
        and base.url == read.state.url
    ):
        delta = listing_delta(base.version, base.elements, elements)
    if delta is None:
        _keyframes[shown_by] = _Keyframe(screen.version, read.document, read.state.url, elements, obs.id)
        return obs, obs.text
    assert base is not None  # a delta is only made against a base
    base.deltas += 1
    if delta.lines or delta.gone:
        said = prompt("feedback/screen_delta.md").format(version=delta.base_version, observation=base.observation_id)
        if delta.gone:
            said += " " + prompt("feedback/screen_delta_gone.md").format(numbers=delta.gone_text())
    else:
        said = prompt("feedback/screen_delta_none.md").format(
            version=delta.base_version, observation=base.observation_id, now=screen.version
        )
    body = fence("\n".join(delta.lines), fence_attrs(read.state.url)) if delta.lines else ""
    return obs, "\n".join(p for p in (head, said.strip(), body, tail) if p)
