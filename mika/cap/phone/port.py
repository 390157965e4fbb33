"""`AndroidPort`: everything the phone tools need from a device, and nothing more.

Every call that reads or touches a screen takes a display id, so nothing above the port
assumes there is only one (the virtual display comes later). The ADB implementation is
`mika.cap.phone.adb.port.AdbPort`; the tools see only this protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mika.cap.phone.picture import Picture


@dataclass(frozen=True)
class DeviceInfo:
    """Read once per connection; decides the paths the port takes."""

    serial: str
    model: str = ""
    release: str = ""  # Android version as shown to people, e.g. "14"
    sdk: int = 0
    transport: str = "usb"  # usb | tcp | tls
    size: tuple[int, int] | None = None  # display 0, physical pixels
    features: frozenset[str] = field(default_factory=frozenset)

    @property
    def input_takes_display(self) -> bool:
        # `input -d DISPLAY` exists from Android 10 (API 29).
        return self.sdk >= 29


@dataclass(frozen=True)
class Foreground:
    package: str = ""
    activity: str = ""  # "pkg/.Activity" when known


@dataclass(frozen=True)
class ShellResult:
    exit_code: int
    output: str


class AndroidPort(Protocol):
    serial: str

    async def info(self) -> DeviceInfo: ...

    async def dump_hierarchy(self, display: int) -> str:
        """The UI tree as XML (either dump format)."""
        ...

    async def screenshot(self, display: int, max_side: int | None = None) -> Picture:
        """The display's picture, checked and decoded once (mika.cap.phone.picture); raises
        ScreenshotError subclasses for corrupted/secure captures. `max_side`: the picture is
        only for a model that needs its long side no larger, so the phone may send it smaller
        (never smaller than that); None: the full capture."""
        ...

    async def foreground(self, display: int) -> Foreground: ...

    async def tap(self, display: int, x: int, y: int) -> None: ...

    async def long_press(self, display: int, x: int, y: int, ms: int = 800) -> None: ...

    async def swipe(self, display: int, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None: ...

    async def stroke(self, display: int, pointers: list[list[tuple[int, int, int]]]) -> str:
        """Fingers moved along timed paths, each a list of (ms from the first touch, x, y);
        two or more fingers need the agent's display (its control channel). Returns the
        way it was sent: "control" (every point at its time) or "input_swipe" (one finger,
        straight from its first point to its last)."""
        ...

    async def key(self, display: int, key: str) -> None:
        """A key by its Android name without the KEYCODE_ prefix: BACK, HOME, ENTER…"""
        ...

    async def type_text(self, display: int, text: str, *, existing: str = "") -> str:
        """Type into the focused field, which holds `existing`; returns the method used."""
        ...

    async def clear_text(self, display: int, length: int = 0) -> None: ...

    async def start_activity(
        self,
        display: int,
        *,
        action: str | None = None,
        data: str | None = None,
        mime: str | None = None,
        component: str | None = None,
        package: str | None = None,
        extras: dict[str, object] | None = None,
    ) -> ShellResult: ...

    async def launch_app(self, display: int, package: str) -> ShellResult: ...

    async def launchable_apps(self) -> dict[str, str]:
        """Launchable packages → their labels (the package name when no label is known)."""
        ...

    async def shell(self, command: str, timeout: float = 20.0) -> ShellResult: ...

    async def pull(self, path: str, dest: Path, max_bytes: int) -> int:
        """Copy the phone's file `path` (sync RECV) into `dest`, a new local file; returns
        its size. Raises PullError when it is missing, not a plain file or over
        `max_bytes` (nothing is left at `dest` then)."""
        ...

    async def close(self) -> None: ...


class PullError(Exception):
    """A file could not be pulled from the phone; the sentence says why."""


class LongExtra(int):
    """An intent extra Android must receive as a long (`am … --el`), e.g. calendar times."""
