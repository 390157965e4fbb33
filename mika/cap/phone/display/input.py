"""The user's hands on the agent's display: tap, swipe, text and keys on display N.

`DisplayInput` is what the TUI's takeover calls; `ControlDisplayInput` implements it over
the display helper's scrcpy control socket (any Unicode text, by clipboard + paste), and
`AdbDisplayInput` with `input -d N …` through the adb server, which every Android 10+
phone understands (used when the run has no control socket). `TaskMover` is the other
way to take over: the run's task moves to the main screen and back.
Calls block; the TUI makes them from a worker thread.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Protocol

from mika.cap.phone import scrcpy_control as cm
from mika.cap.phone.adb.text_input import input_text_command, is_plain_ascii


class DisplayInputError(Exception):
    """The phone refused or never got the input; the message says which and why."""


class DisplayInput(Protocol):
    display: int

    def tap(self, x: int, y: int) -> None: ...
    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None: ...
    def text(self, s: str) -> None: ...
    def key(self, name: str) -> None:
        """An Android key name without the KEYCODE_ prefix: BACK, HOME, DEL, ENTER…"""
        ...

    def back(self) -> None: ...


KEYS = {"BACK", "HOME", "DEL", "ENTER", "TAB", "APP_SWITCH", "DPAD_UP", "DPAD_DOWN", "DPAD_LEFT", "DPAD_RIGHT"}


class AdbDisplayInput:
    def __init__(self, serial: str, display: int, timeout: float = 10.0) -> None:
        self.serial = serial
        self.display = display
        self.timeout = timeout

    def _args(self) -> str:
        return f" -d {self.display}" if self.display else ""

    def _shell(self, command: str) -> None:
        import adbutils

        try:
            device = adbutils.adb.device(self.serial)
            result = device.shell2(command, timeout=self.timeout)
        except (adbutils.AdbError, OSError) as exc:
            raise DisplayInputError(f"{self.serial}: could not send `{command}`: {exc}") from None
        output = result.output if isinstance(result.output, str) else str(result.output)
        if result.returncode != 0 or "Exception" in output or output.startswith("Error"):
            first = output.strip().splitlines()[0] if output.strip() else f"exit status {result.returncode}"
            raise DisplayInputError(f"{self.serial} refused `{command}`: {first}")

    def tap(self, x: int, y: int) -> None:
        self._shell(f"input{self._args()} tap {int(x)} {int(y)}")

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self._shell(f"input{self._args()} swipe {int(x1)} {int(y1)} {int(x2)} {int(y2)} {int(duration_ms)}")

    def text(self, s: str) -> None:
        if not s:
            return
        if not is_plain_ascii(s):
            raise DisplayInputError(
                "`input text` types only plain ASCII; type this text on the phone, or move the task to your screen"
            )
        self._shell(input_text_command(s, self._args()))

    def key(self, name: str) -> None:
        name = name.upper().removeprefix("KEYCODE_")
        if name not in KEYS:
            raise DisplayInputError(f"unknown key {name!r}; known: {', '.join(sorted(KEYS))}")
        self._shell(f"input{self._args()} keyevent KEYCODE_{name}")

    def back(self) -> None:
        self.key("BACK")


class ControlDisplayInput:
    """The user's input on display N through its scrcpy control socket. Points are in the
    video's pixels (the channel's size); the server maps them onto the display."""

    SWIPE_STEPS = 10

    def __init__(self, channel: cm.ControlChannel, display: int) -> None:
        self.channel = channel
        self.display = display

    def _send(self, message: bytes) -> None:
        try:
            self.channel.send(message)
        except OSError as exc:
            raise DisplayInputError(f"display {self.display}'s control socket is closed: {exc}") from None

    def _point(self, x: int, y: int) -> tuple[int, int]:
        # A click on the picture's last row or column maps to the edge pixel, not past it.
        w, h = self.channel.size
        return min(max(int(x), 0), w - 1), min(max(int(y), 0), h - 1)

    def _touch(self, action: int, x: int, y: int) -> bytes:
        px, py = self._point(x, y)
        return cm.touch(action, px, py, self.channel.size)

    def tap(self, x: int, y: int) -> None:
        self._send(self._touch(cm.TOUCH_DOWN, x, y) + self._touch(cm.TOUCH_UP, x, y))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self._send(self._touch(cm.TOUCH_DOWN, x1, y1))
        steps = self.SWIPE_STEPS
        for i in range(1, steps + 1):
            # Paced like a finger: the phone reads speed from the events' times (a fling
            # versus a drag), so the moves are spread over the duration.
            time.sleep(max(duration_ms, 0) / 1000 / steps)
            x = x1 + (x2 - x1) * i // steps
            y = y1 + (y2 - y1) * i // steps
            self._send(self._touch(cm.TOUCH_MOVE, x, y))
        self._send(self._touch(cm.TOUCH_UP, x2, y2))

    def text(self, s: str) -> None:
        if not s:
            return
        # INJECT_TEXT types only what the key character map has (no CJK, no emoji):
        # the clipboard, pasted into the focused field, carries any Unicode.
        try:
            message = cm.set_clipboard(s, paste=True)
        except cm.ControlError as exc:
            raise DisplayInputError(str(exc)) from None
        self._send(message)

    def key(self, name: str) -> None:
        bare = name.upper().removeprefix("KEYCODE_")
        if bare not in KEYS:
            raise DisplayInputError(f"unknown key {bare!r}; known: {', '.join(sorted(KEYS))}")
        code = cm.keycode_of(bare)
        self._send(cm.key(cm.KEY_DOWN, code) + cm.key(cm.KEY_UP, code))

    def back(self) -> None:
        self.key("BACK")


@dataclass(frozen=True)
class RootTask:
    id: int
    display: int
    component: str


# Android 12–16 "RootTask id=N … displayId=D", Android 10–11 "Stack id=N … displayId=D";
# then a " configuration={…}" line, then one "  taskId=T: pkg/cls …" line per child task.
_ROOT = re.compile(r"^\s*(?:RootTask|Stack) id=(\d+)\b.*?\bdisplayId=(\d+)")
_COMPONENT = re.compile(r"^\s*taskId=\d+: (\S+)")


def parse_stack_list(text: str) -> list[RootTask]:
    """`am stack list` → its root tasks, top first per display, as the phone lists them;
    the component is the first child task's."""
    found: list[tuple[int, int, str]] = []
    for line in text.splitlines():
        if m := _ROOT.match(line):
            found.append((int(m.group(1)), int(m.group(2)), ""))
        elif found and not found[-1][2] and (c := _COMPONENT.match(line)):
            found[-1] = (found[-1][0], found[-1][1], c.group(1))
    return [RootTask(*t) for t in found]


