"""`dumpsys input`: interactive, focused window and touch viewports per display.

Lines used: `Interactive: true|false`, `FocusedWindow: name='Window{… u0 pkg/Activity}'`
(and, on 12+, `FocusedWindows:` with `displayId=N` entries), and
`Viewport: displayId=0, orientation=0, …, logicalFrame=[0, 0, 1920, 1080], …
deviceSize=[3840, 2160]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.cap.phone.adb.parse.decode import ShellOutputError, shell_text
from mika.cap.phone.adb.parse.window import Component

_INTERACTIVE = re.compile(r"^\s*Interactive:\s*(true|false)", re.MULTILINE)
_FOCUSED = re.compile(r"FocusedWindow:\s*name='Window\{([^}]*)\}'")
_FOCUSED_12 = re.compile(r"displayId=(\d+),\s*name='(?:[0-9a-f]+ )?(?:u\d+ )?([^']*)'")
_VIEWPORT = re.compile(
    r"Viewport:\s*displayId=(\d+),\s*orientation=(\d+).*?logicalFrame=\[(-?\d+), (-?\d+), (-?\d+), (-?\d+)\]"
    r".*?deviceSize=\[(\d+), (\d+)\]"
)


@dataclass(frozen=True)
class Viewport:
    display_id: int
    orientation: int
    logical: tuple[int, int, int, int]
    device_size: tuple[int, int]


@dataclass(frozen=True)
class InputState:
    interactive: bool | None
    focused: Component | None
    viewports: tuple[Viewport, ...]


def parse_input(data: bytes | str) -> InputState:
    text = shell_text(data)
    if "INPUT MANAGER" not in text and "Input Dispatcher" not in text:
        raise ShellOutputError("dumpsys input", "no INPUT MANAGER section", text.strip())
    interactive = _INTERACTIVE.search(text)
    focused_match = _FOCUSED.search(text)
    focused = Component.parse(focused_match.group(1)) if focused_match else None
    if focused is None:
        block = text.split("FocusedWindows:", 1)
        if len(block) == 2:
            m = _FOCUSED_12.search(block[1][:400])
            focused = Component.parse(m.group(2)) if m else None
    seen: set[tuple[object, ...]] = set()
    viewports: list[Viewport] = []
    for m in _VIEWPORT.finditer(text):
        vp = Viewport(
            int(m.group(1)),
            int(m.group(2)),
            (int(m.group(3)), int(m.group(4)), int(m.group(5)), int(m.group(6))),
            (int(m.group(7)), int(m.group(8))),
        )
        key = (vp.display_id, vp.orientation, vp.logical, vp.device_size)
        if key not in seen:
            seen.add(key)
            viewports.append(vp)
    return InputState(interactive.group(1) == "true" if interactive else None, focused, tuple(viewports))
