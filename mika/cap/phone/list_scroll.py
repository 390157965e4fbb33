"""One scroll of a long read, and whether the list really ended.

A long read (phone_collect, phone_find) must never call a list ended because it looked
too soon. A swipe on the run's own display goes over the control channel and lands a
moment after it was sent; a real list keeps moving after the finger lifts; a list that
loads more shows a spinner for a while before its next page. So after each swipe the
list is read until it shows the scroll (`settle`: the first changed idle dump ends the
wait), and "no change" needs evidence, not one read:

1. the list stayed the same for END_QUIET_S;
2. no "Loading more" spinner is on it (one is waited out, up to LOADING_S);
3. a second swipe, waited out the same way, moved nothing either.

Only then is it the end. A list that never moves (a frozen app) is also called ended
after those two swipes; a long read then says how far it got, so the model can tell.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from mika.cap.phone.session import PhoneSession
from mika.uistate import Screen
from mika.uistate.until_wait import settle

SETTLE_S = 2.0  # at most this long for one swipe to show on the list
END_QUIET_S = 0.6  # an unchanged list is only taken as unmoved after this long
LOADING_S = 6.0  # at most this long for a "Loading more" spinner to give way
LOADING_POLL_S = 0.15
TRIES = 2  # swipes that must each move nothing before the list is called ended

Path = tuple[int, int, int, int]
Key = Callable[[Screen], Hashable]


@dataclass(frozen=True)
class Scrolled:
    screen: Screen
    moved: bool  # the list shows something it did not before
    swipes: int  # swipes this took (1, or more when the first moved nothing)
    waited_loading: bool = False  # a "Loading more" spinner was waited out


def loading(screen: Screen) -> bool:
    """A spinner is on screen: the app is still fetching (a page of a list, a screen)."""
    return any(
        n.visible_to_user and "progressbar" in (n.class_name or "").casefold() and n.bounds.area > 0
        for n in screen.tree.nodes()
    )


async def scroll_and_read(
    session: PhoneSession,
    screen: Screen,
    path: Callable[[Screen], Path],
    ms: int,
    *,
    key: Key = lambda s: s.content_key(),
    clock: Callable[[], float] = time.monotonic,
) -> Scrolled:
    """Swipe along `path(screen)` and read the list once it shows the swipe. `key` says
    what counts as a change (the list's rows, or the whole screen)."""
    before = key(screen)
    waited = False
    current = screen
    for attempt in range(1, TRIES + 1):
        await session.port.swipe(session.display, *path(current), ms)
        current = (await settle(session.reader.read, current, cap_s=SETTLE_S, quiet_s=END_QUIET_S)).screen
        if key(current) != before:
            return Scrolled(current, True, attempt, waited)
        if loading(current):
            waited = True
            current = await settled_load(session, current, clock, lambda s: key(s) != before)
            if key(current) != before:
                return Scrolled(current, True, attempt, waited)
    return Scrolled(current, False, TRIES, waited)


async def settled_load(
    session: PhoneSession,
    screen: Screen,
    clock: Callable[[], float] = time.monotonic,
    changed: Callable[[Screen], bool] = lambda s: False,
) -> Screen:
    """The screen once its spinner is gone (or `changed` says it moved), up to LOADING_S:
    a long read that starts on "Searching…" waits for the list instead of calling the
    screen unreadable, and a list's "Loading more" row is waited out for its next page."""
    deadline = clock() + LOADING_S
    while loading(screen) and not changed(screen) and clock() < deadline:
        await asyncio.sleep(LOADING_POLL_S)
        screen = await session.reader.read()
    return screen
