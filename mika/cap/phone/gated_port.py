"""`GatedPort`: the phone tools' AndroidPort once a run's InputGate is bound.

Every input it forwards — tap, long press, swipe, stroke, key, text, clear, intent, app
launch — is first described as the `ActionTarget` it will land on (mika.cap.phone.landing)
and handed to `InputGate.check` (mika.action.input_gate), which raises `InputHeld` when the
input may not go; then, and only then, it is sent. Whatever tool or route made the call
(the model, do_steps, phone_run, a route replay, the sandbox bridge, an MCP client, a
schedule, a sub-agent), it reaches the phone only through here, so it meets that one
judgement. Reads pass straight through.

The screen an input lands on is a read of that display that began after the last input
sent to it: the reader's current screen when nothing was sent since it was read (the lock
check's read, a tool's own read after its previous input), else a fresh read. Each input
counts (`ScreenReader.note_input`) as it is sent.

Judged per input:
- tap / long press: the riskiest element under the point (a dialog's button with the
  dialog's question; nothing pressable on a payment screen: unclear);
- swipe / stroke: each finger as `landing.drag_target` says — within the touch slop, or
  never leaving the pressable element it came down on, a tap there; otherwise a drag,
  judged by what it comes down on; of several fingers the riskiest is the input's target;
- key: Enter, DPAD_CENTER, NUMPAD_ENTER, Space (and the gamepad's A / Select) press the
  focus: the focused control, or a focused field's form (unclear on a payment screen);
  other keys (Back, Home, arrows, Delete) press nothing and are passed as harmless;
- text: the focused field (a secret one on a payment screen is the pay password: PAY;
  text with a line break is also that field's submit);
- clear: deleting what the focused field holds presses nothing — passed as harmless,
  without a read;
- start_activity: its data URI, its component (or a package given as one), the links in
  its text extras (a shared text carrying `mikashop://checkout`), the activity the phone
  resolves the intent to and the one each such link opens (`cmd package
  resolve-activity`: `mikashop://checkouts/c/7f3a` opens `.CheckoutActivity`), each as a
  place; the riskiest decides;
- launch_app: a component names one page and is judged as a place; a bare package opens
  the app's front page, which is no payment step (an app named after a payment brand is
  opened like any other: what is pressed inside it is judged).
- shell: a raw command reaches no screen (the command rules refuse those that would);
  each risky setting it changes (the lock screen, install sources, accessibility,
  developer options) is judged as a step the person is asked about; a refused line that
  would have started a payment place is judged too (`judge_started`).

Once an input of a call was held, nothing more of that call is sent.
"""

from __future__ import annotations

import logging
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mika.action.input_gate import InputGate, InputHeld
from mika.action.under_point import riskiest, screen_text
from mika.cap.phone.command_reach import places_started, settings_changed
from mika.cap.phone.landing import (
    ACTIVATING_KEYS,
    LINK,
    drag_target,
    field_target,
    focus_target,
    key_name,
    place_targets,
    point_target,
)
from mika.cap.phone.port import AndroidPort, DeviceInfo, Foreground, ShellResult
from mika.tool.declaration import ActionTarget
from mika.uistate import Screen, build_screen, parse_hierarchy

if TYPE_CHECKING:
    from mika.cap.phone.picture import Picture
    from mika.cap.phone.reader import ScreenReader

log = logging.getLogger(__name__)

SEND = "android.intent.action.SEND"
VIEW = "android.intent.action.VIEW"
SETTINGS_APP = "com.android.settings"  # where a person would change a setting by hand
LINKS_RESOLVED = 3  # links of a shared text whose page is looked up (each is one shell call)


@dataclass(frozen=True)
class Judged:
    """One input's judgement, for the gate's benchmark: how long reading the screen took
    (0 when the current read stood), and how long resolving and classifying it took."""

    kind: str
    fresh_read: bool
    read_ms: float
    judge_ms: float