def _reason(output: str) -> str:
    """The sentence of a refusal: `cmd activity` prints "Exception occurred while executing
    'display':" and the Java stack trace; its exception line says why."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for line in lines:
        if line.startswith("java.") and "Exception" in line.split(":", 1)[0]:
            return line
    return lines[0] if lines else ""


class TaskMover:
    """Takeover on the user's own screen: the display's top task goes to display 0, and
    back to the agent's display when the user is done."""

    def __init__(self, serial: str, timeout: float = 10.0) -> None:
        self.serial = serial
        self.timeout = timeout

    def _run(self, command: str) -> str:
        import adbutils

        try:
            result = adbutils.adb.device(self.serial).shell2(command, timeout=self.timeout)
        except (adbutils.AdbError, OSError) as exc:
            raise DisplayInputError(f"{self.serial}: could not run `{command}`: {exc}") from None
        output = result.output if isinstance(result.output, str) else str(result.output)
        if result.returncode != 0 or output.startswith("Error") or "Exception occurred while executing" in output:
            raise DisplayInputError(f"{self.serial} refused `{command}`: {_reason(output) or result.returncode}")
        return output

    def tasks(self) -> list[RootTask]:
        return parse_stack_list(self._run("am stack list"))

    def to_main(self, display: int) -> RootTask:
        top = next((t for t in self.tasks() if t.display == display), None)
        if top is None:
            raise DisplayInputError(f"display {display} has no task to move to your screen")
        self._run(f"am display move-stack {top.id} 0")
        return top

    def back_to(self, task: RootTask, display: int) -> None:
        self._run(f"am display move-stack {task.id} {display}")
