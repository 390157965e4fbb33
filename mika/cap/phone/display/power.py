"""Is the agent's display still powered? `dumpsys display`'s word, with black frames as a hint.

The framework may power a virtual display off on its own (an Android 16 phone was seen
doing it to an idle scrcpy display after a minute or two): its video goes black and it
stays so; scrcpy 3.3.4 cannot keep it awake. A black picture alone proves nothing — an
app may be dark, a key frame may be black while content loads — so the keeper only ever
re-creates a display when `dumpsys display` says that display's state is OFF. Black
frames from the preview's decoder only make that check come sooner.

`dumpsys display` says it in two places, and Android versions differ in which one moves:
- the display device's block under "Display Devices": a virtual display's prints
  `mDisplayState=OFF` (VirtualDisplayDevice.dumpLocked, every version since 5.0: the state
  the power controller asked for), the built-in screen's `mState=OFF`;
- the logical display's `mBaseDisplayInfo=DisplayInfo{"NAME", displayId N", … state OFF,
  … uniqueId "virtual:…" …}`. For a virtual display recent AOSP takes this state from
  VirtualDisplay.setDisplayState (which scrcpy never calls), so it may stay ON while the
  device block says OFF; other builds take it from the power request.
Either saying OFF is OFF. The base info is read, not `mOverrideDisplayInfo`: the real
Android 13 dump in the fixtures has the built-in screen's base `state OFF` while its
stale override still says `state ON`. The two are tied by the display's unique id.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

DUMPSYS_COMMAND = "dumpsys display"
# The state names Display.stateToString prints.
_STATES = r"(ON|OFF|DOZE|DOZE_SUSPEND|ON_SUSPEND|VR|UNKNOWN)"
_INFO = re.compile(r"DisplayInfo\{.*?displayId (\d+)\b.*?\bstate " + _STATES + r"\b")
_INFO_UNIQUE = re.compile(r"DisplayInfo\{.*?displayId (\d+)\b.*?\buniqueId \"([^\"]*)\"")
_DEVICE = re.compile(r'^\s*DisplayDeviceInfo\{".*?": uniqueId="([^"]*)"')
_DEVICE_STATE = re.compile(r"^\s*m(?:Display)?State=" + _STATES + r"\s*$")

BLACK_LEVEL = 12  # no channel of any pixel brighter than this: a black picture
BLACK_FOR_S = 2.0  # black this long (and still black) before it is worth a check
LOOK_EVERY_S = 0.25  # pictures looked at, at most: the decoder makes up to 30 a second


def display_state(dumpsys_output: str, display_id: int) -> str | None:
    """The power state `dumpsys display` gives `display_id`: "OFF" when its device block
    or its base DisplayInfo says OFF, else what they say ("ON", …); None when the output
    does not list the display."""
    lines = dumpsys_output.splitlines()
    info = _info_state(lines, display_id)
    unique = next(
        (m.group(2) for ln in lines if (m := _INFO_UNIQUE.search(ln)) and int(m.group(1)) == display_id), None
    )
    device = _device_state(lines, unique) if unique else None
    if "OFF" in (info, device):
        return "OFF"
    return info or device


def _info_state(lines: list[str], display_id: int) -> str | None:
    # The base info first (the truth); any DisplayInfo of that id when a build has no base.
    for wanted in ("mBaseDisplayInfo=", ""):
        for line in lines:
            if wanted not in line:
                continue
            found = _INFO.search(line)
            if found and int(found.group(1)) == display_id:
                return found.group(2)
    return None


def _device_state(lines: list[str], unique_id: str) -> str | None:
    """`mDisplayState=` / `mState=` in the block of the device with this unique id."""
    inside = False
    for line in lines:
        head = _DEVICE.match(line)
        if head:
            inside = head.group(1) == unique_id
            continue
        if inside:
            if not line.startswith("    "):  # the block ended
                inside = False
                continue
            found = _DEVICE_STATE.match(line)
            if found:
                return found.group(1)
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
