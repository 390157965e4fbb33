"""The agent display's life during one run: made when first needed, mended, removed.

`DisplayKeeper.ensure()` is called before every phone call of a run that may act:
the first call starts the helper (`DisplayServer`) on a display the size and density of
the main screen; a helper that died since is started again (a new display id — the
session reads the new screen before acting). A read-only run, or a run that never calls
a phone tool, never starts it. Below Android 10, when `[phone] display = "main"`, or when
the helper fails to start, the run works on display 0, with one notice saying why;
Android 10–13 gets a notice that the main screen's focus may blink (the display has no
focus of its own before Android 14).

At the end of the run the helper is stopped. The display was made with
vd_destroy_content=false, so the app the agent used moves to the main screen rather
than being closed: what the run left open (a filled form, a found page) is where the
user can pick it up, and nothing they might want is destroyed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mika.cap.phone.display.jar import JarError, load_jar
from mika.cap.phone.display.packets import StreamHead, VideoPacket
from mika.cap.phone.display.server import DisplayServer, DisplayServerError, DisplaySpec

if TYPE_CHECKING:
    from mika.cap.phone.adb.port import AdbPort

log = logging.getLogger(__name__)

VIRTUAL, MAIN = "virtual", "main"
MODES = (VIRTUAL, MAIN)
MIN_SDK = 29  # Android 10: virtual displays for the shell user
OWN_FOCUS_SDK = 34  # Android 14: the display keeps its own focus


@dataclass(frozen=True)
class DisplayState:
    """Where this run's phone calls go; reported in the run's events."""

    mode: str  # virtual | main
    id: int
    reason: str = ""  # why it is "main" when "virtual" was asked for; empty otherwise
    size: tuple[int, int] | None = None

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"mode": self.mode, "id": self.id}
        if self.reason:
            out["reason"] = self.reason
        return out


Notify = Callable[[str, str], None]  # (level, text)


class DisplayKeeper:
    def __init__(
        self,
        port: AdbPort,
        *,
        mode: str = VIRTUAL,
        notify: Notify | None = None,
        on_state: Callable[[DisplayState], None] | None = None,
        start_timeout: float = 15.0,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown display mode {mode!r}")
        self.port = port
        self.mode = mode
        self.notify: Notify = notify or (lambda level, text: None)
        self.on_state: Callable[[DisplayState], None] = on_state or (lambda state: None)
        self.start_timeout = start_timeout
        self.server: DisplayServer | None = None
        self.state: DisplayState | None = None  # None until the first phone call decided it
        self.starts = 0
        self._lock = asyncio.Lock()
        self._closed = False

    @property
    def planned(self) -> DisplayState:
        """What the run will use, before anything was started (the run's first event)."""
        if self.state is not None:
            return self.state
        return DisplayState(self.mode, 0 if self.mode == MAIN else -1)

    def main_screen(self, reason: str = "") -> DisplayState:
        return DisplayState(MAIN, 0, reason)

    async def ensure(self) -> DisplayState:
        async with self._lock:
            state = self.state
            if state is not None and (state.mode == MAIN or (self.server is not None and self.server.alive)):
                return state
            if self._closed:
                return state or self.main_screen()
            if self.mode == MAIN:
                self.state = self.main_screen()
            else:
                words = "no helper"
                if self.server is not None:
                    dead, self.server = self.server, None
                    words = dead.last_output()
                    await asyncio.to_thread(dead.stop)
                if state is not None:
                    self.notify(
                        "warning",
                        f"The agent's display {state.id} went away (its helper's last words: {words}); making a new one.",
                    )
                self.state = await self._start()
            self.on_state(self.state)
            return self.state

    def video_stream(self) -> tuple[StreamHead, Iterator[VideoPacket]] | None:
        """For the frame decoder (the preview): the running display's stream header (codec,
        width, height) and its packets; None while the run has no display of its own.
        Each started display gives its stream once; after a re-creation, ask again."""
        server = self.server
        if server is None or not server.alive or server.header is None:
            return None
        return server.header, server.video_stream()

    async def _start(self) -> DisplayState:
        info = await self.port.info()
        if info.sdk and info.sdk < MIN_SDK:
            return self._fall_back(
                f"Android {info.release or info.sdk} cannot give the agent a display of its own (Android 10 or newer can)"
            )
        try:
            spec = await self._main_spec()
            jar = await asyncio.to_thread(load_jar)
            server = DisplayServer(self.port.device, jar, spec)
            await asyncio.to_thread(server.start, self.start_timeout)
        except (JarError, DisplayServerError) as exc:
            return self._fall_back(f"the display helper could not be started: {exc}")
        self.server = server
        self.starts += 1
        assert server.display_id is not None
        if self.starts == 1 and info.sdk and info.sdk < OWN_FOCUS_SDK:
            self.notify(
                "info",
                f"Android {info.release or info.sdk}: while the agent works on its own display, the focus of your "
                "main screen may blink (a display gets its own focus from Android 14 on).",
            )
        return DisplayState(VIRTUAL, server.display_id, size=server.size)

    def _fall_back(self, why: str) -> DisplayState:
        why = why.rstrip(". ")
        self.notify("warning", f"The agent works on your main screen (display 0): {why}.")
        self.mode = MAIN
        return self.main_screen(why)

    async def _main_spec(self) -> DisplaySpec:
        from mika.cap.phone.adb.parse import parse_wm_size

        size_out = await self.port.shell("wm size")
        size = parse_wm_size(size_out.output).effective
        if size is None:
            raise DisplayServerError(f"`wm size` gave no size ({size_out.output.strip()[:80]!r})")
        density = await self.port.shell("wm density")
        dpi = parse_density(density.output)
        return DisplaySpec(size[0], size[1], dpi)

    async def close(self) -> None:
        async with self._lock:
            self._closed = True
            server, self.server = self.server, None
            if server is not None:
                await asyncio.to_thread(server.stop)


def parse_density(output: str) -> int:
    """`wm density`: "Physical density: 440" and, when overridden, "Override density: 400"."""
    found: dict[str, int] = {}
    for line in output.splitlines():
        key, _, value = line.partition(":")
        if value.strip().isdigit():
            found[key.strip().split()[0].lower()] = int(value.strip())
    dpi = found.get("override") or found.get("physical")
    if not dpi:
        raise DisplayServerError(f"`wm density` gave no density ({output.strip()[:80]!r})")
    return dpi
