"""Is the agent's display still powered? `dumpsys display`'s word, with black frames as a hint.

The framework may power a virtual display off on its own (an Android 16 phone was seen
doing it to an idle scrcpy display after a minute or two): its video goes black and it
stays so; scrcpy 3.3.4 cannot keep it awake. A black picture alone proves nothing — an
app may be dark, a key frame may be black while content loads — so the keeper only ever
re-creates a display when `dumpsys display` says that display's state is OFF. Black
frames from the preview's decoder only make that check come sooner.

`dumpsys display` prints, per logical display, `mBaseDisplayInfo=DisplayInfo{"NAME",
displayId N", … state OFF, …}`. The base info is the truth: the real Android 13 dump in
the fixtures has the built-in screen's base `state OFF` while its stale
`mOverrideDisplayInfo` still says `state ON`.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

DUMPSYS_COMMAND = "dumpsys display"
# The state names Display.stateToString prints.
_STATES = "ON|OFF|DOZE|DOZE_SUSPEND|ON_SUSPEND|VR|UNKNOWN"
_BASE_INFO = re.compile(r"mBaseDisplayInfo=DisplayInfo\{.*?displayId (\d+)\b.*?\bstate (" + _STATES + r")\b")
_ANY_INFO = re.compile(r"DisplayInfo\{.*?displayId (\d+)\b.*?\bstate (" + _STATES + r")\b")

BLACK_LEVEL = 12  # no channel of any pixel brighter than this: a black picture
BLACK_FOR_S = 2.0  # black this long (and still black) before it is worth a check
LOOK_EVERY_S = 0.25  # pictures looked at, at most: the decoder makes up to 30 a second


def display_state(dumpsys_output: str, display_id: int) -> str | None:
    """The power state `dumpsys display` gives `display_id` ("ON", "OFF", …); None when
    the output does not list it."""
    for pattern in (_BASE_INFO, _ANY_INFO):
        for line in dumpsys_output.splitlines():
            found = pattern.search(line)
            if found and int(found.group(1)) == display_id:
                return found.group(2)
    return None


def is_black(image: object) -> bool:
    """Every pixel of a PIL picture dark: the extrema of each band stay below BLACK_LEVEL."""
    extrema = image.getextrema()  # type: ignore[attr-defined]
    if extrema and isinstance(extrema[0], int):  # one band: (min, max)
        extrema = (extrema,)
    return all(high <= BLACK_LEVEL for _low, high in extrema)


class BlackWatch:
    """Fed each decoded picture of one display; `suspicious` once the pictures have been
    black for BLACK_FOR_S seconds in a row (one black frame, or black for a moment while
    an app loads, never is). A picture with content clears it."""

    def __init__(self, black_for_s: float = BLACK_FOR_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.black_for_s = black_for_s
        self.clock = clock
        self._since: float | None = None  # when the current black run began
        self._looked = -1e9
        self._lock = threading.Lock()

    def saw(self, image: object) -> None:
        now = self.clock()
        if self._since is None and now - self._looked < LOOK_EVERY_S:
            # Sampled while the pictures have content; every one is looked at while they
            # are black, so the first lit picture ends a black run at once.
            return
        self._looked = now
        black = is_black(image)
        with self._lock:
            if not black:
                self._since = None
            elif self._since is None:
                self._since = self.clock()

    @property
    def suspicious(self) -> bool:
        with self._lock:
            return self._since is not None and self.clock() - self._since >= self.black_for_s

    def clear(self) -> None:
        with self._lock:
            self._since = None
