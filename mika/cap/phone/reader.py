"""Reading a display of the phone into a versioned `Screen`.

Dump → parse → number → (when the tree can't be trusted) read text from pixels and
merge what the tree lacks → stamp a version. A broken dump (garbage XML, a transient
null root) is read again a bounded number of times before it is reported. The first
time a screen of an app is read, `on_app_seen(package)` tells whoever listens (the
core injects that app's knowledge).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace

from mika.cap.phone.empty_area import nothing_drawn
from mika.cap.phone.picture import Picture
from mika.cap.phone.port import AndroidPort
from mika.cap.phone.screenshot import ScreenshotError
from mika.resources import prompt
from mika.tool.errors import ToolFault
from mika.uistate import (
    Adequacy,
    HierarchyError,
    Screen,
    ScreenTracker,
    TreeAdequacy,
    UiTree,
    build_screen,
    parse_hierarchy,
)

log = logging.getLogger(__name__)

PARSE_TRIES = 3
BUILT_KEPT = 8  # screens kept by their dump: a few places a run goes back and forth between
FRESH_S = 0.4  # a read this recent is reused by the lock check and the action after it


class ScreenUnreadable(ToolFault):
    code = "screen_unreadable"


# Text lines read from a decoded picture (mika.cap.phone.ocr.read_text).
OcrReader = Callable[[Picture], tuple]

_BuildKey = tuple[str, str, tuple[int, int] | None, int]  # dump text, activity, size, display


@dataclass
class _Built:
    """A screen built from one dump, and what was judged of it (kept with it)."""

    screen: Screen
    # Whether its tree needs OCR: the same answer for the same screen, and worked out on
    # every read otherwise (~1 ms of an action's few; issue 35).
    adequacy: Adequacy | None = None


class ScreenReader:
    def __init__(
        self,
        port: AndroidPort,
        display: int = 0,
        *,
        ocr: OcrReader | None = None,
        on_app_seen: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.port = port
        self.display = display
        self.display_size: tuple[int, int] | None = None  # of a display other than 0
        self.tracker = ScreenTracker()
        self.ocr = ocr
        self.on_app_seen = on_app_seen
        self.clock = clock
        self.apps_seen: list[str] = []
        self.shown_version: int | None = None  # the version whose listing the model last got
        # Listings may be sent as deltas against the last full one (mika.cap.phone.fenced);
        # False for readers whose listings go to someone who cannot look an observation
        # id up (an MCP client driving the phone itself): every listing then goes whole.
        self.deltas = True
        self._read_at = -1e9
        self._ocr_cache: dict[str, tuple] = {}
        # The screens last built from a dump, by the dump's exact text and what was read
        # with it: a dump seen again (the settle's second read, a screen come back to) is
        # not parsed and built again (issue 35). Screens are immutable; versions are
        # stamped by the tracker on every read, not kept here.
        self._built: OrderedDict[_BuildKey, _Built] = OrderedDict()
        self._lock = asyncio.Lock()
        # Set when someone else may have used the phone (a takeover): until the next read,
        # nothing read before is handed out as the current screen.
        self._stale = False
        # Inputs sent to this phone so far (the gated port counts each one as it sends it),
        # and how many had been sent when the current screen's read began: a read from
        # before the last input is not the screen the next input lands on.
        self.inputs_sent = 0
        self._read_after = -1

    def switch_display(self, display: int, size: tuple[int, int] | None = None) -> None:
        """Read another display from now on; nothing read of the previous one is kept,
        so an element number seen there can never be tapped here."""
        self.display = display
        self.display_size = size
        # Versions go on counting and the history is dropped: a number the model saw on
        # the old display is stale here, never resolved against the new one.
        self.tracker.mark_moved()
        self._read_at = -1e9
        self._read_after = -1
        self._ocr_cache = {}

    def forget(self) -> None:
        """The screen may have changed behind the agent's back (a person had the phone):
        the next look reads it afresh instead of reusing what was read before."""
        self._stale = True
        self._read_at = -1e9
        self._read_after = -1

    @property
    def current(self) -> Screen | None:
        return None if self._stale else self.tracker.current

    def note_input(self) -> None:
        """An input is being sent to the phone: what was read so far may no longer be on it."""
        self.inputs_sent += 1

    @property
    def current_since_input(self) -> Screen | None:
        """The current screen if its read began after the last input was sent, else None."""
        current = self.current
        return current if current is not None and self._read_after == self.inputs_sent else None

    async def read(self, *, reuse_fresh: bool = False) -> Screen:
        async with self._lock:
            if reuse_fresh and self.current is not None and self.clock() - self._read_at < FRESH_S:
                return self.current
            after = self.inputs_sent
            screen = await self._read_once()
            stamped = self.tracker.update(screen)
            self._stale = False
            self._read_at = self.clock()
            self._read_after = after
            package = stamped.foreground_package
            if package and package not in self.apps_seen:
                self.apps_seen.append(package)
                if self.on_app_seen is not None:
                    try:
                        self.on_app_seen(package)
                    except Exception:  # a listener's bug must not break reading the screen
                        log.exception("on_app_seen failed for %s", package)
            return stamped

    async def _read_once(self) -> Screen:
        info = await self.port.info()
        last: HierarchyError | None = None
        size = info.size if self.display == 0 else self.display_size
        for attempt in range(PARSE_TRIES):
            xml = await self.port.dump_hierarchy(self.display)
            tree = self._tree_of(xml)
            if tree is not None:
                break
            try:
                tree = parse_hierarchy(xml)
                break
            except HierarchyError as exc:
                last = exc
                await asyncio.sleep(0.2 * (attempt + 1))
        else:
            raise ScreenUnreadable(
                f"The phone's screen could not be read after {PARSE_TRIES} tries: {last.reason if last else 'no dump'}. "
                "Wait a moment and read the screen again (phone_observe); if it keeps failing, take a "
                "phone_screenshot instead."
            )
        foreground = await self.port.foreground(self.display)
        key = (xml, foreground.activity, size, self.display)
        built = self._built.get(key)
        if built is not None:
            self._built.move_to_end(key)
        else:
            built = self._build(key, tree)
        return await self._with_ocr(built)

    def _tree_of(self, xml: str) -> UiTree | None:
        """The tree parsed from this very dump before, if one is kept."""
        return next((built.screen.tree for key, built in self._built.items() if key[0] == xml), None)

    def _build(self, key: _BuildKey, tree: UiTree) -> _Built:
        _dump, activity, size, display = key
        built = _Built(build_screen(tree, size=size, display_id=display, activity=activity))
        self._built[key] = built
        while len(self._built) > BUILT_KEPT:
            self._built.popitem(last=False)
        return built

    async def _with_ocr(self, built: _Built) -> Screen:
        screen = built.screen
        if self.display != 0 and not screen.windows:
            # The run's own display before an app was started on it: its picture is black
            # because nothing is drawn, not because a secure window hides it.
            return replace(screen, notes=(*screen.notes, prompt("feedback/display_empty.md").strip()))
        if self.ocr is None:
            return screen
        if built.adequacy is None:
            built.adequacy = TreeAdequacy.assess(screen)
        adequacy = built.adequacy
        if not adequacy.needs_ocr:
            return screen
        key = screen.content_key()
        lines = self._ocr_cache.get(key)
        if lines is None:
            try:
                picture = await self.port.screenshot(self.display)
                blank, size = adequacy.blank, screen.size
                empty: bool = bool(blank) and await asyncio.to_thread(nothing_drawn, picture, blank, size)
                if empty:
                    # Blank in the tree and in the picture: a sparse page, nothing for OCR to find.
                    self._ocr_cache = {key: ()}
                    return screen
                lines = tuple(await asyncio.to_thread(self.ocr, picture))
            except ScreenshotError as exc:
                return replace(screen, notes=(*screen.notes, f"Text could not be read from the picture: {exc}"))
            except Exception as exc:  # OCR is a helper: without it the tree listing still stands
                log.warning("OCR failed: %s", exc)
                return screen
            self._ocr_cache = {key: lines}
        from mika.cap.phone.ocr import merge_ocr

        return merge_ocr(screen, lines)

    def mark_shown(self, screen: Screen) -> None:
        self.shown_version = screen.version
