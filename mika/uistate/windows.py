"""What each top-level window of a dump is: the app, a dialog, a bar, the keyboard.

Only geometry and package names are used, so it works the same for the one-window
`uiautomator dump` and the multi-window uiautomator2 dump. The status bar is left out
when screens are compared (its clock ticks), and a dialog window is what makes
`UntilWait` and `do_steps` stop early.
"""

from __future__ import annotations

from dataclasses import dataclass

from mika.uistate.tree import Bounds, UiTree, UiWindow

SYSTEM_UI = "com.android.systemui"
_BAR_SHARE = 0.12  # a bar is at most this share of the screen's height
_FLOATING_SHARE = 0.05  # windows smaller than this share of the screen are floating bits
_OVERLAY_PACKAGES = frozenset({"gesture"})


@dataclass(frozen=True)
class WindowInfo:
    index: int
    package: str
    kind: str  # app | dialog | status_bar | nav_bar | keyboard | system | overlay
    bounds: Bounds
    display_id: int | None

    @property
    def is_bar(self) -> bool:
        return self.kind in ("status_bar", "nav_bar", "overlay")


def _is_keyboard(package: str) -> bool:
    p = package.lower()
    return (
        "inputmethod" in p or p.endswith((".ime", ".keyboard")) or ".keyboard." in p or ("sogou" in p and "input" in p)
    )


def classify_windows(tree: UiTree, screen: Bounds | None = None) -> tuple[WindowInfo, ...]:
    frame = screen if screen is not None and not screen.empty else tree.bounds
    height = max(frame.height, 1)
    area = max(frame.area, 1)
    infos: list[WindowInfo] = []
    largest_app = _largest_app_window(tree)
    for w in tree.windows:
        infos.append(
            WindowInfo(
                w.index,
                w.package,
                _kind(w, frame, height, area, largest_app, len(tree.windows)),
                w.bounds,
                w.display_id,
            )
        )
    return tuple(infos)


def _largest_app_window(tree: UiTree) -> int | None:
    best: tuple[int, int] | None = None
    for w in tree.windows:
        if w.package in _OVERLAY_PACKAGES or _is_keyboard(w.package):
            continue
        if w.package == SYSTEM_UI and w.bounds.height < 0.2 * max(tree.bounds.height, 1):
            continue
        if best is None or w.bounds.area > best[0]:
            best = (w.bounds.area, w.index)
    return best[1] if best else None


def _kind(w: UiWindow, frame: Bounds, height: int, area: int, largest_app: int | None, count: int) -> str:
    b = w.bounds
    if w.package in _OVERLAY_PACKAGES:
        return "overlay"
    if _is_keyboard(w.package):
        return "keyboard"
    small = b.height <= _BAR_SHARE * height
    if w.package == SYSTEM_UI and small and b.width >= 0.8 * frame.width:
        if b.top <= frame.top:
            return "status_bar"
        if b.bottom >= frame.bottom:
            return "nav_bar"
    if b.area < _FLOATING_SHARE * area and count > 1:
        return "overlay"
    if count == 1:
        # A dump that holds a single window which does not start at the screen's corner
        # is a dialog on its own (ANR, permission prompts, app dialogs).
        return "dialog" if (b.left > 0 or b.top > 0) else ("system" if w.package == SYSTEM_UI else "app")
    if w.index == largest_app:
        return "system" if w.package == SYSTEM_UI else "app"
    if b.area < 0.85 * area:
        return "dialog"
    return "system" if w.package == SYSTEM_UI else "app"
