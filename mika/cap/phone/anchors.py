"""Route anchors on the phone (seed §9): what element a call acted on, and finding it again.

An anchor is what names an element on another read of the same page — its label, resource
id, role and content description — never its number or its bounds. A place is the app
and activity in front (and the page's title, for the hand-over note). At replay an anchor
must match exactly one element of a fresh read, on the same place; otherwise the step is
not guessed: the replay hands over (AnchorMissing says why).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from mika.cap.phone.session import PhoneSession
from mika.tool.declaration import AnchorMissing
from mika.uistate import Element, Screen, StaleElement, UnknownElement

_ANCHOR_KEYS = ("label", "resource_id", "role", "desc")
POINT_KEYS = ("x", "y", "x1", "y1", "x2", "y2")
# How long a replay step waits for its place and anchor to show (a page still loading)
# before it hands over; polled on fresh reads, never a fixed sleep.
ANCHOR_WAIT_S = 3.0
ANCHOR_POLL_S = 0.15


def place_of(screen: Screen) -> dict[str, str]:
    return {"app": screen.foreground_package, "activity": screen.activity, "title": _title(screen)}


def _title(screen: Screen) -> str:
    # The first labelled text of the app's own window, top to bottom: a page's heading in
    # most apps; only said in the hand-over note, never compared.
    bars = {w.index for w in screen.windows if w.is_bar}
    for e in sorted(screen.elements, key=lambda e: (e.bounds.top, e.bounds.left)):
        if e.window not in bars and e.role == "text" and e.label:
            return e.label
    return ""


def anchor_of(el: Element) -> dict[str, str]:
    return {"label": el.label, "resource_id": el.node.resource_id, "role": el.role, "desc": el.node.content_desc}


def matches(el: Element, anchor: dict[str, str]) -> bool:
    return all(anchor_of(el)[k] == anchor.get(k, "") for k in _ANCHOR_KEYS)


async def anchor_for(args: dict[str, Any], session: PhoneSession, *, place: bool = True) -> dict[str, Any] | None:
    """The place and anchor of a call about to run, from the screen it acts on."""
    if any(args.get(k) is not None for k in POINT_KEYS):
        return None  # a point is a coordinate: nothing a route may keep
    if not place and args.get("element") is None:
        return {"place": {}, "anchor": {}}
    from mika.cap.phone.tools.base import current_screen, resolve_element

    screen = await current_screen(session)
    where = place_of(screen)
    if args.get("element") is None:
        return {"place": where, "anchor": {}}
    try:
        el = resolve_element(session, int(args["element"]))
    except (StaleElement, UnknownElement):
        return None
    anchor = anchor_of(el)
    if not (anchor["label"] or anchor["resource_id"] or anchor["desc"]):
        return None  # nothing names it: on another read it could be any unlabelled element
    if sum(1 for e in screen.elements if matches(e, anchor)) != 1:
        return None  # two alike on the very screen it was recorded from: replay could not tell them apart
    return {"place": where, "anchor": anchor}


async def retarget(
    step_args: dict[str, Any], seen: dict[str, Any], session: PhoneSession, *, wait_s: float = ANCHOR_WAIT_S
) -> dict[str, Any]:
    """The step's arguments with the anchored element's number on a fresh read of the screen.

    The page may still be loading after the step before (search results, a list filling
    in, which the recorded run waited for): reads are repeated for up to `wait_s` until
    the place and the anchor are there; then the last read's difference is the reason."""
    expected = seen.get("place") or {}
    anchor = seen.get("anchor") or {}
    args = {k: v for k, v in step_args.items() if k not in ("element", *POINT_KEYS)}
    if not expected and not anchor:
        return args
    deadline = time.monotonic() + wait_s
    while True:
        screen = await session.reader.read()
        try:
            number = _find(screen, expected, anchor)
        except AnchorMissing:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(ANCHOR_POLL_S)
            continue
        if number is None:
            return args
        # The number belongs to this read: mark it shown, so the tool resolves it against it
        # (and a screen that changes before the tap makes it stale, as for the model).
        session.reader.mark_shown(screen)
        return {**args, "element": number}


def _find(screen: Screen, expected: dict[str, str], anchor: dict[str, str]) -> int | None:
    now = place_of(screen)
    for key, what in (("app", "app"), ("activity", "page")):
        want = expected.get(key, "")
        if want and now[key] != want:
            was = f" ({expected.get('title')})" if expected.get("title") else ""
            shown = f" ({now['title']})" if now["title"] else ""
            raise AnchorMissing(f"expected the {what} {want}{was}, the screen shows {now[key] or 'nothing'}{shown}")
    if not anchor:
        return None
    hits = [e for e in screen.elements if matches(e, anchor)]
    name = (
        f'{anchor.get("role") or "element"} "{anchor.get("label") or anchor.get("desc") or anchor.get("resource_id")}"'
    )
    if not hits:
        raise AnchorMissing(f"{name} is not on the screen")
    if len(hits) > 1:
        raise AnchorMissing(f"{name} is on the screen {len(hits)} times; which one is not guessed")
    return hits[0].number