class GatedPort:
    def __init__(
        self,
        inner: AndroidPort,
        gate: InputGate,
        reader: ScreenReader,
        *,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.inner = inner
        self.gate = gate
        self.reader = reader
        self.serial = inner.serial
        self.clock = clock
        self.on_judged: Callable[[Judged], None] | None = None

    @property
    def reconnects(self) -> int:
        return int(getattr(self.inner, "reconnects", 0))

    # -- reads pass straight through -------------------------------------------------

    async def info(self) -> DeviceInfo:
        return await self.inner.info()

    async def dump_hierarchy(self, display: int) -> str:
        return await self.inner.dump_hierarchy(display)

    async def screenshot(self, display: int, max_side: int | None = None) -> Picture:
        return await self.inner.screenshot(display, max_side)

    async def foreground(self, display: int) -> Foreground:
        return await self.inner.foreground(display)

    async def launchable_apps(self) -> dict[str, str]:
        return await self.inner.launchable_apps()

    async def pull(self, path: str, dest: Path, max_bytes: int) -> int:
        return await self.inner.pull(path, dest, max_bytes)

    async def close(self) -> None:
        await self.inner.close()

    # -- inputs: judged, then sent ------------------------------------------------------

    async def tap(self, display: int, x: int, y: int) -> None:
        await self._judge(display, "tap", lambda s: point_target(s, x, y, "tap"))
        self._sending()
        await self.inner.tap(display, x, y)

    async def long_press(self, display: int, x: int, y: int, ms: int = 800) -> None:
        # A paced tap is a short hold: still what is under the point that is pressed.
        await self._judge(display, "long_press", lambda s: point_target(s, x, y, "long_press"))
        self._sending()
        await self.inner.long_press(display, x, y, ms)

    async def swipe(self, display: int, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        path = [(0, x1, y1), (max(0, ms), x2, y2)]
        await self._judge(display, "swipe", lambda s: drag_target(s, path))
        self._sending()
        await self.inner.swipe(display, x1, y1, x2, y2, ms)

    async def stroke(self, display: int, pointers: list[list[tuple[int, int, int]]]) -> str:
        fingers = [list(p) for p in pointers if p]
        await self._judge(display, "stroke", lambda s: riskiest([drag_target(s, f, "gesture") for f in fingers]))
        self._sending()
        return await self.inner.stroke(display, pointers)

    async def key(self, display: int, key: str) -> None:
        name = key_name(key)
        if name in ACTIVATING_KEYS:
            await self._judge(display, "key", lambda s: focus_target(s, "key"))
        else:
            # Back, Home, the arrows, Delete: they press nothing on the screen.
            self._judge_as("key", lambda: ActionTarget(kind="key"))
        self._sending()
        await self.inner.key(display, key)

    async def type_text(self, display: int, text: str, *, existing: str = "") -> str:
        await self._judge(display, "type", lambda s: field_target(s, "type", text=text))
        self._sending()
        return await self.inner.type_text(display, text, existing=existing)

    async def clear_text(self, display: int, length: int = 0) -> None:
        # Deleting what the focused field holds presses nothing: harmless, no read needed.
        self._judge_as("clear", lambda: ActionTarget(kind="clear"))
        self._sending()
        await self.inner.clear_text(display, length)

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
    ) -> ShellResult:
        kind = "share" if action == SEND else "link" if data else "intent"
        places = [data or "", component or "", package if package and "/" in package else ""]
        links = [link for value in (extras or {}).values() if isinstance(value, str) for link in LINK.findall(value)]
        places += links
        started = self.clock()
        resolved = await self._resolve(action, data, mime, component, package)
        # A link in the text is a page the receiving app may open: the page it resolves to.
        pages = [await self._resolve(VIEW, link, None, None, None) for link in links[:LINKS_RESOLVED]]
        resolve_ms = (self.clock() - started) * 1000
        places += [resolved, *pages]
        app = (package or component or resolved or "").partition("/")[0] or _host(data or "")
        shown = screen_text(self.reader.current)
        self._judge_as(
            kind, lambda: riskiest(place_targets(places, kind=kind, app=app, text=shown), kind), spent_ms=resolve_ms
        )
        self._sending()
        return await self.inner.start_activity(
            display, action=action, data=data, mime=mime, component=component, package=package, extras=extras
        )

    async def launch_app(self, display: int, package: str) -> ShellResult:
        place = package if "/" in package else ""
        app = package.partition("/")[0]
        shown = screen_text(self.reader.current)
        self._judge_as("launch", lambda: riskiest(place_targets([place], kind="launch", app=app, text=shown), "launch"))
        self._sending()
        return await self.inner.launch_app(display, package)

    async def shell(self, command: str, timeout: float = 20.0) -> ShellResult:
        self._judge_shell(command)
        return await self.inner.shell(command, timeout)

    def _judge_shell(self, command: str) -> None:
        """A raw command never reaches the screen (the command rules refuse `input`,
        `am start`, `monkey` … before a line gets here); what it can still do is weaken the
        phone's protection: each risky setting it changes is judged as a step the person
        is asked about (mika.cap.phone.command_reach)."""
        for change in settings_changed(command):
            target = ActionTarget(
                kind="setting", label=change.key, app=SETTINGS_APP, screen_text=change.described, on_screen=True
            )
            self._judge_as("setting", lambda t=target: t)  # type: ignore[misc]  # bound now, called now

    async def judge_started(self, command: str) -> None:
        """The places a refused command line would have started (`am start -d
        mikashop://checkout`), judged like an intent: when one is a payment step, the
        refusal is the payment rule's (an unattended run exits 5), not only the command
        rules' advice to use a phone tool. Nothing is sent either way."""
        places = places_started(command)
        if not places:
            return
        # As for an intent the tools send: the page each link resolves to is a place too.
        links = [p for p in places if "://" in p][:LINKS_RESOLVED]
        places += [await self._resolve(VIEW, link, None, None, None) for link in links]
        shown = screen_text(self.reader.current)
        app = next((p.partition("/")[0] for p in places if "/" in p and "://" not in p), "")
        self._judge_as("intent", lambda: riskiest(place_targets(places, kind="intent", app=app, text=shown), "intent"))

    # -- the judgement -------------------------------------------------------------------

    async def _judge(self, display: int, kind: str, describe: Callable[[Screen], ActionTarget]) -> None:
        """Judge an input by the screen it lands on (read after the last input)."""
        self._refuse_after_hold()
        started = self.clock()
        screen, fresh = await self._landing(display)
        read_at = self.clock()
        self._check(lambda: describe(screen), kind, fresh, (read_at - started) * 1000)

    def _judge_as(self, kind: str, describe: Callable[[], ActionTarget], *, spent_ms: float = 0.0) -> None:
        """Judge an input whose target needs no screen read (a place, a key that presses nothing)."""
        self._refuse_after_hold()
        self._check(describe, kind, False, spent_ms)

    def _refuse_after_hold(self) -> None:
        scope = self.gate.current
        if scope is not None and scope.held is not None:
            # A call whose input was held sends nothing more (one refusal, one event).
            raise InputHeld(scope.held)

    def _check(self, describe: Callable[[], ActionTarget], kind: str, fresh: bool, read_ms: float) -> None:
        started = self.clock()
        try:
            self.gate.check(describe())
        finally:
            if self.on_judged is not None:
                self.on_judged(Judged(kind, fresh, read_ms, (self.clock() - started) * 1000))

    def _sending(self) -> None:
        self.reader.note_input()

    async def _landing(self, display: int) -> tuple[Screen, bool]:
        """The screen the input lands on, and whether it had to be read afresh."""
        if display == self.reader.display:
            current = self.reader.current_since_input
            if current is not None:
                return current, False
            return await self.reader.read(), True
        # Not the display the run reads (no tool sends there): read it on its own.
        xml = await self.inner.dump_hierarchy(display)
        front = await self.inner.foreground(display)
        return build_screen(parse_hierarchy(xml), display_id=display, activity=front.activity), True

    async def _resolve(
        self, action: str | None, data: str | None, mime: str | None, component: str | None, package: str | None
    ) -> str:
        """The activity the phone would start for this intent ("" when it can't say): a
        link named so that no word of it reads as checkout may still open a checkout page."""
        if component:
            return ""  # named already
        parts = ["cmd", "package", "resolve-activity", "--brief"]
        for flag, value in (("-a", action), ("-d", data), ("-t", mime)):
            if value:
                parts += [flag, value]
        if package:
            parts.append(package)
        if len(parts) == 4:
            return ""
        try:
            out = await self.inner.shell(" ".join(shlex.quote(p) for p in parts), timeout=10.0)
        except Exception as exc:  # resolving helps the judgement; the places named still decide
            log.info("could not resolve an intent before starting it: %s", exc)
            return ""
        lines = [ln.strip() for ln in out.output.splitlines() if "/" in ln and " " not in ln.strip()]
        return lines[-1] if out.exit_code == 0 and lines else ""


def _host(url: str) -> str:
    _, sep, rest = url.partition("://")
    return rest.split("/", 1)[0].split("?", 1)[0].lower() if sep else ""
