"""Focus per display from `dumpsys window` (any section: windows, displays, or all).

Formats seen in real output:

* Android ≤ 9: `mCurrentFocus=Window{b4d2a948 com.pkg/com.pkg.MainActivity paused=false}`
  and `mFocusedApp=AppWindowToken{… ActivityRecord{b4d3aa20 com.pkg/.MainActivity}}}`,
  once, for the one display.
* Android 10+: per display, after `Display: mDisplayId=N`, `mCurrentFocus=Window{1651cd4
  u0 NotificationShade}` (a non-activity window has only a title) and
  `mFocusedApp=ActivityRecord{1f72345 u0 com.pkg/.Activity t12}`;
  `mTopFocusedDisplayId=N` names the display that has input focus.
* Android 13+ `dumpsys window windows` prints neither line; there the window list
  (`Window #N Window{hash u0 pkg/activity}` with `mDisplayId=N` and `isVisible=true`)
  and `imeInputTarget in display# N Window{…}` are what is left, and are used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mika.cap.phone.adb.parse.decode import shell_text

_COMPONENT = re.compile(r"([A-Za-z_][\w.]*)/([\w.$]+)")
_USER_HASH = re.compile(r"^(?:[0-9a-f]+\s+)?(?:u\d+\s+)?")


@dataclass(frozen=True)
class Component:
    package: str
    activity: str  # fully qualified; "" for a window that is not an activity

    @staticmethod
    def parse(text: str) -> Component | None:
        m = _COMPONENT.search(text)
        if not m:
            return None
        package, cls = m.group(1), m.group(2)
        return Component(package, package + cls if cls.startswith(".") else cls)

    def __str__(self) -> str:
        return f"{self.package}/{self.activity}" if self.activity else self.package


@dataclass(frozen=True)
class WindowFocus:
    display_id: int
    window_title: str = ""  # e.g. "NotificationShade" or "com.pkg/com.pkg.Main"
    focus: Component | None = None  # the focused window's app, when it is an activity
    focused_app: Component | None = None
    source: str = ""  # which lines it came from: mCurrentFocus | window-list | ime-target

    @property
    def package(self) -> str:
        """The app in front: the focused window's, else the focused activity's."""
        if self.focus is not None:
            return self.focus.package
        return self.focused_app.package if self.focused_app is not None else ""


@dataclass(frozen=True)
class FocusReport:
    displays: tuple[WindowFocus, ...] = ()
    top_focused_display: int | None = None
    notes: tuple[str, ...] = field(default=())

    def for_display(self, display_id: int) -> WindowFocus | None:
        for d in self.displays:
            if d.display_id == display_id:
                return d
        return None


_DISPLAY_HEADER = re.compile(r"^\s*Display: mDisplayId=(\d+)|^\s*Display #(\d+)")
_CURRENT = re.compile(r"mCurrentFocus=Window\{(.*)\}\s*$")
_FOCUSED_APP = re.compile(r"mFocusedApp=(.*)$")
_TOP = re.compile(r"mTopFocusedDisplayId=(-?\d+)")
_WINDOW_ITEM = re.compile(r"^\s*Window #\d+ Window\{(.*?)\}:?\s*$")
_ITEM_DISPLAY = re.compile(r"^\s*mDisplayId=(\d+)")
_IS_VISIBLE = re.compile(r"^\s*isVisible=(true|false)")
_IME_TARGET = re.compile(r"imeInputTarget in display# ?(\d+) Window\{(.*?)\}")


def _title(inner: str) -> str:
    """`1651cd4 u0 NotificationShade` → `NotificationShade`; drops ` paused=false`, ` type=1`."""
    rest = _USER_HASH.sub("", inner.strip(), count=1)
    rest = re.sub(r"\s+(paused=\w+|type=\d+)\b.*$", "", rest)
    # Android 13 prefixes system windows with their package: `com.android.systemui:6d67f78 u0 StatusBar`.
    rest = re.sub(r"^[\w.]+:[0-9a-f]+\s+(?:u\d+\s+)?", "", rest)
    return rest.strip()


def parse_window_focus(data: bytes | str) -> FocusReport:
    text = shell_text(data)
    current_display = 0
    found: dict[int, dict[str, object]] = {}
    top: int | None = None
    visible_apps: dict[int, Component] = {}
    ime: dict[int, Component] = {}
    item: tuple[str, int] | None = None  # (window inner text, display) of the list entry being read
    for line in text.split("\n"):
        if m := _DISPLAY_HEADER.match(line):
            current_display = int(m.group(1) or m.group(2))
            continue
        if m := _CURRENT.search(line):
            inner = m.group(1)
            slot = found.setdefault(current_display, {})
            slot["title"] = _title(inner)
            slot["focus"] = Component.parse(_title(inner))
            continue
        if m := _FOCUSED_APP.search(line):
            found.setdefault(current_display, {})["app"] = _focused_app(m.group(1))
            continue
        if m := _TOP.search(line):
            top = int(m.group(1))
            continue
        if m := _WINDOW_ITEM.match(line):
            item = (m.group(1), 0)
            continue
        if item and (m := _ITEM_DISPLAY.match(line)):
            item = (item[0], int(m.group(1)))
            continue
        if item and (m := _IS_VISIBLE.match(line)):
            if m.group(1) == "true":
                comp = Component.parse(_title(item[0]))
                # The window list runs top to bottom: the first visible activity is on top.
                if comp and item[1] not in visible_apps:
                    visible_apps[item[1]] = comp
            item = None
            continue
        if m := _IME_TARGET.search(line):
            comp = Component.parse(_title(m.group(2)))
            if comp:
                ime[int(m.group(1))] = comp
    displays: list[WindowFocus] = []
    for display_id in sorted(set(found) | set(visible_apps) | set(ime)):
        entry = found.get(display_id)
        if entry:
            displays.append(
                WindowFocus(
                    display_id,
                    window_title=str(entry.get("title", "")),
                    focus=entry.get("focus"),  # type: ignore[arg-type]
                    focused_app=entry.get("app"),  # type: ignore[arg-type]
                    source="mCurrentFocus" if "title" in entry else "mFocusedApp",
                )
            )
        elif display_id in ime:
            comp = ime[display_id]
            displays.append(WindowFocus(display_id, str(comp), comp, visible_apps.get(display_id, comp), "ime-target"))
        else:
            comp = visible_apps[display_id]
            displays.append(WindowFocus(display_id, str(comp), comp, comp, "window-list"))
    return FocusReport(tuple(displays), top)


def _focused_app(value: str) -> Component | None:
    value = value.strip()
    if value in ("null", ""):
        return None
    inner = value.rsplit("ActivityRecord{", 1)[-1]
    return Component.parse(inner)
