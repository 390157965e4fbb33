"""The agent display's life during one run: made when first needed, mended, removed.

`DisplayKeeper.ensure()` is called before every phone call of a run that may act:
the first call starts the helper (`DisplayServer`) on a display the size and density of
the main screen; a helper that died since is started again (a new display id — the
session reads the new screen before acting). A display the framework powered off
(`dumpsys display` says state OFF; see `power`) is made again the same way, and the
run's tasks are moved from the old display onto the new one before the old helper
stops, with one notice. That check runs when the last one is POWER_CHECK_S old (a
display is powered off only after it idled a while) or when the preview's pictures
have been black for a while; black pictures alone never re-create a display (a dark
app is black too). A read-only run, or a run that never calls
a phone tool, never starts it. Below Android 10, when `[phone] display = "main"`, or when
the helper fails to start, the run works on display 0, with one notice saying why;
Android 10–13 gets a notice that the main screen's focus may blink (the display has no
focus of its own before Android 14).

At the end of the run the run's tasks on its display are finished (`am stack remove`)
before the helper is stopped: the display was made with vd_destroy_content=false, and a
task left on it would otherwise pop up over whatever the user is doing on the main
screen. They are kept — moved to the main screen — only when the user asked for that
(`[phone] keep_apps_after_run`, `keep_apps`) or the user took the display over during
the run (`user_has_it`, set by the TUI's takeover card through the assembly's
LiveDisplay: an app the user logged into or operated is theirs, finished or not). A
task the user had open before the run (Android moves an app's existing task to the
display it is started on) goes back to the main screen, never removed.

The app the run starts on its display is muted there (`appops … PLAY_AUDIO ignore`)
and its previous mode written back at the end. Both the mode and the run's task ids are
written to the run's BorrowedLedger (through the port's borrower) before they are
changed, so a run whose process dies has them given back / cleared at the next start
(mika.cap.phone.restore). See `leftovers` for the commands and formats.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mika.cap.phone.display import leftovers, power
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
POWER_CHECK_S = 3.0  # `dumpsys display` asked at most this often while the run is busy


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
        keep_apps: bool = False,
        power_check_s: float = POWER_CHECK_S,
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
        # The end of the run keeps its apps (moved to the main screen) instead of finishing
        # them: the user's setting, or a takeover (the user had the app in hand).
        self.keep_apps = keep_apps
        self.user_has_it = False
        self._muted: dict[str, tuple[str, str | None]] = {}  # package → (ledger id, previous mode)
        self._users_tasks: set[int] = set()  # tasks that existed before the run started their app
        self._pending: set[str] = set()  # packages started whose task id is not written down yet
        self._tasks: dict[int, str] = {}  # the run's task id → ledger id
        self.power_check_s = power_check_s
        self._power_checked = -1e9  # monotonic time of the last `dumpsys display`
        self.black = power.BlackWatch()  # fed by the preview's decoder of the running display
        self.recreated = 0  # displays made again because the phone powered one off

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
                if state.mode == VIRTUAL and self._power_due() and await self._powered_off(state.id):
                    self.state = await self._replace_powered_off(state)
                    self.on_state(self.state)
                    return self.state
                if self._pending:
                    try:
                        await self._note_tasks(state.id)
                    except Exception as exc:  # bookkeeping never stops the run's phone call
                        log.warning("noting the run's tasks failed: %s", exc)
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

    # -- a display the phone powered off ---------------------------------------------------

    def watch_frames(self, server: DisplayServer) -> Callable[[object], None]:
        """For the decoder of `server`'s video: each picture goes to the black-frame watch,
        as long as `server` is still the running one (an old display's frames are ignored)."""

        def saw(image: object) -> None:
            if self.server is server:
                self.black.saw(image)

        return saw

    def _power_due(self) -> bool:
        return self.black.suspicious or time.monotonic() - self._power_checked >= self.power_check_s

    async def _powered_off(self, display: int) -> bool:
        """`dumpsys display` says `display` is OFF. Any other answer (ON, not listed, the
        command failing) keeps the display: only the phone's own word re-creates it."""
        self._power_checked = time.monotonic()
        self.black.clear()
        try:
            out = await self.port.shell(power.DUMPSYS_COMMAND)
        except Exception as exc:  # the check never stops the run's phone call
            log.warning("`dumpsys display` failed: %s", exc)
            return False
        found = power.display_state(out.output, display)
        if found is None:
            log.info("`dumpsys display` does not list display %s", display)
        return found == "OFF"

    async def _replace_powered_off(self, state: DisplayState) -> DisplayState:
        """A new display (same size and density) for one the phone powered off; the run's
        tasks move onto it, then the old helper stops. The new id makes the session read
        its screen afresh: nothing read on the old display is trusted."""
        old, self.server = self.server, None
        self.notify(
            "warning",
            f"The phone powered off the agent's display {state.id} (`dumpsys display`: state OFF); "
            "making a new one and moving the run's app there.",
        )
        try:
            new = await self._start()
        except BaseException:
            if old is not None:  # never leave the powered-off helper running behind
                await asyncio.to_thread(old.stop)
            raise
        self.recreated += 1
        try:
            if new.mode == VIRTUAL:
                await self._move_tasks(state.id, new.id)
        except Exception as exc:  # the app is relaunched by the run if it did not move
            log.warning("moving the run's tasks to display %s failed: %s", new.id, exc)
        if old is not None:
            # Tasks not moved fall on the main screen as the display goes (vd_destroy_content=false).
            await asyncio.to_thread(old.stop)
        return new

    async def _move_tasks(self, source: int, target: int) -> None:
        listed = await self.port.shell("am stack list")
        # Listed top first: moved bottom first, so the top one is on top again.
        on_old = [t for t in leftovers.parse_tasks(listed.output) if t.display == source]
        for task in reversed(on_old):
            command = leftovers.move_command(task.id, target)
            out = await self.port.shell(command)
            if out.exit_code != 0:
                log.warning("`%s` failed: %s", command, out.output.strip()[:160])

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
        self._power_checked = time.monotonic()  # a display just made is on
        self.black.clear()
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

    # -- what the run leaves: its app muted, its tasks ----------------------------------

    @property
    def _on_own_display(self) -> bool:
        return self.state is not None and self.state.mode == VIRTUAL and self.server is not None

    def _borrower(self):
        return getattr(self.port, "borrower", None)

    async def before_app_start(self, package: str) -> None:
        """Called by the port before it starts `package` on this run's display: mute it there
        (the previous mode written down first) and note which of its tasks are the user's."""
        if not self._on_own_display:
            return
        if not package:  # a link or an intent: whichever app answers is muted once it shows
            self._pending.add("")
            return
        try:
            listed = await self.port.shell("am stack list")
            for task in leftovers.parse_tasks(listed.output):
                if task.package == package and task.id not in self._tasks:
                    self._users_tasks.add(task.id)
            self._pending.add(package)
            if package not in self._muted:
                await self._mute(package)
        except Exception as exc:  # never stop the run over its sound or its bookkeeping
            log.warning("preparing %s on the agent's display failed: %s", package, exc)

    async def user_takes_over(self) -> None:
        """The user took the display over (the TUI's takeover card): the run's end keeps its
        apps, and they get their sound back now (seed §6: muted on the agent's display,
        sound restored on takeover) and are not muted again in this run."""
        self.user_has_it = True
        async with self._lock:
            try:
                await self._unmute()
            except Exception as exc:  # the takeover goes on; the run's end retries
                log.warning("giving the taken-over apps their sound back failed: %s", exc)

    async def _mute(self, package: str) -> None:
        if self.user_has_it:  # the user has the app in hand: its sound is theirs
            return
        got = await self.port.shell(leftovers.get_mode_command(package))
        if got.exit_code != 0:
            log.info("`appops get %s` failed: %s", package, got.output.strip()[:120])
            return
        previous = leftovers.parse_mode(got.output)
        borrower = self._borrower()
        item = ""
        if borrower is not None:
            item = borrower.borrow(
                leftovers.MUTED_KIND,
                f"{self.port.serial}/{package}",
                {"serial": self.port.serial, "package": package, "mode": previous or ""},
            )
        self._muted[package] = (item, previous)
        out = await self.port.shell(leftovers.set_mode_command(package, "ignore"))
        if out.exit_code != 0:
            log.info("`appops set %s PLAY_AUDIO ignore` failed: %s", package, out.output.strip()[:120])

    async def _note_tasks(self, display: int) -> None:
        """Write the run's new tasks on its display into the ledger, so a crash still clears them."""
        listed = await self.port.shell("am stack list")
        borrower = self._borrower()
        for task in leftovers.parse_tasks(listed.output):
            if task.display != display or task.id in self._tasks:
                continue
            self._pending.discard(task.package)
            self._pending.discard("")
            users = task.id in self._users_tasks
            if task.package and task.package not in self._muted:
                await self._mute(task.package)
            item = ""
            if borrower is not None:
                item = borrower.borrow(
                    leftovers.TASK_KIND,
                    f"{self.port.serial}/task-{task.id}",
                    {
                        "serial": self.port.serial,
                        "task": task.id,
                        "package": task.package,
                        "users": users,
                    },
                )
            self._tasks[task.id] = item

    async def _settle_tasks(self, display: int) -> None:
        """Before the display goes: finish the run's tasks on it, or keep them on the main screen."""
        listed = await self.port.shell("am stack list")
        keep = self.keep_apps or self.user_has_it
        tasks = leftovers.parse_tasks(listed.output)
        front = next((t.id for t in tasks if t.display == 0), None)
        for task in tasks:
            if task.display != display:
                # A display of this run's that died earlier dropped its tasks on the main
                # screen: close them too, unless the user is looking at one (as after a crash).
                if (
                    not keep
                    and task.display == 0
                    and task.id in self._tasks
                    and task.id not in self._users_tasks
                    and task.id != front
                ):
                    await self.port.shell(leftovers.remove_task_command(task.id))
                continue
            if keep or task.id in self._users_tasks:
                command = leftovers.move_to_main_command(task.id)
            else:
                command = leftovers.remove_task_command(task.id)
            out = await self.port.shell(command)
            if out.exit_code != 0:
                log.warning("`%s` failed: %s", command, out.output.strip()[:160])
        borrower = self._borrower()
        for item in self._tasks.values():
            if borrower is not None and item:
                borrower.give_back(item)
        self._tasks.clear()

    async def _unmute(self) -> None:
        borrower = self._borrower()
        for package, (item, previous) in list(self._muted.items()):
            mode = leftovers.mode_to_give_back(previous)
            try:
                out = await self.port.shell(leftovers.set_mode_command(package, mode))
            except Exception as exc:
                log.warning("giving %s its sound back failed (the next start retries): %s", package, exc)
                continue
            if out.exit_code != 0:
                log.warning("`appops set %s PLAY_AUDIO %s` failed: %s", package, mode, out.output.strip()[:160])
                continue
            del self._muted[package]
            if borrower is not None and item:
                borrower.give_back(item)

    async def close(self) -> None:
        async with self._lock:
            self._closed = True
            server, self.server = self.server, None
            if server is not None:
                if server.alive and server.display_id is not None:
                    try:
                        await self._settle_tasks(server.display_id)
                    except Exception as exc:  # released with its server all the same
                        log.warning("clearing the agent's display failed: %s", exc)
                await asyncio.to_thread(server.stop)
            try:
                await self._unmute()
            except Exception as exc:
                log.warning("giving back the muted apps failed: %s", exc)


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
